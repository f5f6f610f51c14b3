// Keyspace implementation: the meta record's encoding, reads, batches,
// stripe locks and scans.
#include "keyspace.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

Keyspace::Keyspace(ROCKSDB_NAMESPACE::DB* db, bool sync)
    : db_(db), stripes_(new std::mutex[kStripes]) {
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

std::string Keyspace::Encode(const Value& value) {
  std::string bytes(9, '\0');
  bytes[0] = value.type;
  const uint64_t e = static_cast<uint64_t>(value.expire_ms);
  for (int i = 0; i < 8; ++i) bytes[1 + i] = static_cast<char>(e >> (56 - 8 * i));
  bytes += value.payload;
  return bytes;
}

bool Keyspace::Decode(const Slice& bytes, Value* value) {
  if (bytes.size() < 9) return false;
  value->type = bytes[0];
  uint64_t e = 0;
  for (int i = 0; i < 8; ++i) e = (e << 8) | static_cast<unsigned char>(bytes[1 + i]);
  value->expire_ms = static_cast<int64_t>(e);
  value->payload.assign(bytes.data() + 9, bytes.size() - 9);
  return true;
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
  if (!Decode(bytes, &v)) return Status::Corruption("meta record of '" + key + "'");
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

std::string Keyspace::Prefixed(char tag, const std::string& key) {
  std::string prefix(1, tag);
  const uint32_t n = static_cast<uint32_t>(key.size());
  for (int i = 0; i < 4; ++i) prefix.push_back(static_cast<char>(n >> (24 - 8 * i)));
  return prefix + key;
}

void Keyspace::Batch::PutMember(const std::string& key, const std::string& member,
                                const std::string& value) {
  batch_.Put(MemberPrefix(key) + member, value);
}

void Keyspace::Batch::DeleteMember(const std::string& key, const std::string& member) {
  batch_.Delete(MemberPrefix(key) + member);
}

void Keyspace::Batch::PutIndex(const std::string& key, const std::string& entry) {
  batch_.Put(IndexPrefix(key) + entry, Slice());
}

void Keyspace::Batch::DeleteIndex(const std::string& key, const std::string& entry) {
  batch_.Delete(IndexPrefix(key) + entry);
}

Status Keyspace::ForEachIndexEntry(const std::string& key,
                                   const std::function<bool(const std::string&)>& visit,
                                   const std::string& from) const {
  return ScanPrefix(IndexPrefix(key), from, [&](const std::string& entry, const Slice&) {
    return visit(entry);
  });
}

Status Keyspace::ScanPrefix(
    const std::string& prefix, const std::string& from,
    const std::function<bool(const std::string&, const Slice&)>& visit) const {
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
      db_->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
  for (it->Seek(prefix + from); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    Slice rest = it->key();
    rest.remove_prefix(prefix.size());
    if (!visit(rest.ToString(), it->value())) break;
  }
  return it->status();
}

Status Keyspace::ReadMember(const std::string& key, const std::string& member,
                            std::optional<std::string>* value) const {
  value->reset();
  std::string bytes;
  const Status s = db_->Get(ROCKSDB_NAMESPACE::ReadOptions(), MemberPrefix(key) + member, &bytes);
  if (s.IsNotFound()) return Status::OK();
  if (s.ok()) *value = std::move(bytes);
  return s;
}

Status Keyspace::ForEachMember(
    const std::string& key,
    const std::function<bool(const std::string&, const std::string&)>& visit,
    const std::string& from) const {
  return ScanPrefix(MemberPrefix(key), from, [&](const std::string& member, const Slice& value) {
    return visit(member, value.ToString());
  });
}

Status Keyspace::DeleteMembers(const std::string& key, Batch* batch) const {
  std::optional<Value> old;
  bool expired;
  Status s = ReadAny(key, &old, &expired);
  if (!s.ok() || !old || old->type == kString) return s;
  if (old->type == kZSet) {
    s = ForEachIndexEntry(key, [&](const std::string& entry) {
      batch->DeleteIndex(key, entry);
      return true;
    });
    if (!s.ok()) return s;
  }
  return ForEachMember(key, [&](const std::string& member, const std::string&) {
    batch->DeleteMember(key, member);
    return true;
  });
}

void Keyspace::Batch::Put(const std::string& key, const Value& value) {
  batch_.Put(MetaKey(key), Encode(value));
  sets_expiry_ |= value.expire_ms != 0;
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
  for (it->Seek(MetaKey(start)); it->Valid() && it->key().starts_with("M"); it->Next()) {
    if (!Decode(it->value(), &value)) return Status::Corruption("meta record");
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
  s = DeleteMembers(key, &batch);
  if (!s.ok()) return s;
  batch.Delete(key);
  s = Commit(&batch);
  *reclaimed = s.ok();
  return s;
}

Status Keyspace::Clear() {
  // Every record of every key sorts below "\xff\xff": meta records ("M..")
  // and, later, members.
  return db_->DeleteRange(write_options_, db_->DefaultColumnFamily(), Slice(""),
                          Slice("\xff\xff\xff\xff", 4));
}

}  // namespace teksdb::server
