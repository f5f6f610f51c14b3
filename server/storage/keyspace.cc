// Keyspace implementation: reads, batches, stripe locks and scans over
// storage_format.h's records, directly or through a WriteGroup.
#include "keyspace.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>

#include "compact_members.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using storage_format::DecodeMeta;
using storage_format::IndexPrefix;
using storage_format::MemberPrefix;

Keyspace::Shared::Shared(ROCKSDB_NAMESPACE::DB* db_in, bool sync)
    : db(db_in),
      stripes(new std::mutex[kStripes]),
      gates(new std::shared_mutex[kGates]),
      versions(db_in) {
  write_options.sync = sync;
  for (int db = 0; db < kDatabases; ++db) slots[db].store(static_cast<uint8_t>(db));
}

Keyspace::Keyspace(ROCKSDB_NAMESPACE::DB* db, bool sync)
    : shared_(std::make_shared<Shared>(db, sync)) {}

Keyspace Keyspace::InGroup(WriteGroup* group) const {
  Keyspace view = *this;
  view.group_ = group;
  view.gate_ = shared_->views.fetch_add(1, std::memory_order_relaxed) % kGates;
  return view;
}

Keyspace Keyspace::InDatabase(int db) const {
  Keyspace view = *this;
  view.db_ = db;
  return view;
}

void Keyspace::Select(int db) {
  prefetched_.Clear();
  db_ = db;
}

std::string Keyspace::Name(const std::string& key) const {
  std::string name(1, static_cast<char>(db_));
  name += key;
  return name;
}

int Keyspace::NameDatabase(const std::string& name) { return static_cast<uint8_t>(name[0]); }

std::string Keyspace::NameKey(const std::string& name) { return name.substr(1); }

Status Keyspace::LoadDatabases() {
  std::string bytes;
  Status s = db()->Get(ROCKSDB_NAMESPACE::ReadOptions(), storage_format::DatabaseSlotsKey(), &bytes);
  if (s.IsNotFound()) return Status::OK();  // each database in its own slot (Shared's)
  if (!s.ok()) return s;
  // A permutation of the slots, or the record is damaged.
  bool seen[kDatabases] = {};
  bool valid = bytes.size() == kDatabases;
  for (size_t db = 0; valid && db < bytes.size(); ++db) {
    const uint8_t slot = static_cast<uint8_t>(bytes[db]);
    valid = slot < kDatabases && !seen[slot];
    if (valid) seen[slot] = true;
  }
  if (!valid) return Status::Corruption("the databases' slot record (db-slots)");
  for (int db = 0; db < kDatabases; ++db) {
    shared_->slots[db].store(static_cast<uint8_t>(bytes[db]), std::memory_order_release);
  }
  return Status::OK();
}

Status Keyspace::FlushGroup() {
  if (group_ == nullptr) return Status::OK();
  bool set_expiry = false;
  const Status s = group_->Flush(db(), shared_->write_options, &set_expiry);
  if (set_expiry) shared_->expiry_writes.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::string> written = group_->TakeWritten();
  std::vector<WriteGroup::DeferredRead> reads = group_->TakeDeferredReads();
  if (written.empty() && reads.empty()) return s;
  if (KeyWriteListener* listener = Listening()) {
    if (!written.empty()) listener->Written(written, writer_);
    for (const WriteGroup::DeferredRead& read : reads) {
      listener->Read(read.keys, writer_, read.caching_given);
    }
  }
  return s;
}

void Keyspace::NoteRead(const std::vector<std::string>& keys, bool caching_given) {
  KeyWriteListener* listener = Listening();
  if (listener == nullptr) return;
  std::vector<std::string> now, later;
  for (const std::string& key : keys) {
    (group_ != nullptr && group_->Wrote(key) ? later : now).push_back(key);
  }
  if (!now.empty()) listener->Read(now, writer_, caching_given);
  if (!later.empty()) group_->DeferRead({std::move(later), caching_given});
}

Status Keyspace::Get(const std::string& record, ROCKSDB_NAMESPACE::PinnableSlice* value) const {
  if (group_ != nullptr && group_->staged()) {
    return group_->writes().Get(db(), ROCKSDB_NAMESPACE::ReadOptions(), record, value);
  }
  return db()->Get(ROCKSDB_NAMESPACE::ReadOptions(), db()->DefaultColumnFamily(), record, value);
}

