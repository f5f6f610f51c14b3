// Commands on keys of any type: DEL UNLINK EXISTS TOUCH TYPE RENAME RENAMENX
// EXPIRE PEXPIRE EXPIREAT PEXPIREAT EXPIRETIME PEXPIRETIME TTL PTTL PERSIST
// KEYS DBSIZE FLUSHDB FLUSHALL. Writes run under the keys' locks
// (keyspace.h). RENAME moves the meta record, and for a collection points
// its version's owner record at the new name, so it is O(1) whatever the
// key holds (storage_format.h).
#include <limits>

#include "ascii_case.h"
#include "commands.h"
#include "glob_match.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

void Del(Request& r) {
  const std::vector<std::string> keys(r.args.begin() + 1, r.args.end());
  auto locks = r.keyspace->LockKeys(keys);
  Keyspace::Batch batch;
  int64_t deleted = 0;
  std::vector<std::string> seen;
  for (const std::string& key : keys) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    std::optional<Keyspace::Value> v;
    const Status s = r.keyspace->Read(key, &v);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (!v) continue;
    batch.Delete(key);  // a collection's members go with its version
    ++deleted;
  }
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, deleted);
}

void Exists(Request& r) {
  int64_t count = 0;
  for (size_t i = 1; i < r.args.size(); ++i) {
    std::optional<Keyspace::Value> v;
    const Status s = r.keyspace->Read(r.args[i], &v);
    if (!s.ok()) return ReplyStorageError(r, s);
    count += v ? 1 : 0;
  }
  reply::Integer(r.out, count);
}

// RENAME and RENAMENX (`only_new`: only if `dst` does not exist).
void Rename(Request& r, bool only_new) {
  const std::string& src = r.args[1];
  const std::string& dst = r.args[2];
  auto locks = r.keyspace->LockKeys({src, dst});
  std::optional<Keyspace::Value> v;
  Status s = r.keyspace->Read(src, &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v) return reply::Error(r.out, "ERR no such key");
  if (src == dst) return only_new ? reply::Integer(r.out, 0) : reply::Ok(r.out);
  if (only_new) {
    std::optional<Keyspace::Value> existing;
    s = r.keyspace->Read(dst, &existing);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (existing) return reply::Integer(r.out, 0);
  }
  Keyspace::Batch batch;
  batch.Delete(src);
  // A collection's version now belongs to `dst` (its owner record too).
  storage_format::IsCollection(v->type) ? batch.PutNew(dst, *v) : batch.Put(dst, *v);
  s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  only_new ? reply::Integer(r.out, 1) : reply::Ok(r.out);
}
void RenameCommand(Request& r) { Rename(r, false); }
void RenameNx(Request& r) { Rename(r, true); }

void Type(Request& r) {
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(r.args[1], &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Simple(r.out, v ? Keyspace::TypeName(v->type) : "none");
}

// EXPIRE key n [NX|XX|GT|LT], in `unit_ms`, relative or absolute. A time
// already past deletes the key, as in Redis.
void ExpireGeneric(Request& r, int64_t unit_ms, bool absolute) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t i = 3; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "nx") nx = true;
    else if (opt == "xx") xx = true;
    else if (opt == "gt") gt = true;
    else if (opt == "lt") lt = true;
    else return reply::Error(r.out, "ERR Unsupported option " + r.args[i]);
  }
  if (nx && (xx || gt || lt)) {
    return reply::Error(r.out, "ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if (gt && lt) return reply::Error(r.out, "ERR GT and LT options at the same time are not compatible");
  // Redis checks the options before the number.
  int64_t n;
  if (!ParseStrictInt64(r.args[2], &n)) return reply::Error(r.out, kNotInteger);
  const int64_t base = absolute ? 0 : Keyspace::NowMs();
  if (n > (std::numeric_limits<int64_t>::max() - base) / unit_ms ||
      n < (std::numeric_limits<int64_t>::min() + base) / unit_ms) {
    return reply::Error(r.out, "ERR invalid expire time in '" + AsciiLower(r.args[0]) + "' command");
  }
  const int64_t when = base + n * unit_ms;
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> v;
  Status s = r.keyspace->Read(key, &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v) return reply::Integer(r.out, 0);
  // A key without a TTL counts as an infinite one for GT and LT.
  const bool has_ttl = v->expire_ms != 0;
  if ((nx && has_ttl) || (xx && !has_ttl) || (gt && (!has_ttl || when <= v->expire_ms)) ||
      (lt && has_ttl && when >= v->expire_ms)) {
    return reply::Integer(r.out, 0);
  }
  Keyspace::Batch batch;
  if (when <= Keyspace::NowMs()) {
    batch.Delete(key);
  } else {
    v->expire_ms = when;
    batch.Put(key, *v);
  }
  s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, 1);
}

