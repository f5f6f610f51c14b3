// Hash field expiration, Redis 7.4's: HEXPIRE, HPEXPIRE, HEXPIREAT,
// HPEXPIREAT (NX | XX | GT | LT, FIELDS numfields field...), HTTL, HPTTL,
// HEXPIRETIME, HPEXPIRETIME, HPERSIST. Each field's deadline lives beside
// it (Collection's "Hash field deadlines"); a hash given its first one
// becomes a record per field, Redis's listpackex while within the listpack
// limits. Arguments are checked in Redis's order and answered with its
// words; a deadline at or before now deletes the field at once (reply 2),
// and the hash with its last field. The writers hold the key's lock; HTTL
// and friends read without one, as HGET does.
#include <algorithm>
#include <optional>

#include "ascii_case.h"
#include "collection.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Redis's ceiling for a field's deadline (its expiry buckets' 48 bits,
// less two): milliseconds since the epoch.
constexpr int64_t kMaxDeadlineMs = ((int64_t{1} << 48) - 1) >> 2;

// The replies per field, Redis's.
constexpr int64_t kNoField = -2;
constexpr int64_t kNoDeadline = -1;
constexpr int64_t kConditionNotMet = 0;
constexpr int64_t kSet = 1;
constexpr int64_t kDeleted = 2;

enum class Condition { kAlways, kNx, kXx, kGt, kLt };

// The fields after FIELDS numfields, whose place is `fields_at`
// (r.args[fields_at] must say FIELDS): false, having replied, if they are
// not there as Redis wants them. `count_error`: Redis's words for a bad
// numfields, which differ by command.
bool ParseFields(Request& r, size_t fields_at, const char* count_error,
                 std::vector<std::string>* fields) {
  if (fields_at + 1 >= r.args.size() || !AsciiEqualsLower(r.args[fields_at], "fields")) {
    reply::Error(r.out, "ERR Mandatory argument FIELDS is missing or not at the right position");
    return false;
  }
  int64_t n;
  if (!ParseStrictInt64(r.args[fields_at + 1], &n) || n < 1) {
    reply::Error(r.out, count_error);
    return false;
  }
  if (static_cast<uint64_t>(n) != r.args.size() - fields_at - 2) {
    reply::Error(r.out, "ERR The `numfields` parameter must match the number of arguments");
    return false;
  }
  fields->assign(r.args.begin() + static_cast<std::ptrdiff_t>(fields_at + 2), r.args.end());
  return true;
}

// What every field gets when the key holds no hash.
void ReplyNoFields(Request& r, size_t n) {
  reply::ArrayHeader(r.out, n);
  for (size_t i = 0; i < n; ++i) reply::Integer(r.out, kNoField);
}

// HEXPIRE and friends: `seconds` (else milliseconds), `absolute` (else
// from now).
void SetDeadlines(Request& r, bool seconds, bool absolute) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return;
  int64_t when;
  if (!ParseStrictInt64(r.args[2], &when)) return reply::Error(r.out, kNotInteger);
  if (when < 0) return reply::Error(r.out, "ERR invalid expire time, must be >= 0");
  const std::string bad_time = "ERR invalid expire time in '" + AsciiLower(r.args[0]) + "' command";
  if (seconds && when > kMaxDeadlineMs / 1000) return reply::Error(r.out, bad_time);
  if (seconds) when *= 1000;
  // One clock read for the whole command, as Redis's command time: a
  // relative deadline must not read as past because the clock moved on
  // while the command ran.
  const int64_t now = Keyspace::NowMs();
  const int64_t base = absolute ? 0 : now;
  if (when > kMaxDeadlineMs - base) return reply::Error(r.out, bad_time);
  const int64_t deadline = when + base;
  Condition condition = Condition::kAlways;
  const std::string option = AsciiLower(r.args[3]);
  if (option == "nx") condition = Condition::kNx;
  if (option == "xx") condition = Condition::kXx;
  if (option == "gt") condition = Condition::kGt;
  if (option == "lt") condition = Condition::kLt;
  std::vector<std::string> fields;
  const size_t fields_at = condition == Condition::kAlways ? 3 : 4;
  if (!ParseFields(r, fields_at, "ERR Parameter `numFields` should be greater than 0", &fields)) {
    return;
  }
  if (!hash.exists()) return ReplyNoFields(r, fields.size());
  // A hash that may hold deadlines from now on, whatever the fields say
  // (Redis turns a listpack into a listpackex first, too).
  if (!hash.EnableDeadlines(r) || !hash.LoadPresence(r, fields)) return;
  const bool past = deadline <= now;
  std::vector<int64_t> replies;
  for (const std::string& field : fields) {
    bool present;
    int64_t old;
    if (!hash.FieldDeadline(r, field, &present, &old)) return;
    if (!present) {
      replies.push_back(kNoField);
      continue;
    }
    // A field without a deadline has an infinite one: LT holds, XX and
    // GT do not.
    const bool met = old == 0 ? condition != Condition::kXx && condition != Condition::kGt
                              : !(condition == Condition::kNx ||
                                  (condition == Condition::kGt && old >= deadline) ||
                                  (condition == Condition::kLt && old <= deadline));
    if (!met) {
      replies.push_back(kConditionNotMet);
      continue;
    }
    bool existed;
    if (past) {
      if (!hash.DeleteMember(r, field, &existed)) return;
      replies.push_back(kDeleted);
      r.client.event_hints.hash_fields_deleted = true;
      continue;
    }
    if (!hash.SetDeadline(r, field, deadline)) return;
    replies.push_back(kSet);
  }
  if (!hash.Commit(r)) return;
  reply::ArrayHeader(r.out, replies.size());
  for (int64_t v : replies) reply::Integer(r.out, v);
}