std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> Keyspace::NewIterator(
    const ROCKSDB_NAMESPACE::ReadOptions& read) const {
  if (group_ != nullptr && group_->staged()) return group_->writes().NewIterator(db(), read);
  return std::unique_ptr<ROCKSDB_NAMESPACE::Iterator>(db()->NewIterator(read));
}

namespace {
thread_local int64_t frozen_now_ms = 0;  // 0: not frozen
}  // namespace

int64_t Keyspace::NowMs() {
  if (frozen_now_ms != 0) return frozen_now_ms;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Keyspace::FrozenTime::FrozenTime() : froze_(frozen_now_ms == 0) {
  if (froze_) frozen_now_ms = NowMs();
}

Keyspace::FrozenTime::~FrozenTime() {
  if (froze_) frozen_now_ms = 0;
}

const char* Keyspace::TypeName(char type) {
  switch (type) {
    case kString: return "string";
    case kHash: return "hash";
    case kSet: return "set";
    case kList: return "list";
    case kZSet: return "zset";
    case kStream: return "stream";
    default: return "none";
  }
}

Status Keyspace::ReadAnyView(const std::string& key, ROCKSDB_NAMESPACE::PinnableSlice* held,
                             std::optional<storage_format::MetaView>* view, bool* expired) const {
  view->reset();
  *expired = false;
  bool found;
  Slice bytes;  // the record's value: what was read, or what Prefetch kept
  if (!prefetched_.Find(key, &found, &bytes)) {
    thread_local std::string meta_key;  // (reused: no allocation per read)
    storage_format::AssignMetaKey(slot(), key, &meta_key);
    const Status s = Get(meta_key, held);
    if (!s.ok() && !s.IsNotFound()) return s;
    found = s.ok();
    bytes = *held;
  }
  if (!found) return Status::OK();
  storage_format::MetaView v;
  if (!DecodeMetaView(bytes, &v)) return Status::Corruption("meta record of '" + key + "'");
  *expired = v.expire_ms != 0 && v.expire_ms <= NowMs();
  *view = v;
  return Status::OK();
}

Status Keyspace::ReadView(const std::string& key, ROCKSDB_NAMESPACE::PinnableSlice* held,
                          std::optional<storage_format::MetaView>* view) const {
  bool expired;
  const Status s = ReadAnyView(key, held, view, &expired);
  if (expired) {
    view->reset();
    NoteExpiredRead(key);
  }
  return s;
}

Status Keyspace::ReadAny(const std::string& key, std::optional<Value>* value,
                         bool* expired) const {
  value->reset();
  ROCKSDB_NAMESPACE::PinnableSlice held;
  std::optional<storage_format::MetaView> view;
  const Status s = ReadAnyView(key, &held, &view, expired);
  if (view) {
    *value = Value{view->type, view->expire_ms, view->payload.ToString(), view->version};
  }
  return s;
}

void Keyspace::MultiGet(size_t n, const Slice* records, uint64_t value_bytes_limit,
                        ROCKSDB_NAMESPACE::PinnableSlice* found, Status* statuses) const {
  ROCKSDB_NAMESPACE::ReadOptions read;
  read.value_size_soft_limit = value_bytes_limit;
  if (group_ != nullptr && group_->staged()) {
    group_->writes().MultiGet(db(), read, n, records, found, statuses);
  } else {
    db()->MultiGet(read, db()->DefaultColumnFamily(), n, records, found, statuses);
  }
}

void Keyspace::MultiGet(const std::vector<std::string>& records,
                        std::vector<ROCKSDB_NAMESPACE::PinnableSlice>* found,
                        std::vector<Status>* statuses) const {
  const std::vector<Slice> slices(records.begin(), records.end());
  found->clear();
  found->resize(records.size());
  statuses->assign(records.size(), Status());
  MultiGet(records.size(), slices.data(), std::numeric_limits<uint64_t>::max(), found->data(),
           statuses->data());
}

void Keyspace::Prefetch(const std::vector<Slice>& keys) {
  prefetched_.Prepare(slot(), keys);
  if (keys.empty()) return;
  // Keys past the limit come back Aborted and are read one by one later.
  MultiGet(prefetched_.size(), prefetched_.records(), kPrefetchBytes, prefetched_.values(),
           prefetched_.statuses());
}

Status Keyspace::ReadMany(const std::vector<std::string>& keys,
                          std::vector<std::optional<Value>>* values) const {
  const size_t n = keys.size();
  values->assign(n, std::nullopt);
  std::vector<std::string> records;
  records.reserve(n);
  for (const std::string& key : keys) records.push_back(MetaKey(key));
  std::vector<ROCKSDB_NAMESPACE::PinnableSlice> found;
  std::vector<Status> statuses;
  MultiGet(records, &found, &statuses);
  const int64_t now = NowMs();
  for (size_t i = 0; i < n; ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return statuses[i];
    Value v;
    if (!DecodeMeta(found[i], &v)) return Status::Corruption("meta record of '" + keys[i] + "'");
    if (v.expire_ms == 0 || v.expire_ms > now) {
      (*values)[i] = std::move(v);
    } else {
      NoteExpiredRead(keys[i]);
    }
  }
  return Status::OK();
}

Status Keyspace::Read(const std::string& key, std::optional<Value>* value) const {
  bool expired;
  const Status s = ReadAny(key, value, &expired);
  if (expired) {
    value->reset();
    NoteExpiredRead(key);
  }
  return s;
}

Status Keyspace::Unchanged(const std::string& key, uint64_t version, bool* unchanged) {
  ROCKSDB_NAMESPACE::PinnableSlice bytes;
  Status s = Get(MetaKey(key), &bytes);
  storage_format::MetaView now;
  *unchanged = s.ok() && DecodeMetaView(bytes, &now) && now.version == version;
  if (s.IsNotFound()) s = Status::OK();
  // What was read ahead is older than this: the command's rerun must not
  // meet the version it gave up on again.
  if (!*unchanged) prefetched_.Clear();
  return s;
}

void Keyspace::Batch::PutMember(uint64_t version, const std::string& member,
                                const std::string& value) {
  batch_.Put(MemberPrefix(version) + member, value);
}

void Keyspace::Batch::DeleteMember(uint64_t version, const std::string& member) {
  batch_.Delete(MemberPrefix(version) + member);
}

void Keyspace::Batch::PutIndex(uint64_t version, const std::string& entry) {
  batch_.Put(IndexPrefix(version) + entry, Slice());
}

void Keyspace::Batch::DeleteIndex(uint64_t version, const std::string& entry) {
  batch_.Delete(IndexPrefix(version) + entry);
}

Status Keyspace::ForEachIndexEntry(uint64_t version,
                                   const std::function<bool(const std::string&)>& visit,
                                   const std::string& from) const {
  return ScanPrefix(IndexPrefix(version), from, [&](const std::string& entry, const Slice&) {
    return visit(entry);
  });
}

Status Keyspace::ForEachIndexEntryBackward(uint64_t version,
                                           const std::function<bool(const std::string&)>& visit,
                                           const std::string& before) const {
  return ScanPrefixBackward(IndexPrefix(version), before,
                            [&](const std::string& entry, const Slice&) { return visit(entry); });
}

Status Keyspace::ForEachMemberBackward(
    uint64_t version,
    const std::function<bool(const std::string&, const std::string&)>& visit,
    const std::string& before) const {
  return ScanPrefixBackward(MemberPrefix(version), before,
                            [&](const std::string& member, const Slice& value) {
                              return visit(member, value.ToString());
                            });
}

Status Keyspace::ScanPrefixBackward(
    const std::string& prefix, const std::string& before,
    const std::function<bool(const std::string&, const Slice&)>& visit) const {
  // A lower bound keeps the iterator inside the prefix's records going
  // down; staged records past it may still show (staged_writes.h), so the
  // loop checks both ends itself. No upper bound: through staged writes,
  // RocksDB 7.8.3's iterator reports nothing at all when its first staged
  // record sits exactly at the upper bound and the database has none below.
  const std::string end = before.empty() ? storage_format::PrefixEnd(prefix) : prefix + before;
  const Slice lower(prefix), upper(end);
  ROCKSDB_NAMESPACE::ReadOptions read;
  read.iterate_lower_bound = &lower;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it = NewIterator(read);
  if (end.empty()) {
    it->SeekToLast();
  } else {
    it->SeekForPrev(end);
  }
  for (; it->Valid() && it->key().starts_with(prefix); it->Prev()) {
    if (!end.empty() && it->key().compare(upper) >= 0) continue;
    Slice rest = it->key();
    rest.remove_prefix(prefix.size());
    if (!visit(rest.ToString(), it->value())) break;
  }
  return it->status();
}

Status Keyspace::ScanPrefix(
    const std::string& prefix, const std::string& from,
    const std::function<bool(const std::string&, const Slice&)>& visit) const {
  // The bound keeps the iterator from stepping past the prefix, into
  // records (tombstones included) of other versions.
  const std::string end = storage_format::PrefixEnd(prefix);
  const Slice upper(end);
  ROCKSDB_NAMESPACE::ReadOptions read;
  if (!end.empty()) read.iterate_upper_bound = &upper;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it = NewIterator(read);
  for (it->Seek(prefix + from); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    Slice rest = it->key();
    rest.remove_prefix(prefix.size());
    if (!visit(rest.ToString(), it->value())) break;
  }
  return it->status();
}

Status Keyspace::ReadMember(uint64_t version, const std::string& member,
                            std::optional<std::string>* value) const {
  value->reset();
  ROCKSDB_NAMESPACE::PinnableSlice bytes;
  const Status s = Get(MemberPrefix(version) + member, &bytes);
  if (s.IsNotFound()) return Status::OK();
  if (s.ok()) value->emplace(bytes.data(), bytes.size());
  return s;
}

Status Keyspace::ReadUnder(const std::string& prefix, const std::vector<std::string>& names,
                           std::vector<std::optional<std::string>>* values) const {
  values->assign(names.size(), std::nullopt);
  std::vector<std::string> records;
  records.reserve(names.size());
  for (const std::string& name : names) records.push_back(prefix + name);
  std::vector<ROCKSDB_NAMESPACE::PinnableSlice> found;
  std::vector<Status> statuses;
  MultiGet(records, &found, &statuses);
  for (size_t i = 0; i < names.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return statuses[i];
    (*values)[i].emplace(found[i].data(), found[i].size());
  }
  return Status::OK();
}

Status Keyspace::ReadMembers(uint64_t version, const std::vector<std::string>& members,
                             std::vector<std::optional<std::string>>* values) const {
  return ReadUnder(MemberPrefix(version), members, values);
}

namespace {
// An "E" record's value; 0 (none) for a damaged one.
int64_t DecodeDeadline(const Slice& bytes) {
  return bytes.size() == 8 ? static_cast<int64_t>(storage_format::ReadU64(bytes.data())) : 0;
}
}  // namespace

Status Keyspace::ReadDeadlines(uint64_t version, const std::vector<std::string>& fields,
                               std::vector<int64_t>* deadlines) const {
  std::vector<std::optional<std::string>> values;
  const Status s = ReadUnder(storage_format::DeadlinePrefix(version), fields, &values);
  deadlines->assign(fields.size(), 0);
  for (size_t i = 0; s.ok() && i < fields.size(); ++i) {
    if (values[i]) (*deadlines)[i] = DecodeDeadline(*values[i]);
  }
  return s;
}

Status Keyspace::ForEachMemberWithDeadline(
    uint64_t version,
    const std::function<bool(const std::string&, const std::string&, int64_t)>& visit,
    const std::string& from) const {
  // The deadlines run beside the members, both in field order: a second
  // iterator, moved up to each member it passes.
  const std::string prefix = storage_format::DeadlinePrefix(version);
  const std::string end = storage_format::PrefixEnd(prefix);
  const Slice upper(end);
  ROCKSDB_NAMESPACE::ReadOptions read;
  if (!end.empty()) read.iterate_upper_bound = &upper;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> deadlines = NewIterator(read);
  deadlines->Seek(prefix + from);
  std::string wanted = prefix;
  const Status s = ScanPrefix(MemberPrefix(version), from,
                              [&](const std::string& member, const Slice& value) {
    wanted.resize(prefix.size());
    wanted += member;
    while (deadlines->Valid() && deadlines->key().starts_with(prefix) &&
           deadlines->key().compare(wanted) < 0) {
      deadlines->Next();
    }
    const bool has = deadlines->Valid() && deadlines->key() == Slice(wanted);
    return visit(member, value.ToString(), has ? DecodeDeadline(deadlines->value()) : 0);
  });
  return s.ok() ? deadlines->status() : s;
}

Status Keyspace::ForEachDue(
    int64_t now_ms,
    const std::function<bool(int64_t, uint64_t, const std::string&)>& visit, bool* any,
    const std::string& from) const {
  const std::string prefix = storage_format::DuePrefix().ToString();
  *any = false;
  return ScanPrefix(prefix, from.empty() ? std::string() : from.substr(prefix.size()),
                    [&](const std::string& rest, const Slice&) {
                      int64_t deadline;
                      uint64_t version;
                      Slice field;
                      const std::string key = prefix + rest;
                      if (!storage_format::ParseDueKey(key, &deadline, &version, &field)) {
                        return true;
                      }
                      *any = true;
                      return deadline <= now_ms && visit(deadline, version, field.ToString());
                    });
}

Status Keyspace::OwnerOf(uint64_t version, int* db, std::string* key, bool* found) const {
  *found = false;
  ROCKSDB_NAMESPACE::PinnableSlice owner;
  Status s = Get(storage_format::OwnerKey(version), &owner);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok() || owner.empty()) return s;
  const uint8_t slot = static_cast<uint8_t>(owner[0]);
  for (int d = 0; d < kDatabases; ++d) {
    if (SlotOf(d) != slot) continue;
    *db = d;
    key->assign(owner.data() + 1, owner.size() - 1);
    *found = true;
  }
  return Status::OK();
}

