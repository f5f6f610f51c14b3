// StorageFormat implementation: key and meta encodings, and the format
// record's check at start.
#include "storage_format.h"

#include <memory>

namespace teksdb::server::storage_format {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

namespace {
constexpr size_t kVersionBytes = 8;
constexpr size_t kMetaHeader = 1 + 8;  // type, expiry
const char kFormatPrefix[] = "teksdb-server format ";

std::string Versioned(char tag, uint64_t version) {
  std::string key(1, tag);
  AppendU64(&key, version);
  return key;
}

bool KnownType(char type) {
  return type == kString || type == kHash || type == kSet || type == kList || type == kZSet ||
         type == kStream;
}
}  // namespace

std::string FormatName() { return kFormatPrefix + std::to_string(kFormat); }

std::string FormatKey() { return ServerRecords().ToString() + "format"; }
std::string VersionCeilingKey() { return ServerRecords().ToString() + "version-ceiling"; }
std::string FunctionLibraryPrefix() { return ServerRecords().ToString() + "function-library:"; }
std::string FunctionLibraryKey(const std::string& name) { return FunctionLibraryPrefix() + name; }
std::string DatabaseSlotsKey() { return ServerRecords().ToString() + "db-slots"; }

void AppendU64(std::string* out, uint64_t v) {
  char bytes[8];  // one append, not eight push_backs (2% of a list write's CPU)
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (56 - 8 * i));
  out->append(bytes, sizeof(bytes));
}

uint64_t ReadU64(const char* bytes) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (!end.empty()) end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

std::string MetaPrefix(uint8_t slot) {
  std::string prefix(1, kMetaTag);
  prefix.push_back(static_cast<char>(slot));
  return prefix;
}

std::string MetaKey(uint8_t slot, const Slice& key) {
  std::string meta_key;
  AssignMetaKey(slot, key, &meta_key);
  return meta_key;
}

void AssignMetaKey(uint8_t slot, const Slice& key, std::string* out) {
  out->assign(1, kMetaTag);
  out->push_back(static_cast<char>(slot));
  out->append(key.data(), key.size());
}

bool ParseMetaKey(const Slice& record, uint8_t* slot, Slice* key) {
  if (record.size() < 2 || record[0] != kMetaTag) return false;
  *slot = static_cast<uint8_t>(record[1]);
  *key = Slice(record.data() + 2, record.size() - 2);
  return true;
}

std::string OwnerValue(uint8_t slot, const Slice& key) {
  std::string owner(1, static_cast<char>(slot));
  owner.append(key.data(), key.size());
  return owner;
}

std::string MetaKeyOfOwner(const Slice& owner) {
  std::string meta_key(1, kMetaTag);
  meta_key.append(owner.data(), owner.size());
  return meta_key;
}

std::string EncodeMeta(const Meta& meta) {
  std::string bytes(1, meta.type);
  bytes.reserve(kMetaHeader + kVersionBytes + meta.payload.size());
  AppendU64(&bytes, static_cast<uint64_t>(meta.expire_ms));
  if (IsCollection(meta.type)) AppendU64(&bytes, meta.version);
  bytes += meta.payload;
  return bytes;
}

bool DecodeMetaView(const Slice& bytes, MetaView* meta) {
  if (bytes.size() < kMetaHeader || !KnownType(bytes[0])) return false;
  meta->type = bytes[0];
  meta->expire_ms = static_cast<int64_t>(ReadU64(bytes.data() + 1));
  size_t at = kMetaHeader;
  meta->version = 0;
  if (IsCollection(meta->type)) {
    if (bytes.size() < kMetaHeader + kVersionBytes) return false;
    meta->version = ReadU64(bytes.data() + at);
    at += kVersionBytes;
  }
  meta->payload = Slice(bytes.data() + at, bytes.size() - at);
  return true;
}

