// Hash commands: HSET HMSET HGET HMGET HGETALL HDEL HLEN HEXISTS HKEYS HVALS
// HINCRBY. A hash is a meta record (type 'h', its field count) and one
// record per field under the key's member prefix (keyspace.h): HGETALL is
// a seek and a scan, HSET of one field two puts. Writes run under the
// key's lock; an emptied hash is deleted, as in Redis.
#include <algorithm>
#include <limits>

#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

int64_t CountOf(const Keyspace::Value& v) {
  uint64_t n = 0;
  for (size_t i = 0; i < 8 && i < v.payload.size(); ++i) {
    n = (n << 8) | static_cast<unsigned char>(v.payload[i]);
  }
  return static_cast<int64_t>(n);
}

Keyspace::Value HashValue(int64_t count, int64_t expire_ms) {
  std::string payload(8, '\0');
  for (int i = 0; i < 8; ++i) payload[i] = static_cast<char>(static_cast<uint64_t>(count) >> (56 - 8 * i));
  return Keyspace::Value{Keyspace::kHash, expire_ms, std::move(payload)};
}

// Reads the hash at r.args[1]: false (having replied) on a storage error or
// another type; *hash stays empty if there is none.
bool ReadHash(Request& r, std::optional<Keyspace::Value>* hash) {
  const Status s = r.server.keyspace->Read(r.args[1], hash);
  if (!s.ok()) {
    ReplyStorageError(r, s);
    return false;
  }
  if (*hash && (*hash)->type != Keyspace::kHash) {
    reply::Error(r.out, kWrongType);
    return false;
  }
  return true;
}

// Sets fields (pairs from r.args[2]); returns how many were new, or -1
// after replying an error.
int64_t SetFields(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.server.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return -1;
  Keyspace::Batch batch;
  // A new hash replaces an expired key of any type, members and all.
  if (!hash) {
    const Status s = r.server.keyspace->DeleteMembers(key, &batch);
    if (!s.ok()) return ReplyStorageError(r, s), -1;
  }
  int64_t count = hash ? CountOf(*hash) : 0, added = 0;
  std::vector<std::string> fresh;  // fields new in this command
  for (size_t i = 2; i + 1 < r.args.size(); i += 2) {
    const std::string& field = r.args[i];
    bool exists = std::find(fresh.begin(), fresh.end(), field) != fresh.end();
    if (!exists && hash) {
      std::optional<std::string> old;
      const Status s = r.server.keyspace->ReadMember(key, field, &old);
      if (!s.ok()) return ReplyStorageError(r, s), -1;
      exists = old.has_value();
    }
    if (!exists) {
      fresh.push_back(field);
      ++added;
    }
    batch.PutMember(key, field, r.args[i + 1]);
  }
  count += added;
  batch.Put(key, HashValue(count, hash ? hash->expire_ms : 0));
  const Status s = r.server.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s), -1;
  return added;
}

void HSet(Request& r) {
  if (r.args.size() % 2 != 0) {
    return reply::Error(r.out, "ERR wrong number of arguments for 'hset' command");
  }
  const int64_t added = SetFields(r);
  if (added >= 0) reply::Integer(r.out, added);
}

void HMSet(Request& r) {
  if (r.args.size() % 2 != 0) {
    return reply::Error(r.out, "ERR wrong number of arguments for 'hmset' command");
  }
  if (SetFields(r) >= 0) reply::Ok(r.out);
}

void HGet(Request& r) {
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  if (!hash) return reply::Null(r.out);
  std::optional<std::string> value;
  const Status s = r.server.keyspace->ReadMember(r.args[1], r.args[2], &value);
  if (!s.ok()) return ReplyStorageError(r, s);
  value ? reply::Bulk(r.out, *value) : reply::Null(r.out);
}

void HMGet(Request& r) {
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  std::string replies;
  for (size_t i = 2; i < r.args.size(); ++i) {
    std::optional<std::string> value;
    if (hash) {
      const Status s = r.server.keyspace->ReadMember(r.args[1], r.args[i], &value);
      if (!s.ok()) return ReplyStorageError(r, s);
    }
    value ? reply::Bulk(&replies, *value) : reply::Null(&replies);
  }
  reply::ArrayHeader(r.out, r.args.size() - 2);
  r.out->append(replies);
}