void Keyspace::Batch::PutDeadline(uint64_t version, const std::string& field, int64_t deadline_ms) {
  std::string bytes;
  storage_format::AppendU64(&bytes, static_cast<uint64_t>(deadline_ms));
  batch_.Put(storage_format::DeadlinePrefix(version) + field, bytes);
  PutDue(deadline_ms, version, field);
}

void Keyspace::Batch::DeleteDeadline(uint64_t version, const std::string& field,
                                     int64_t old_deadline_ms) {
  batch_.Delete(storage_format::DeadlinePrefix(version) + field);
  DeleteDue(old_deadline_ms, version, field);
}

void Keyspace::Batch::PutDue(int64_t deadline_ms, uint64_t version, const std::string& field) {
  batch_.Put(storage_format::DueKey(deadline_ms, version, field), Slice());
  sets_expiry_ = true;
}

void Keyspace::Batch::DeleteDue(int64_t deadline_ms, uint64_t version, const std::string& field) {
  batch_.Delete(storage_format::DueKey(deadline_ms, version, field));
}

Status Keyspace::ForEachMember(
    uint64_t version,
    const std::function<bool(const std::string&, const std::string&)>& visit,
    const std::string& from) const {
  return ScanPrefix(MemberPrefix(version), from,
                    [&](const std::string& member, const Slice& value) {
                      return visit(member, value.ToString());
                    });
}

