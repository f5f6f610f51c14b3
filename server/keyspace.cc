// Keyspace implementation: reads, batches, stripe locks and scans over
// storage_format.h's records.
#include "keyspace.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using storage_format::DecodeMeta;
using storage_format::IndexPrefix;
using storage_format::MemberPrefix;
using storage_format::MetaKey;

Keyspace::Keyspace(ROCKSDB_NAMESPACE::DB* db, bool sync)
    : db_(db), stripes_(new std::mutex[kStripes]), versions_(db) {
  write_options_.sync = sync;
}

int64_t Keyspace::NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const char* Keyspace::TypeName(char type) {
  switch (type) {
    case kString: return "string";
    case kHash: return "hash";
    case kSet: return "set";
    case kList: return "list";
    case kZSet: return "zset";
    default: return "none";
  }
}

Status Keyspace::ReadAny(const std::string& key, std::optional<Value>* value,
                         bool* expired) const {
  value->reset();
  *expired = false;
  ROCKSDB_NAMESPACE::PinnableSlice bytes;
  Status s = db_->Get(ROCKSDB_NAMESPACE::ReadOptions(), db_->DefaultColumnFamily(), MetaKey(key),
                      &bytes);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  Value v;
  if (!DecodeMeta(bytes, &v)) return Status::Corruption("meta record of '" + key + "'");
  *expired = v.expire_ms != 0 && v.expire_ms <= NowMs();
  *value = std::move(v);
  return Status::OK();
}

Status Keyspace::Read(const std::string& key, std::optional<Value>* value) const {
  bool expired;
  const Status s = ReadAny(key, value, &expired);
  if (expired) value->reset();
  return s;
}

Status Keyspace::Unchanged(const std::string& key, uint64_t version, bool* unchanged) const {
  std::optional<Value> now;
  bool expired;
  const Status s = ReadAny(key, &now, &expired);
  *unchanged = s.ok() && now && now->version == version;
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

Status Keyspace::ScanPrefix(
    const std::string& prefix, const std::string& from,
    const std::function<bool(const std::string&, const Slice&)>& visit) const {
  // The bound keeps the iterator from stepping past the prefix, into
  // records (tombstones included) of other versions.
  const std::string end = storage_format::PrefixEnd(prefix);
  const Slice upper(end);
  ROCKSDB_NAMESPACE::ReadOptions read;
  if (!end.empty()) read.iterate_upper_bound = &upper;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db_->NewIterator(read));
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
  std::string bytes;
  const Status s = db_->Get(ROCKSDB_NAMESPACE::ReadOptions(), MemberPrefix(version) + member, &bytes);
  if (s.IsNotFound()) return Status::OK();
  if (s.ok()) *value = std::move(bytes);
  return s;
}

Status Keyspace::ForEachMember(
    uint64_t version,
    const std::function<bool(const std::string&, const std::string&)>& visit,
    const std::string& from) const {
  return ScanPrefix(MemberPrefix(version), from, [&](const std::string& member, const Slice& value) {
    return visit(member, value.ToString());
  });
}

void Keyspace::Batch::Put(const std::string& key, const Value& value) {
  batch_.Put(MetaKey(key), storage_format::EncodeMeta(value));
  sets_expiry_ |= value.expire_ms != 0;
}

void Keyspace::Batch::PutNew(const std::string& key, const Value& value) {
  Put(key, value);
  batch_.Put(storage_format::OwnerKey(value.version), key);
}

void Keyspace::Batch::Delete(const std::string& key) { batch_.Delete(MetaKey(key)); }

Status Keyspace::Commit(Batch* batch) {
  const Status s = db_->Write(write_options_, &batch->batch_);
  if (s.ok() && batch->sets_expiry_) expiry_writes_.fetch_add(1, std::memory_order_relaxed);
  return s;
}

std::vector<std::unique_lock<std::mutex>> Keyspace::LockKeys(const std::vector<std::string>& keys) {
  std::set<size_t> stripes;
  for (const std::string& key : keys) stripes.insert(std::hash<std::string>()(key) % kStripes);
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(stripes.size());
  for (size_t s : stripes) locks.emplace_back(stripes_[s]);
  return locks;
}

Status Keyspace::ForEachKey(const std::function<bool(const std::string&, const Value&)>& visit,
                            const std::string& start, bool include_expired) const {
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
      db_->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
  const int64_t now = NowMs();
  Value value;
  const Slice meta_tag(&storage_format::kMetaTag, 1);
  for (it->Seek(MetaKey(start)); it->Valid() && it->key().starts_with(meta_tag); it->Next()) {
    if (!DecodeMeta(it->value(), &value)) return Status::Corruption("meta record");
    if (!include_expired && value.expire_ms != 0 && value.expire_ms <= now) continue;
    Slice key = it->key();
    key.remove_prefix(1);
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

Status Keyspace::Clear() {
  return db_->DeleteRange(write_options_, db_->DefaultColumnFamily(), Slice(""),
                          storage_format::ServerRecords());
}

}  // namespace teksdb::server
