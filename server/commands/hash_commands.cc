// Hash commands: HSET HMSET HSETNX HGET HMGET HGETALL HDEL HLEN HEXISTS HKEYS
// HVALS HSTRLEN HINCRBY HINCRBYFLOAT HRANDFIELD (the field deadlines' own
// commands: hash_field_expire_commands.cc). A hash is a Collection
// (collection.h) of type 'h': a small one inside its meta record, so HGETALL
// is one point read and HSET one put; a large one a meta record and one
// record per field under the hash's version, so HGETALL is a seek and a scan
// and HSET of one field two puts. Writes run under the key's
// lock; an emptied hash is deleted, as in Redis. Reads take no lock and
// check, after a miss or a short scan, that the hash was not replaced
// under them (Collection::Settled). HMGET reads its fields in one MultiGet.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ascii_case.h"
#include "collection.h"
#include "commands.h"
#include "expiry_sweeper.h"
#include "keyspace_events.h"
#include "random_count.h"
#include "random_choice.h"
#include "resp_reply.h"
#include "long_double_text.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Sets the field/value pairs from r.args[2]; how many fields were new, or
// -1 after replying an error.
int64_t SetFields(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return -1;
  std::vector<std::string> fields;
  for (size_t i = 2; i + 1 < r.args.size(); i += 2) fields.push_back(r.args[i]);
  if (!hash.LoadPresence(r, fields)) return -1;
  int64_t added = 0;
  for (size_t i = 2; i + 1 < r.args.size(); i += 2) {
    bool existed;
    if (!hash.PutMember(r, r.args[i], r.args[i + 1], &existed)) return -1;
    added += existed ? 0 : 1;
  }
  return hash.Commit(r) ? added : -1;
}

// A write that met fields past their deadline and rewrote them (HINCRBY,
// HSETNX): reclaimed as far as Redis's count and events go.
void ReportExpiredMet(Request& r, const Collection& hash) {
  if (hash.expired_met() == 0 || r.server.sweeper == nullptr) return;
  r.server.sweeper->CountReclaimedFields(static_cast<uint64_t>(hash.expired_met()));
  NotifyFieldExpired(r.server, r.keyspace->database(), r.args[1], false);
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
  Collection hash;
  std::optional<std::string> value;
  if (!hash.Open(r, Keyspace::kHash) || !hash.ReadMemberUnlocked(r, r.args[2], &value)) return;
  value ? reply::Bulk(r.out, *value) : reply::Null(r.out, r.protocol());
}

void HMGet(Request& r) {
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return;
  const std::vector<std::string> fields(r.args.begin() + 2, r.args.end());
  std::vector<std::optional<std::string>> values;
  if (!hash.ReadMembers(r, fields, &values)) return;
  const bool missed = std::any_of(values.begin(), values.end(), [](auto& v) { return !v; });
  if (missed && !hash.Settled(r)) return;
  reply::ArrayHeader(r.out, values.size());
  for (const std::optional<std::string>& v : values) {
    v ? reply::Bulk(r.out, *v) : reply::Null(r.out, r.protocol());
  }
}

// HGETALL, HKEYS, HVALS: the fields in order, as pairs, keys or values.
void Fields(Request& r, bool fields, bool values) {
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return;
  std::string replies;
  size_t n = 0;
  int64_t seen = 0;
  if (!hash.ForEach(r, [&](const std::string& field, const std::string& value) {
        if (fields) reply::Bulk(&replies, field), ++n;
        if (values) reply::Bulk(&replies, value), ++n;
        ++seen;
        return true;
      })) {
    return;
  }
  if (!hash.WholeReadSettled(r, seen)) return;
  fields && values ? reply::MapHeader(r.out, r.protocol(), seen) : reply::ArrayHeader(r.out, n);
  r.out->append(replies);
}
void HGetAll(Request& r) { Fields(r, true, true); }
void HKeys(Request& r) { Fields(r, true, false); }
void HVals(Request& r) { Fields(r, false, true); }

void HDel(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  int64_t removed;
  if (hash.Open(r, Keyspace::kHash) && hash.DeleteListed(r, &removed) && hash.Commit(r)) {
    reply::Integer(r.out, removed);
  }
}

void HLen(Request& r) {
  Collection hash;
  if (hash.Open(r, Keyspace::kHash)) reply::Integer(r.out, hash.count());
}

void HExists(Request& r) {
  Collection hash;
  std::optional<std::string> value;
  if (!hash.Open(r, Keyspace::kHash) || !hash.ReadMemberUnlocked(r, r.args[2], &value)) return;
  reply::Integer(r.out, value ? 1 : 0);
}

void HSetNx(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  std::optional<std::string> old;
  if (!hash.Open(r, Keyspace::kHash) || !hash.ReadMember(r, r.args[2], &old)) return;
  if (old) return reply::Integer(r.out, 0);
  bool existed;
  if (!hash.PutMember(r, r.args[2], r.args[3], &existed) || !hash.Commit(r)) return;
  ReportExpiredMet(r, hash);
  reply::Integer(r.out, 1);
}