void Keyspace::Batch::PutIn(int db, const std::string& key, const Value& value) {
  metas_.push_back(MetaWrite{db, key, storage_format::EncodeMeta(value), false, false, 0, {}});
  sets_expiry_ |= value.expire_ms != 0;
}

void Keyspace::Batch::PutNewIn(int db, const std::string& key, const Value& value) {
  PutIn(db, key, value);
  metas_.back().owner = true;
  // A listpackex's owner record is its due version's (compact_members.h).
  metas_.back().version = value.version != 0 || value.type != kHash
                              ? value.version
                              : compact_members::DueVersion(value.payload);
}

void Keyspace::Batch::MergePuts(const std::string& key, const Value& value,
                                const std::string& puts) {
  PutIn(kViewsDatabase, key, value);
  metas_.back().puts = puts;
}

void Keyspace::Batch::DeleteIn(int db, const std::string& key) {
  metas_.push_back(MetaWrite{db, key, std::string(), true, false, 0, {}});
}

namespace {

// The keys whose meta records a batch writes, by name (database and key),
// for WATCH and for the connections blocked on them.
class TouchMetaRecords : public ROCKSDB_NAMESPACE::WriteBatch::Handler {
 public:
  TouchMetaRecords(WatchedKeys* watched, KeyWaiters* waiters, const uint8_t* database_of_slot,
                   std::vector<Keyspace::WrittenKey>* written)
      : watched_(watched), waiters_(waiters), database_of_slot_(database_of_slot),
        written_(written) {}
  void Put(const Slice& record, const Slice&) override { Touch(record, false); }
  void Delete(const Slice& record) override { Touch(record, true); }
  void Merge(const Slice& record, const Slice&) override { Touch(record, false); }

