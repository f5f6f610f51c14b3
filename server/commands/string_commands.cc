// String commands: GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET
// MSETNX INCR INCRBY DECR DECRBY INCRBYFLOAT APPEND STRLEN GETRANGE SUBSTR
// SETRANGE. A string is its key's meta record with the value as
// payload (keyspace.h). Every write runs under the key's lock, so INCR and
// friends are atomic read-modify-writes; SET without options, SETEX, PSETEX
// and MSET write without reading. MGET reads its keys in one MultiGet.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "long_double_text.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

// Reads `key`; on a storage error replies it and returns false.
bool ReadKey(Request& r, const std::string& key, std::optional<Keyspace::Value>* value) {
  const Status s = r.keyspace->Read(key, value);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

bool Commit(Request& r, Keyspace::Batch* batch) {
  const Status s = r.keyspace->Commit(batch);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

// Replaces whatever `key` held with a string: one write, without reading
// (a collection's members go with its version, keyspace.h).
bool PutString(Request& r, const std::string& key, std::string value, int64_t expire_ms) {
  Keyspace::Batch batch;
  batch.Put(key, Keyspace::Value{Keyspace::kString, expire_ms, std::move(value)});
  return Commit(r, &batch);
}

// Expiry time for "SET ... EX n" and friends: now + n * unit ms, or an
// absolute time; false (and Redis's reply) if not a positive integer or it
// overflows.
bool ExpiryFrom(Request& r, const std::string& arg, int64_t unit_ms, bool absolute,
                const char* command, int64_t* expire_ms) {
  int64_t n;
  if (!ParseStrictInt64(arg, &n)) {
    reply::Error(r.out, kNotInteger);
    return false;
  }
  const int64_t base = absolute ? 0 : Keyspace::NowMs();
  if (n <= 0 || n > (std::numeric_limits<int64_t>::max() - base) / unit_ms) {
    reply::Error(r.out, std::string("ERR invalid expire time in '") + command + "' command");
    return false;
  }
  *expire_ms = base + n * unit_ms;
  return true;
}

// The value goes from what RocksDB read (or the connection prefetched)
// straight into the reply: no copy of it in between.
void Get(Request& r) {
  ROCKSDB_NAMESPACE::PinnableSlice held;
  std::optional<storage_format::MetaView> v;
  const Status s = r.keyspace->ReadView(r.args[1], &held, &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v) return reply::Null(r.out, r.protocol());
  if (v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  reply::Bulk(r.out, std::string_view(v->payload.data(), v->payload.size()));
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]
void Set(Request& r) {
  bool nx = false, xx = false, get = false, keep_ttl = false;
  int64_t expire_ms = 0;
  bool has_expiry = false;
  for (size_t i = 3; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    const bool has_next = i + 1 < r.args.size();
    if (opt == "nx" && !xx) {
      nx = true;
    } else if (opt == "xx" && !nx) {
      xx = true;
    } else if (opt == "get") {
      get = true;
    } else if (opt == "keepttl" && !has_expiry) {
      keep_ttl = true;
    } else if ((opt == "ex" || opt == "px" || opt == "exat" || opt == "pxat") && !keep_ttl &&
               !has_expiry && has_next) {
      const int64_t unit = (opt == "ex" || opt == "exat") ? 1000 : 1;
      const bool absolute = opt == "exat" || opt == "pxat";
      if (!ExpiryFrom(r, r.args[++i], unit, absolute, "set", &expire_ms)) return;
      has_expiry = true;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  // Only the options read the old value: a plain SET writes blind.
  std::optional<Keyspace::Value> old;
  if ((nx || xx || get || keep_ttl) && !ReadKey(r, key, &old)) return;
  if (get && old && old->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  const bool write = !(nx && old) && !(xx && !old);
  if (write) {
    if (keep_ttl && old) expire_ms = old->expire_ms;
    if (!PutString(r, key, r.args[2], expire_ms)) return;
  }
  if (get) return old ? reply::Bulk(r.out, old->payload) : reply::Null(r.out, r.protocol());
  write ? reply::Ok(r.out) : reply::Null(r.out, r.protocol());
}

void SetNx(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> old;
  if (!ReadKey(r, r.args[1], &old)) return;
  if (old) return reply::Integer(r.out, 0);
  if (PutString(r, r.args[1], r.args[2], 0)) reply::Integer(r.out, 1);
}

void SetExpiring(Request& r, int64_t unit_ms, const char* command) {
  int64_t expire_ms;
  if (!ExpiryFrom(r, r.args[2], unit_ms, false, command, &expire_ms)) return;
  auto locks = r.keyspace->LockKeys({r.args[1]});
  if (PutString(r, r.args[1], r.args[3], expire_ms)) reply::Ok(r.out);
}
void SetEx(Request& r) { SetExpiring(r, 1000, "setex"); }
void PSetEx(Request& r) { SetExpiring(r, 1, "psetex"); }

// The string at r.args[1] for the GET* commands that then change it: false,
// having replied (null, WRONGTYPE, a storage error), when there is none.
bool ReadStringOrReply(Request& r, std::optional<Keyspace::Value>* v) {
  if (!ReadKey(r, r.args[1], v)) return false;
  if (!*v) return reply::Null(r.out, r.protocol()), false;
  if ((*v)->type != Keyspace::kString) return reply::Error(r.out, kWrongType), false;
  return true;
}

// GETSET key value: SET ... GET, the TTL dropped.
void GetSet(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> old;
  if (!ReadKey(r, key, &old)) return;
  if (old && old->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  if (!PutString(r, key, r.args[2], 0)) return;
  old ? reply::Bulk(r.out, old->payload) : reply::Null(r.out, r.protocol());
}

void GetDel(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  if (!ReadStringOrReply(r, &v)) return;
  Keyspace::Batch batch;
  batch.Delete(r.args[1]);
  if (Commit(r, &batch)) reply::Bulk(r.out, v->payload);
}

// GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]. As in Redis, an option may
// repeat (the last one counts) but not be mixed with another, the time is
// checked after the key is found, and a time already past deletes it.
void GetEx(Request& r) {
  std::string kind;  // "ex", "px", "exat", "pxat", "persist" or empty
  const std::string* time = nullptr;
  for (size_t i = 2; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    const bool timed = opt == "ex" || opt == "px" || opt == "exat" || opt == "pxat";
    if (!(timed && i + 1 < r.args.size()) && opt != "persist") return reply::Error(r.out, kSyntaxError);
    if (!kind.empty() && kind != opt) return reply::Error(r.out, kSyntaxError);
    kind = opt;
    if (timed) time = &r.args[++i];
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  if (!ReadStringOrReply(r, &v)) return;
  int64_t expire_ms = 0;
  if (time != nullptr) {
    const int64_t unit = (kind == "ex" || kind == "exat") ? 1000 : 1;
    const bool absolute = kind == "exat" || kind == "pxat";
    if (!ExpiryFrom(r, *time, unit, absolute, "getex", &expire_ms)) return;
  }
  Keyspace::Batch batch;
  if (time != nullptr && expire_ms <= Keyspace::NowMs()) {
    batch.Delete(r.args[1]);
  } else if (time != nullptr || (kind == "persist" && v->expire_ms != 0)) {
    Keyspace::Value changed = *v;
    changed.expire_ms = expire_ms;
    batch.Put(r.args[1], changed);
  }
  if (Commit(r, &batch)) reply::Bulk(r.out, v->payload);
}

void MGet(Request& r) {
  const std::vector<std::string> keys(r.args.begin() + 1, r.args.end());
  std::vector<std::optional<Keyspace::Value>> values;
  const Status s = r.keyspace->ReadMany(keys, &values);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::ArrayHeader(r.out, values.size());
  for (const std::optional<Keyspace::Value>& v : values) {
    v && v->type == Keyspace::kString ? reply::Bulk(r.out, v->payload) : reply::Null(r.out, r.protocol());
  }
}

void MSet(Request& r) {
  if (r.args.size() % 2 != 1) {
    return reply::Error(r.out, "ERR wrong number of arguments for 'mset' command");
  }
  std::vector<std::string> keys;
  for (size_t i = 1; i < r.args.size(); i += 2) keys.push_back(r.args[i]);
  auto locks = r.keyspace->LockKeys(keys);
  Keyspace::Batch batch;
  for (size_t i = 1; i < r.args.size(); i += 2) {
    batch.Put(r.args[i], Keyspace::Value{Keyspace::kString, 0, r.args[i + 1]});
  }
  if (Commit(r, &batch)) reply::Ok(r.out);
}

void MSetNx(Request& r) {
  if (r.args.size() % 2 != 1) {
    return reply::Error(r.out, "ERR wrong number of arguments for 'msetnx' command");
  }
  std::vector<std::string> keys;
  for (size_t i = 1; i < r.args.size(); i += 2) keys.push_back(r.args[i]);
  auto locks = r.keyspace->LockKeys(keys);
  std::vector<std::optional<Keyspace::Value>> values;
  const Status s = r.keyspace->ReadMany(keys, &values);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (std::any_of(values.begin(), values.end(), [](auto& v) { return v.has_value(); })) {
    return reply::Integer(r.out, 0);
  }
  Keyspace::Batch batch;
  for (size_t i = 1; i < r.args.size(); i += 2) {
    batch.Put(r.args[i], Keyspace::Value{Keyspace::kString, 0, r.args[i + 1]});
  }
  if (Commit(r, &batch)) reply::Integer(r.out, 1);
}

// Adds `delta` to the integer at r.args[1] (0 if absent), keeping its TTL.
void IncrementBy(Request& r, int64_t delta) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> v;
  if (!ReadKey(r, key, &v)) return;
  int64_t current = 0;
  if (v) {
    if (v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
    if (!ParseStrictInt64(v->payload, &current)) return reply::Error(r.out, kNotInteger);
  }
  if ((delta > 0 && current > std::numeric_limits<int64_t>::max() - delta) ||
      (delta < 0 && current < std::numeric_limits<int64_t>::min() - delta)) {
    return reply::Error(r.out, "ERR increment or decrement would overflow");
  }
  const int64_t result = current + delta;
  if (PutString(r, key, std::to_string(result), v ? v->expire_ms : 0)) {
    reply::Integer(r.out, result);
  }
}

void Incr(Request& r) { IncrementBy(r, 1); }
void Decr(Request& r) { IncrementBy(r, -1); }
void IncrBy(Request& r) {
  int64_t delta;
  if (!ParseStrictInt64(r.args[2], &delta)) return reply::Error(r.out, kNotInteger);
  IncrementBy(r, delta);
}
void DecrBy(Request& r) {
  int64_t delta;
  if (!ParseStrictInt64(r.args[2], &delta)) return reply::Error(r.out, kNotInteger);
  if (delta == std::numeric_limits<int64_t>::min()) {
    return reply::Error(r.out, "ERR decrement would overflow");
  }
  IncrementBy(r, -delta);
}

void IncrByFloat(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> v;
  if (!ReadKey(r, key, &v)) return;
  if (v && v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  long double current = 0, delta;
  if ((v && !ParseLongDouble(v->payload, &current)) || !ParseLongDouble(r.args[2], &delta)) {
    return reply::Error(r.out, "ERR value is not a valid float");
  }
  const long double result = current + delta;
  if (std::isnan(result) || std::isinf(result)) {
    return reply::Error(r.out, "ERR increment would produce NaN or Infinity");
  }
  std::string text = FormatLongDouble(result);
  if (PutString(r, key, text, v ? v->expire_ms : 0)) reply::Bulk(r.out, text);
}

void Append(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> v;
  if (!ReadKey(r, key, &v)) return;
  if (v && v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  std::string value = v ? v->payload : std::string();
  if (value.size() + r.args[2].size() > (size_t{512} << 20)) {
    return reply::Error(r.out, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  value += r.args[2];
  const int64_t length = static_cast<int64_t>(value.size());
  if (PutString(r, key, std::move(value), v ? v->expire_ms : 0)) reply::Integer(r.out, length);
}

// GETRANGE / SUBSTR key start end: Redis's clamping of negative and
// out-of-range offsets.
void GetRange(Request& r) {
  int64_t start, end;
  if (!ParseStrictInt64(r.args[2], &start) || !ParseStrictInt64(r.args[3], &end)) {
    return reply::Error(r.out, kNotInteger);
  }
  std::optional<Keyspace::Value> v;
  if (!ReadKey(r, r.args[1], &v)) return;
  if (v && v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  const int64_t length = v ? static_cast<int64_t>(v->payload.size()) : 0;
  if (start < 0 && end < 0 && start > end) return reply::Bulk(r.out, "");
  if (start < 0) start = std::max<int64_t>(0, length + start);
  if (end < 0) end = std::max<int64_t>(0, length + end);
  end = std::min(end, length - 1);
  if (start > end || length == 0) return reply::Bulk(r.out, "");
  reply::Bulk(r.out, std::string_view(v->payload).substr(start, end - start + 1));
}

// SETRANGE key offset value: overwrites from `offset`, zero-padding a
// shorter string; the new length.
void SetRange(Request& r) {
  int64_t offset;
  if (!ParseStrictInt64(r.args[2], &offset)) return reply::Error(r.out, kNotInteger);
  if (offset < 0) return reply::Error(r.out, "ERR offset is out of range");
  const std::string& piece = r.args[3];
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  if (!ReadKey(r, r.args[1], &v)) return;
  if (v && v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  std::string value = v ? v->payload : std::string();
  if (piece.empty()) return reply::Integer(r.out, static_cast<int64_t>(value.size()));
  if (static_cast<uint64_t>(offset) + piece.size() > (uint64_t{512} << 20)) {
    return reply::Error(r.out, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  if (value.size() < offset + piece.size()) value.resize(offset + piece.size(), '\0');
  value.replace(offset, piece.size(), piece);
  const int64_t length = static_cast<int64_t>(value.size());
  if (PutString(r, r.args[1], std::move(value), v ? v->expire_ms : 0)) reply::Integer(r.out, length);
}

void StrLen(Request& r) {
  std::optional<Keyspace::Value> v;
  if (!ReadKey(r, r.args[1], &v)) return;
  if (v && v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  reply::Integer(r.out, v ? static_cast<int64_t>(v->payload.size()) : 0);
}

}  // namespace

void AddStringCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"get", 2, Get},         {"set", -3, Set},        {"setnx", 3, SetNx},
      {"setex", 4, SetEx},     {"psetex", 4, PSetEx},   {"mget", -2, MGet},
      {"mset", -3, MSet},      {"incr", 2, Incr},       {"incrby", 3, IncrBy},
      {"decr", 2, Decr},       {"decrby", 3, DecrBy},   {"append", 3, Append},
      {"strlen", 2, StrLen},   {"getset", 3, GetSet},   {"getdel", 2, GetDel},
      {"getex", -2, GetEx},    {"incrbyfloat", 3, IncrByFloat}, {"msetnx", -3, MSetNx},
      {"getrange", 4, GetRange}, {"substr", 4, GetRange}, {"setrange", 4, SetRange},
  });
}

}  // namespace teksdb::server