void HStrLen(Request& r) {
  Collection hash;
  std::optional<std::string> value;
  if (!hash.Open(r, Keyspace::kHash) || !hash.ReadMemberUnlocked(r, r.args[2], &value)) return;
  reply::Integer(r.out, value ? static_cast<int64_t>(value->size()) : 0);
}

void HIncrBy(Request& r) {
  int64_t delta;
  if (!ParseStrictInt64(r.args[3], &delta)) return reply::Error(r.out, kNotInteger);
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  std::optional<std::string> old;
  if (!hash.Open(r, Keyspace::kHash) || !hash.ReadMember(r, r.args[2], &old)) return;
  int64_t current = 0;
  if (old && !ParseStrictInt64(*old, &current)) {
    return reply::Error(r.out, "ERR hash value is not an integer");
  }
  if ((delta > 0 && current > std::numeric_limits<int64_t>::max() - delta) ||
      (delta < 0 && current < std::numeric_limits<int64_t>::min() - delta)) {
    return reply::Error(r.out, "ERR increment or decrement would overflow");
  }
  // A field's deadline stays (Redis 7.4); one past it restarts the field.
  bool existed;
  if (!hash.PutMember(r, r.args[2], std::to_string(current + delta), &existed, old.has_value())) {
    return;
  }
  if (!hash.Commit(r)) return;
  ReportExpiredMet(r, hash);
  reply::Integer(r.out, current + delta);
}

void HIncrByFloat(Request& r) {
  long double delta;
  if (!ParseLongDouble(r.args[3], &delta)) return reply::Error(r.out, "ERR value is not a valid float");
  if (std::isinf(delta)) return reply::Error(r.out, "ERR value is NaN or Infinity");
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  std::optional<std::string> old;
  if (!hash.Open(r, Keyspace::kHash) || !hash.ReadMember(r, r.args[2], &old)) return;
  long double current = 0;
  if (old && !ParseLongDouble(*old, &current)) {
    return reply::Error(r.out, "ERR hash value is not a float");
  }
  const long double result = current + delta;
  if (std::isnan(result) || std::isinf(result)) {
    return reply::Error(r.out, "ERR increment would produce NaN or Infinity");
  }
  const std::string text = FormatLongDouble(result);
  bool existed;
  if (!hash.PutMember(r, r.args[2], text, &existed, old.has_value()) || !hash.Commit(r)) return;
  ReportExpiredMet(r, hash);
  reply::Bulk(r.out, text);
}


// HRANDFIELD key [count [WITHVALUES]]: distinct fields for a positive
// count, possibly repeated ones for a negative count, as in Redis.
void HRandField(Request& r) {
  int64_t count;
  bool with_values;
  if (!ParseRandomCount(r, "withvalues", &count, &with_values)) return;
  const bool with_count = r.args.size() >= 3;
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return;
  // Fields past their deadline are reclaimed after, as Redis's HRANDFIELD
  // deletes them.
  std::vector<std::pair<std::string, std::string>> fields;
  int64_t expired = 0;
  if (!hash.ForEach(
          r,
          [&](const std::string& f, const std::string& v) {
            fields.emplace_back(f, v);
            return true;
          },
          std::string(),
          [&](const std::string& f) {
            r.keyspace->NoteExpiredField(r.args[1], f);
            ++expired;
            return true;
          })) {
    return;
  }
  if (static_cast<int64_t>(fields.size()) + expired < hash.count() && !hash.Settled(r)) return;
  if (!with_count) {
    if (fields.empty()) return reply::Null(r.out, r.protocol());
    return reply::Bulk(r.out, fields[RandomIndex(fields.size())].first);
  }
  std::vector<size_t> picked;
  if (!fields.empty() && count < 0) {
    for (int64_t i = 0; i < -count; ++i) picked.push_back(RandomIndex(fields.size()));
  } else if (!fields.empty()) {
    for (size_t i = 0; i < fields.size(); ++i) picked.push_back(i);
    Shuffle(&picked);
    picked.resize(std::min<size_t>(picked.size(), static_cast<size_t>(count)));
  }
  const bool pairs = with_values && r.protocol() == 3;
  reply::ArrayHeader(r.out, picked.size() * (with_values && !pairs ? 2 : 1));
  for (size_t i : picked) {
    if (pairs) reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, fields[i].first);
    if (with_values) reply::Bulk(r.out, fields[i].second);
  }
}

}  // namespace

void AddHashCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"hset", -4, HSet},       {"hmset", -4, HMSet},     {"hget", 3, HGet},
      {"hmget", -3, HMGet},     {"hgetall", 2, HGetAll},  {"hdel", -3, HDel},
      {"hlen", 2, HLen},        {"hexists", 3, HExists},  {"hkeys", 2, HKeys},
      {"hvals", 2, HVals},      {"hincrby", 4, HIncrBy},  {"hsetnx", 4, HSetNx},
      {"hstrlen", 3, HStrLen},  {"hincrbyfloat", 4, HIncrByFloat}, {"hrandfield", -2, HRandField},
  });
}

}  // namespace teksdb::server