 private:
  void Touch(const Slice& record, bool deleted) {
    uint8_t slot;
    Slice key;
    if (!storage_format::ParseMetaKey(record, &slot, &key) || slot >= storage_format::kDatabases) {
      return;
    }
    const uint8_t db = database_of_slot_[slot];
    std::string name(1, static_cast<char>(db));
    name.append(key.data(), key.size());
    if (watched_->any()) watched_->Touch(name, deleted);
    if (waiters_->any()) deleted ? waiters_->TouchDeleted(name) : waiters_->Touch(name);
    if (written_ != nullptr) written_->push_back({db, key.ToString(), deleted});
  }
  WatchedKeys* const watched_;
  KeyWaiters* const waiters_;
  const uint8_t* const database_of_slot_;
  std::vector<Keyspace::WrittenKey>* const written_;
};

// Whether a batch rewrites the databases' slots (a replicated SWAPDB).
class FindSlotsRecord : public ROCKSDB_NAMESPACE::WriteBatch::Handler {
 public:
  void Put(const Slice& record, const Slice&) override {
    found_ |= record == storage_format::DatabaseSlotsKey();
  }
  bool found() const { return found_; }

 private:
  bool found_ = false;
};

}  // namespace

void Keyspace::TouchWatched(const ROCKSDB_NAMESPACE::WriteBatch& batch,
                            std::vector<WrittenKey>* written) const {
  if (!shared_->watched.any() && !shared_->waiters.any() && written == nullptr) return;
  uint8_t database_of_slot[kDatabases];
  for (int db = 0; db < kDatabases; ++db) database_of_slot[SlotOf(db)] = static_cast<uint8_t>(db);
  TouchMetaRecords touch(&shared_->watched, &shared_->waiters, database_of_slot, written);
  batch.Iterate(&touch);
}