bool DecodeMeta(const Slice& bytes, Meta* meta) {
  MetaView view;
  if (!DecodeMetaView(bytes, &view)) return false;
  meta->type = view.type;
  meta->expire_ms = view.expire_ms;
  meta->version = view.version;
  meta->payload.assign(view.payload.data(), view.payload.size());
  return true;
}

std::string MemberPrefix(uint64_t version) { return Versioned(kMemberTag, version); }
std::string IndexPrefix(uint64_t version) { return Versioned(kIndexTag, version); }
std::string DeadlinePrefix(uint64_t version) { return Versioned(kDeadlineTag, version); }
std::string OwnerKey(uint64_t version) { return Versioned(kOwnerTag, version); }

std::string DueKey(int64_t deadline_ms, uint64_t version, const Slice& field) {
  std::string key(1, kDueTag);
  key.reserve(1 + 2 * kVersionBytes + field.size());
  AppendU64(&key, static_cast<uint64_t>(deadline_ms));
  AppendU64(&key, version);
  key.append(field.data(), field.size());
  return key;
}

bool ParseDueKey(const Slice& record, int64_t* deadline_ms, uint64_t* version, Slice* field) {
  if (record.size() < 1 + 2 * kVersionBytes || record[0] != kDueTag) return false;
  *deadline_ms = static_cast<int64_t>(ReadU64(record.data() + 1));
  *version = ReadU64(record.data() + 1 + kVersionBytes);
  *field = Slice(record.data() + 1 + 2 * kVersionBytes, record.size() - 1 - 2 * kVersionBytes);
  return true;
}

bool ParseVersionedKey(const Slice& record, char* tag, uint64_t* version) {
  if (record.size() < 1 + kVersionBytes) return false;
  if (record[0] == kDueTag) {
    int64_t deadline;
    Slice field;
    *tag = kDueTag;
    return ParseDueKey(record, &deadline, version, &field);
  }
  if (record[0] != kMemberTag && record[0] != kIndexTag && record[0] != kOwnerTag &&
      record[0] != kDeadlineTag) {
    return false;
  }
  *tag = record[0];
  *version = ReadU64(record.data() + 1);
  return true;
}

int64_t PayloadCount(const Slice& payload) {
  uint64_t n = 0;
  for (size_t i = 0; i < kVersionBytes && i < payload.size(); ++i) {
    n = (n << 8) | static_cast<unsigned char>(payload[i]);
  }
  return static_cast<int64_t>(n);
}

uint8_t PayloadHashFlags(const Slice& payload) {
  return payload.size() > kVersionBytes ? static_cast<uint8_t>(payload[kVersionBytes]) : 0;
}

std::string CountPayload(int64_t count, uint8_t hash_flags) {
  std::string payload;
  AppendU64(&payload, static_cast<uint64_t>(count));
  if (hash_flags != 0) payload.push_back(static_cast<char>(hash_flags));
  return payload;
}

Status Prepare(ROCKSDB_NAMESPACE::DB* db) {
  const std::string expected = FormatName();
  std::string found;
  Status s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), FormatKey(), &found);
  if (s.ok()) {
    if (found == expected) return Status::OK();
    return Status::InvalidArgument("the database holds '" + found.substr(0, 64) +
                                   "' data; this teksdb-server reads '" + expected +
                                   "' only: use the teksdb-server that wrote it, or a new --dir");
  }
  if (!s.IsNotFound()) return s;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
  it->SeekToFirst();
  if (!it->status().ok()) return it->status();
  if (it->Valid()) {
    return Status::InvalidArgument(
        "the database holds records but no format record: data of teksdb-server format 1 "
        "(before versioned collections) or of another program; this teksdb-server reads '" +
        expected + "' only: use a new --dir");
  }
  ROCKSDB_NAMESPACE::WriteOptions durable;
  durable.sync = true;
  return db->Put(durable, FormatKey(), expected);
}

}  // namespace teksdb::server::storage_format
