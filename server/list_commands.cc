// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LRANGE LLEN LINDEX. A list is a meta
// record (type 'l'; its version; payload: element count, then the index of
// the first element, 8 bytes big-endian each) and one record per element
// under the list's version, named by its index biased by 2^63 and written
// big-endian, so elements sort in list order: LPUSH writes below the first
// index, RPUSH above the last, LRANGE is a seek and a scan, LINDEX one
// read. Writes run under the key's lock; an emptied list is deleted. Reads
// take no lock: one that misses an element the count promised checks that
// the list was not replaced under it, and runs again if it was
// (StillHolds).
#include <algorithm>

#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

using storage_format::AppendU64;

struct ListMeta {
  int64_t count = 0;
  int64_t first = 0;  // index of the first element
  int64_t expire_ms = 0;
  uint64_t version = 0;
};

std::string Element(int64_t index) {
  std::string name;
  AppendU64(&name, static_cast<uint64_t>(index) ^ (uint64_t{1} << 63));
  return name;
}

Keyspace::Value Encode(const ListMeta& m) {
  std::string payload;
  AppendU64(&payload, static_cast<uint64_t>(m.count));
  AppendU64(&payload, static_cast<uint64_t>(m.first));
  return Keyspace::Value{Keyspace::kList, m.expire_ms, std::move(payload), m.version};
}

// Reads the list r.args[1]: false (having replied) on a storage error or
// another type; *exists false if there is none.
bool ReadList(Request& r, ListMeta* meta, bool* exists) {
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(r.args[1], &v);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (v && v->type != Keyspace::kList) return reply::Error(r.out, kWrongType), false;
  *exists = v.has_value() && v->payload.size() >= 16;
  *meta = ListMeta{};
  if (*exists) {
    meta->count = static_cast<int64_t>(storage_format::ReadU64(v->payload.data()));
    meta->first = static_cast<int64_t>(storage_format::ReadU64(v->payload.data() + 8));
    meta->expire_ms = v->expire_ms;
    meta->version = v->version;
  }
  return true;
}


// LPUSH, RPUSH; LPUSHX and RPUSHX (`only_existing`) push only onto a list
// that exists.
void Push(Request& r, bool left, bool only_existing = false) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  ListMeta meta;
  bool exists;
  if (!ReadList(r, &meta, &exists)) return;
  if (only_existing && !exists) return reply::Integer(r.out, 0);
  Keyspace::Batch batch;
  if (!exists) {
    const Status s = r.keyspace->NewVersion(&meta.version);
    if (!s.ok()) return ReplyStorageError(r, s);
  }
  for (size_t i = 2; i < r.args.size(); ++i) {
    if (left) {
      batch.PutMember(meta.version, Element(--meta.first), r.args[i]);
    } else {
      batch.PutMember(meta.version, Element(meta.first + meta.count), r.args[i]);
    }
    ++meta.count;
  }
  exists ? batch.Put(key, Encode(meta)) : batch.PutNew(key, Encode(meta));
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, meta.count);
}
void LPush(Request& r) { Push(r, true); }
void RPush(Request& r) { Push(r, false); }
void LPushX(Request& r) { Push(r, true, true); }
void RPushX(Request& r) { Push(r, false, true); }

void Pop(Request& r, bool left) {
  if (r.args.size() > 3) {
    return reply::Error(r.out, std::string("ERR wrong number of arguments for '") +
                                   (left ? "lpop" : "rpop") + "' command");
  }
  int64_t want = 1;
  const bool with_count = r.args.size() == 3;
  if (with_count && (!ParseStrictInt64(r.args[2], &want) || want < 0)) {
    return reply::Error(r.out, "ERR value is out of range, must be positive");
  }
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  ListMeta meta;
  bool exists;
  if (!ReadList(r, &meta, &exists)) return;
  if (!exists) return with_count ? reply::NullArray(r.out, r.protocol()) : reply::Null(r.out, r.protocol());
  const int64_t n = std::min(want, meta.count);
  Keyspace::Batch batch;
  std::vector<std::string> values;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = left ? meta.first + i : meta.first + meta.count - 1 - i;
    std::optional<std::string> value;
    const Status s = r.keyspace->ReadMember(meta.version, Element(index), &value);
    if (!s.ok()) return ReplyStorageError(r, s);
    values.push_back(value.value_or(""));
    batch.DeleteMember(meta.version, Element(index));
  }
  meta.count -= n;
  if (left) meta.first += n;
  if (meta.count == 0) {
    batch.Delete(key);
  } else {
    batch.Put(key, Encode(meta));
  }
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!with_count) return reply::Bulk(r.out, values.front());
  reply::ArrayHeader(r.out, values.size());
  for (const std::string& v : values) reply::Bulk(r.out, v);
}
void LPop(Request& r) { Pop(r, true); }
void RPop(Request& r) { Pop(r, false); }

void LLen(Request& r) {
  ListMeta meta;
  bool exists;
  if (ReadList(r, &meta, &exists)) reply::Integer(r.out, meta.count);
}

// Redis's index rules: negative counts from the end.
int64_t Normalize(int64_t index, int64_t count) { return index < 0 ? count + index : index; }

void LIndex(Request& r) {
  // Redis looks the key up before it reads the index.
  ListMeta meta;
  bool exists;
  if (!ReadList(r, &meta, &exists)) return;
  if (!exists) return reply::Null(r.out, r.protocol());
  int64_t index;
  if (!ParseStrictInt64(r.args[2], &index)) return reply::Error(r.out, kNotInteger);
  index = Normalize(index, meta.count);
  if (index < 0 || index >= meta.count) return reply::Null(r.out, r.protocol());
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta.version, Element(meta.first + index), &value);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!value && !StillHolds(r, r.args[1], meta.version)) return;
  value ? reply::Bulk(r.out, *value) : reply::Null(r.out, r.protocol());
}

void LRange(Request& r) {
  int64_t start, stop;
  if (!ParseStrictInt64(r.args[2], &start) || !ParseStrictInt64(r.args[3], &stop)) {
    return reply::Error(r.out, kNotInteger);
  }
  ListMeta meta;
  bool exists;
  if (!ReadList(r, &meta, &exists)) return;
  start = std::max<int64_t>(0, Normalize(start, meta.count));
  stop = std::min(Normalize(stop, meta.count), meta.count - 1);
  if (!exists || start > stop) return reply::ArrayHeader(r.out, 0);
  std::vector<std::string> values;
  const std::string first = Element(meta.first + start);
  const size_t want = static_cast<size_t>(stop - start + 1);
  const Status s = r.keyspace->ForEachMember(
      meta.version,
      [&](const std::string&, const std::string& value) {
        values.push_back(value);
        return values.size() < want;
      },
      first);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (values.size() < want && !StillHolds(r, r.args[1], meta.version)) return;
  reply::ArrayHeader(r.out, values.size());
  for (const std::string& v : values) reply::Bulk(r.out, v);
}

}  // namespace

void AddListCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"lpush", -3, LPush}, {"rpush", -3, RPush}, {"lpushx", -3, LPushX}, {"rpushx", -3, RPushX}, {"lpop", -2, LPop},  {"rpop", -2, RPop},
      {"llen", 2, LLen},    {"lindex", 3, LIndex}, {"lrange", 4, LRange},
  });
}

}  // namespace teksdb::server