void Keyspace::Applied(const ROCKSDB_NAMESPACE::WriteBatch& batch) {
  FindSlotsRecord slots;
  batch.Iterate(&slots);
  if (slots.found()) {
    const Status s = LoadDatabases();
    if (!s.ok()) {
      std::fprintf(stderr, "teksdb-server: a replicated SWAPDB: %s\n", s.ToString().c_str());
    }
  }
  KeyWriteListener* listener = Listening();
  std::vector<WrittenKey> written;
  TouchWatched(batch, listener != nullptr ? &written : nullptr);
  if (slots.found() && listener != nullptr) listener->Cleared(0);
  if (listener == nullptr || written.empty()) return;
  std::vector<std::string> keys;
  for (const WrittenKey& w : written) keys.push_back(w.key);
  listener->Written(keys, 0);
}

Status Keyspace::Commit(Batch* batch) {
  prefetched_.Clear();
  for (Batch::MetaWrite& m : batch->metas_) {
    const uint8_t slot = SlotOf(m.db == Batch::kViewsDatabase ? db_ : m.db);
    const std::string record = storage_format::MetaKey(slot, m.key);
    if (m.erase) {
      batch->batch_.Delete(record);
    } else if (!m.puts.empty()) {
      batch->batch_.Merge(record, m.puts);
      batch->merged_values_.push_back(std::move(m.value));
    } else {
      batch->batch_.Put(record, m.value);
    }
    if (m.owner && m.version != 0) {
      batch->batch_.Put(storage_format::OwnerKey(m.version), storage_format::OwnerValue(slot, m.key));
    }
  }
  batch->metas_.clear();
  // The keys written, for the listener too (after the write is in).
  KeyWriteListener* listener = Listening();
  std::vector<WrittenKey> local;
  std::vector<WrittenKey>* sink = written_ != nullptr || listener == nullptr ? written_ : &local;
  const size_t first = sink != nullptr ? sink->size() : 0;
  TouchWatched(batch->batch_, sink);
  std::vector<std::string> keys;
  if (listener != nullptr) {
    for (size_t i = first; i < sink->size(); ++i) keys.push_back((*sink)[i].key);
  }
  if (group_ != nullptr) {
    const Status staged =
        group_->Stage(batch->batch_, std::move(batch->merged_values_), batch->sets_expiry_);
    if (staged.ok() && !keys.empty()) group_->AddWritten(std::move(keys));
    return staged;
  }
  batch->merged_values_.clear();
  const Status s = db()->Write(shared_->write_options, &batch->batch_);
  if (s.ok() && batch->sets_expiry_) {
    shared_->expiry_writes.fetch_add(1, std::memory_order_relaxed);
  }
  if (s.ok() && !keys.empty()) listener->Written(keys, writer_);
  return s;
}