void HExpire(Request& r) { SetDeadlines(r, true, false); }
void HPExpire(Request& r) { SetDeadlines(r, false, false); }
void HExpireAt(Request& r) { SetDeadlines(r, true, true); }
void HPExpireAt(Request& r) { SetDeadlines(r, false, true); }

// HTTL and friends: what is left (`relative`) or the deadline itself, in
// seconds (rounded up, as Redis) or milliseconds.
void ReadDeadlines(Request& r, bool seconds, bool relative) {
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return;
  std::vector<std::string> fields;
  if (!ParseFields(r, 2, "ERR Number of fields must be a positive integer", &fields)) return;
  if (!hash.exists()) return ReplyNoFields(r, fields.size());
  std::vector<int64_t> deadlines;
  std::vector<std::optional<std::string>> values;
  if (!hash.ReadMembers(r, fields, &values, &deadlines)) return;
  const bool missed = std::any_of(values.begin(), values.end(), [](auto& v) { return !v; });
  if (missed && !hash.Settled(r)) return;
  const int64_t now = relative ? Keyspace::NowMs() : 0;
  reply::ArrayHeader(r.out, fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!values[i]) {
      reply::Integer(r.out, kNoField);
    } else if (deadlines[i] == 0) {
      reply::Integer(r.out, kNoDeadline);
    } else {
      const int64_t ms = deadlines[i] - now;
      reply::Integer(r.out, seconds ? (ms + 999) / 1000 : ms);
    }
  }
}

void HTtl(Request& r) { ReadDeadlines(r, true, true); }
void HPTtl(Request& r) { ReadDeadlines(r, false, true); }
void HExpireTime(Request& r) { ReadDeadlines(r, true, false); }
void HPExpireTime(Request& r) { ReadDeadlines(r, false, false); }

void HPersist(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection hash;
  if (!hash.Open(r, Keyspace::kHash)) return;
  std::vector<std::string> fields;
  if (!ParseFields(r, 2, "ERR Number of fields must be a positive integer", &fields)) return;
  if (!hash.exists()) return ReplyNoFields(r, fields.size());
  if (!hash.LoadPresence(r, fields)) return;
  const int64_t now = Keyspace::NowMs();
  std::vector<int64_t> replies;
  for (const std::string& field : fields) {
    bool present;
    int64_t deadline;
    if (!hash.FieldDeadline(r, field, &present, &deadline)) return;
    if (!present || (deadline != 0 && deadline <= now)) {  // (past it, as reads see it)
      replies.push_back(kNoField);
    } else if (deadline == 0) {
      replies.push_back(kNoDeadline);
    } else {
      if (!hash.SetDeadline(r, field, 0)) return;
      replies.push_back(kSet);
    }
  }
  if (!hash.Commit(r)) return;
  reply::ArrayHeader(r.out, replies.size());
  for (int64_t v : replies) reply::Integer(r.out, v);
}

}  // namespace

void AddHashFieldExpireCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"hexpire", -6, HExpire},         {"hpexpire", -6, HPExpire},
      {"hexpireat", -6, HExpireAt},     {"hpexpireat", -6, HPExpireAt},
      {"httl", -5, HTtl},               {"hpttl", -5, HPTtl},
      {"hexpiretime", -5, HExpireTime}, {"hpexpiretime", -5, HPExpireTime},
      {"hpersist", -5, HPersist},
  });
}

}  // namespace teksdb::server