void Expire(Request& r) { ExpireGeneric(r, 1000, false); }
void PExpire(Request& r) { ExpireGeneric(r, 1, false); }
void ExpireAt(Request& r) { ExpireGeneric(r, 1000, true); }
void PExpireAt(Request& r) { ExpireGeneric(r, 1, true); }

void TtlGeneric(Request& r, bool ms) {
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(r.args[1], &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v) return reply::Integer(r.out, -2);
  if (v->expire_ms == 0) return reply::Integer(r.out, -1);
  const int64_t left = std::max<int64_t>(0, v->expire_ms - Keyspace::NowMs());
  reply::Integer(r.out, ms ? left : (left + 500) / 1000);
}
void Ttl(Request& r) { TtlGeneric(r, false); }

// EXPIRETIME / PEXPIRETIME: the absolute expiry, -1 without one, -2 absent.
void ExpireTimeGeneric(Request& r, bool ms) {
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(r.args[1], &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v) return reply::Integer(r.out, -2);
  if (v->expire_ms == 0) return reply::Integer(r.out, -1);
  reply::Integer(r.out, ms ? v->expire_ms : v->expire_ms / 1000);
}
void ExpireTime(Request& r) { ExpireTimeGeneric(r, false); }
void PExpireTime(Request& r) { ExpireTimeGeneric(r, true); }
void PTtl(Request& r) { TtlGeneric(r, true); }

void Persist(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> v;
  Status s = r.keyspace->Read(key, &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v || v->expire_ms == 0) return reply::Integer(r.out, 0);
  v->expire_ms = 0;
  Keyspace::Batch batch;
  batch.Put(key, *v);
  s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, 1);
}

void Keys(Request& r) {
  std::vector<std::string> keys;
  const std::string& pattern = r.args[1];
  const Status s = r.keyspace->ForEachKey([&](const std::string& key, const Keyspace::Value&) {
    if (GlobMatch(pattern, key)) keys.push_back(key);
    return true;
  });
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::ArrayHeader(r.out, keys.size());
  for (const std::string& key : keys) reply::Bulk(r.out, key);
}

void DbSize(Request& r) {
  // Expired keys not yet deleted count, as in Redis.
  int64_t n = 0;
  const Status s = r.keyspace->ForEachKey(
      [&](const std::string&, const Keyspace::Value&) {
        ++n;
        return true;
      },
      std::string(), /*include_expired=*/true);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, n);
}

// FLUSHALL (`every_database`) and FLUSHDB.
void Flush(Request& r, bool every_database) {
  if (r.args.size() > 2 || (r.args.size() == 2 && AsciiLower(r.args[1]) != "sync" &&
                            AsciiLower(r.args[1]) != "async")) {
    return reply::Error(r.out, kSyntaxError);
  }
  const Status s = every_database ? r.keyspace->Clear() : r.keyspace->ClearDatabase();
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Ok(r.out);
}
void FlushAll(Request& r) { Flush(r, true); }
void FlushDb(Request& r) { Flush(r, false); }

}  // namespace

void AddKeyCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"del", -2, Del},           {"exists", -2, Exists},       {"type", 2, Type},
      {"expire", -3, Expire},     {"pexpire", -3, PExpire},     {"expireat", -3, ExpireAt},
      {"pexpireat", -3, PExpireAt}, {"ttl", 2, Ttl},            {"pttl", 2, PTtl},
      {"persist", 2, Persist},    {"keys", 2, Keys},            {"dbsize", 1, DbSize},
      {"flushdb", -1, FlushDb},   {"flushall", -1, FlushAll},      {"unlink", -2, Del},
      {"touch", -2, Exists},      {"rename", 3, RenameCommand}, {"renamenx", 3, RenameNx},
      {"expiretime", 2, ExpireTime}, {"pexpiretime", 2, PExpireTime},
  });
}

}  // namespace teksdb::server