size_t Keyspace::StripeOf(const std::string& key) const {
  return std::hash<std::string>()(key) % kStripes;
}

Keyspace::KeyLocks Keyspace::LockKeys(const std::vector<std::string>& keys) {
  KeyLocks locks;
  if (group_ != nullptr && group_->whole_keyspace()) return locks;  // every gate held
  std::vector<size_t> stripes;
  for (const std::string& key : keys) stripes.push_back(StripeOf(key));
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  if (group_ == nullptr) {
    locks.gate = std::shared_lock<std::shared_mutex>(shared_->gates[gate_]);
    locks.stripes.reserve(stripes.size());
    for (size_t s : stripes) locks.stripes.emplace_back(shared_->stripes[s]);
    return locks;
  }
  // The group keeps what it takes (write_group.h): its gate and free
  // stripes now; if one is taken, flush (holding nothing after) and wait
  // for them, gate first, stripes in order. (A failed flush has rewritten
  // the replies it vouched for.)
  if (!group_->holds_gate()) {
    std::shared_lock<std::shared_mutex> gate(shared_->gates[gate_], std::try_to_lock);
    if (!gate.owns_lock()) {
      assert(!group_->in_transaction());
      FlushGroup();
      gate = std::shared_lock<std::shared_mutex>(shared_->gates[gate_]);
      group_->TakeGate(std::move(gate));
      group_->Take(shared_->stripes.get(), stripes);
      return locks;
    }
    group_->TakeGate(std::move(gate));
  }
  for (size_t s : stripes) {
    if (group_->Holds(s) || group_->TryTake(shared_->stripes[s], s)) continue;
    // In a transaction every stripe it needs is held already.
    assert(!group_->in_transaction());
    FlushGroup();
    group_->TakeGate(std::shared_lock<std::shared_mutex>(shared_->gates[gate_]));
    group_->Take(shared_->stripes.get(), stripes);
    break;
  }
  return locks;
}

void Keyspace::BeginTransaction(const std::vector<std::string>& keys, bool whole_keyspace) {
  // The group may hold stripes of earlier commands: flush them, so it
  // waits holding none (write_group.h).
  FlushGroup();
  std::vector<size_t> stripes;
  for (const std::string& key : keys) stripes.push_back(StripeOf(key));
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  // Many stripes cost more to take than the kGates gates (and a thread
  // holding hundreds of mutexes is past what ThreadSanitizer can follow).
  if (whole_keyspace || stripes.size() > kGates) {
    std::vector<std::unique_lock<std::shared_mutex>> gates;
    for (size_t g = 0; g < kGates; ++g) gates.emplace_back(shared_->gates[g]);
    group_->TakeAllGates(std::move(gates));
  } else {
    group_->TakeGate(std::shared_lock<std::shared_mutex>(shared_->gates[gate_]));
    group_->Take(shared_->stripes.get(), stripes);
  }
  group_->set_in_transaction(true);
}

void Keyspace::EndTransaction() { group_->set_in_transaction(false); }

Status Keyspace::ForEachKey(const std::function<bool(const std::string&, const Value&)>& visit,
                            const std::string& start, bool include_expired) const {
  const std::string prefix = storage_format::MetaPrefix(slot());
  const std::string end = storage_format::PrefixEnd(prefix);
  const Slice upper(end);
  ROCKSDB_NAMESPACE::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it = NewIterator(read);
  const int64_t now = NowMs();
  Value value;
  for (it->Seek(prefix + start); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    if (!DecodeMeta(it->value(), &value)) return Status::Corruption("meta record");
    Slice key = it->key();
    key.remove_prefix(prefix.size());
    if (!include_expired && value.expire_ms != 0 && value.expire_ms <= now) {
      NoteExpiredRead(key.ToString());
      continue;
    }
    if (!visit(key.ToString(), value)) break;
  }
  return it->status();
}