// HGETALL, HKEYS, HVALS: the fields in order, as pairs, keys or values.
void Scan(Request& r, bool fields, bool values) {
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  std::string replies;
  size_t n = 0;
  if (hash) {
    const Status s = r.server.keyspace->ForEachMember(
        r.args[1], [&](const std::string& field, const std::string& value) {
          if (fields) reply::Bulk(&replies, field), ++n;
          if (values) reply::Bulk(&replies, value), ++n;
          return true;
        });
    if (!s.ok()) return ReplyStorageError(r, s);
  }
  reply::ArrayHeader(r.out, n);
  r.out->append(replies);
}
void HGetAll(Request& r) { Scan(r, true, true); }
void HKeys(Request& r) { Scan(r, true, false); }
void HVals(Request& r) { Scan(r, false, true); }

void HDel(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.server.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  if (!hash) return reply::Integer(r.out, 0);
  Keyspace::Batch batch;
  std::vector<std::string> gone;
  for (size_t i = 2; i < r.args.size(); ++i) {
    if (std::find(gone.begin(), gone.end(), r.args[i]) != gone.end()) continue;
    std::optional<std::string> old;
    const Status s = r.server.keyspace->ReadMember(key, r.args[i], &old);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (!old) continue;
    gone.push_back(r.args[i]);
    batch.DeleteMember(key, r.args[i]);
  }
  const int64_t left = CountOf(*hash) - static_cast<int64_t>(gone.size());
  if (left <= 0) {
    batch.Delete(key);
  } else {
    batch.Put(key, HashValue(left, hash->expire_ms));
  }
  const Status s = r.server.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, static_cast<int64_t>(gone.size()));
}

void HLen(Request& r) {
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  reply::Integer(r.out, hash ? CountOf(*hash) : 0);
}

void HExists(Request& r) {
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  std::optional<std::string> value;
  if (hash) {
    const Status s = r.server.keyspace->ReadMember(r.args[1], r.args[2], &value);
    if (!s.ok()) return ReplyStorageError(r, s);
  }
  reply::Integer(r.out, value ? 1 : 0);
}

void HIncrBy(Request& r) {
  int64_t delta;
  if (!ParseStrictInt64(r.args[3], &delta)) return reply::Error(r.out, kNotInteger);
  const std::string& key = r.args[1];
  const std::string& field = r.args[2];
  auto locks = r.server.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> hash;
  if (!ReadHash(r, &hash)) return;
  Keyspace::Batch batch;
  if (!hash) {
    const Status s = r.server.keyspace->DeleteMembers(key, &batch);
    if (!s.ok()) return ReplyStorageError(r, s);
  }
  std::optional<std::string> old;
  if (hash) {
    const Status s = r.server.keyspace->ReadMember(key, field, &old);
    if (!s.ok()) return ReplyStorageError(r, s);
  }
  int64_t current = 0;
  if (old && !ParseStrictInt64(*old, &current)) {
    return reply::Error(r.out, "ERR hash value is not an integer");
  }
  if ((delta > 0 && current > std::numeric_limits<int64_t>::max() - delta) ||
      (delta < 0 && current < std::numeric_limits<int64_t>::min() - delta)) {
    return reply::Error(r.out, "ERR increment or decrement would overflow");
  }
  const int64_t result = current + delta;
  batch.PutMember(key, field, std::to_string(result));
  batch.Put(key, HashValue((hash ? CountOf(*hash) : 0) + (old ? 0 : 1), hash ? hash->expire_ms : 0));
  const Status s = r.server.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, result);
}

}  // namespace

void AddHashCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"hset", -4, HSet},       {"hmset", -4, HMSet},     {"hget", 3, HGet},
      {"hmget", -3, HMGet},     {"hgetall", 2, HGetAll},  {"hdel", -3, HDel},
      {"hlen", 2, HLen},        {"hexists", 3, HExists},  {"hkeys", 2, HKeys},
      {"hvals", 2, HVals},      {"hincrby", 4, HIncrBy},
  });
}

}  // namespace teksdb::server