Status Keyspace::ReclaimIfExpired(const std::string& key, bool* reclaimed) {
  *reclaimed = false;
  auto locks = LockKeys({key});
  std::optional<Value> value;
  bool expired;
  Status s = ReadAny(key, &value, &expired);
  if (!s.ok() || !expired) return s;
  Batch batch;
  batch.Delete(key);
  s = Commit(&batch);
  *reclaimed = s.ok();
  return s;
}

Status Keyspace::ClearRange(const std::vector<int>& databases, const Slice& begin,
                            const Slice& end) {
  prefetched_.Clear();
  // Watched keys of those databases that are stored are modified.
  for (const std::string& name : shared_->watched.Keys()) {
    const int db = NameDatabase(name);
    if (std::find(databases.begin(), databases.end(), db) == databases.end()) continue;
    std::optional<Value> value;
    bool expired;
    const Status s = InDatabase(db).ReadAny(NameKey(name), &value, &expired);
    if (!s.ok()) return s;
    if (value) shared_->watched.Touch(name, /*deleted=*/true);
  }
  // A range deletion cannot be staged: what the group holds goes first.
  Status s = FlushGroup();
  if (!s.ok()) return s;
  s = db()->DeleteRange(shared_->write_options, db()->DefaultColumnFamily(), begin, end);
  if (s.ok() && shared_->waiters.any()) {
    for (const std::string& name : shared_->waiters.Keys()) {
      const int db = NameDatabase(name);
      if (std::find(databases.begin(), databases.end(), db) != databases.end()) {
        shared_->waiters.TouchDeleted(name);
      }
    }
  }
  if (KeyWriteListener* listener = Listening(); s.ok() && listener != nullptr) {
    listener->Cleared(writer_);
  }
  return s;
}

Status Keyspace::Clear() {
  std::vector<int> every;
  for (int db = 0; db < kDatabases; ++db) every.push_back(db);
  return ClearRange(every, Slice(""), storage_format::ServerRecords());
}

Status Keyspace::ClearDatabase() {
  // The members of the collections removed go with compactions: their
  // owner records name meta records that are gone (stale_member_filter.h).
  const std::string prefix = storage_format::MetaPrefix(slot());
  return ClearRange({db_}, prefix, storage_format::PrefixEnd(prefix));
}

Status Keyspace::SwapDatabases(int a, int b) {
  assert(group_ != nullptr && group_->whole_keyspace());
  prefetched_.Clear();
  Status s = FlushGroup();
  if (!s.ok()) return s;
  if (a == b) return Status::OK();
  // WATCH, as Redis 7.0's touchAllWatchedKeysInDb both ways: a key watched
  // in one database is modified if it is stored in either, except where
  // an expired key stays expired or gives way to none.
  for (const std::string& name : shared_->watched.Keys()) {
    const int db = NameDatabase(name);
    if (db != a && db != b) continue;
    const std::string key = NameKey(name);
    std::optional<Value> before, after;
    bool before_expired = false, after_expired = false;
    s = InDatabase(db).ReadAny(key, &before, &before_expired);
    if (s.ok()) s = InDatabase(db == a ? b : a).ReadAny(key, &after, &after_expired);
    if (!s.ok()) return s;
    shared_->watched.Replace(name, before.has_value(), after.has_value(), after_expired);
  }
  std::string slots(kDatabases, '\0');
  for (int db = 0; db < kDatabases; ++db) slots[db] = static_cast<char>(SlotOf(db));
  std::swap(slots[a], slots[b]);
  ROCKSDB_NAMESPACE::WriteBatch batch;
  batch.Put(storage_format::DatabaseSlotsKey(), slots);
  s = db()->Write(shared_->write_options, &batch);
  if (!s.ok()) return s;
  const uint8_t slot_a = SlotOf(a);
  shared_->slots[a].store(SlotOf(b), std::memory_order_release);
  shared_->slots[b].store(slot_a, std::memory_order_release);
  if (KeyWriteListener* listener = Listening()) listener->Cleared(writer_);
  // Clients blocked on keys of either database look again.
  if (shared_->waiters.any()) {
    for (const std::string& name : shared_->waiters.Keys()) {
      const int db = NameDatabase(name);
      if (db == a || db == b) shared_->waiters.Touch(name);
    }
  }
  return Status::OK();
}

}  // namespace teksdb::server
