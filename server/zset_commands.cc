// Sorted set commands: ZADD (NX XX GT LT CH INCR) ZINCRBY ZREM ZSCORE ZCARD
// ZRANGE ZREVRANGE (WITHSCORES) ZRANGEBYSCORE (WITHSCORES, LIMIT) ZRANK
// ZPOPMIN. A sorted set is a Collection (collection.h) of type 'z' whose
// member records hold their scores, plus a score index (keyspace.h):
// "score + member" entries whose bytes sort as (score, member) do, as
// Redis orders them, both under the sorted set's version. Scores print as
// Redis 7.0's d2string does. Reads take no lock and check, after a miss or
// a short scan, that the set was not replaced under them
// (Collection::Settled).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "collection.h"
#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

constexpr const char* kNotFloat = "ERR value is not a valid float";

// Redis's getDoubleFromObject: all of the string, no leading space, no NaN.
bool ParseScore(const std::string& s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

// Redis 7.0's d2string.
std::string FormatScore(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  if (v > -4503599627370495.0 && v < 4503599627370496.0 &&
      v == static_cast<double>(static_cast<long long>(v))) {
    return std::to_string(static_cast<long long>(v));
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

// A stored score. Redis 7.0 keeps small sorted sets as listpacks, which
// store a score as its d2string text, turning -0 into 0: so do we.
std::string RawScore(double v) {
  if (v == 0) v = 0;
  return std::string(reinterpret_cast<const char*>(&v), 8);
}
double ScoreOf(const std::string& raw) {
  double v = 0;
  if (raw.size() == 8) std::memcpy(&v, raw.data(), 8);
  return v;
}

// 8 bytes that sort as the doubles do (-0 as 0), then the member.
std::string IndexEntry(double score, const std::string& member) {
  if (score == 0) score = 0;
  uint64_t bits;
  std::memcpy(&bits, &score, 8);
  bits = (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
  std::string entry;
  for (int i = 0; i < 8; ++i) entry.push_back(static_cast<char>(bits >> (56 - 8 * i)));
  return entry + member;
}
double EntryScore(const std::string& entry) {
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(entry[i]);
  bits = (bits >> 63) ? bits & ~(uint64_t{1} << 63) : ~bits;
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

// Sets member's score in an open sorted set, keeping the index; *old is
// its previous score, if any.
bool SetScore(Request& r, Collection* zset, const std::string& member, double score,
              const std::optional<double>& old) {
  bool existed;
  // PutMember first: it gives a new sorted set its version.
  if (!zset->PutMember(r, member, RawScore(score), &existed)) return false;
  if (old) zset->batch().DeleteIndex(zset->version(), IndexEntry(*old, member));
  zset->batch().PutIndex(zset->version(), IndexEntry(score, member));
  return true;
}

// The score of `member`, if any: read under the key's lock, or without it
// (Collection::ReadMemberUnlocked: a miss is checked).
bool ReadScore(Request& r, Collection* zset, const std::string& member, bool locked,
               std::optional<double>* score) {
  std::optional<std::string> raw;
  if (!(locked ? zset->ReadMember(r, member, &raw) : zset->ReadMemberUnlocked(r, member, &raw))) {
    return false;
  }
  score->reset();
  if (raw) *score = ScoreOf(*raw);
  return true;
}

// ZADD and ZINCRBY.
void Add(Request& r, size_t first, bool nx, bool xx, bool gt, bool lt, bool ch, bool incr) {
  const size_t elements = (r.args.size() - first) / 2;
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; ++j) {
    if (!ParseScore(r.args[first + 2 * j], &scores[j])) return reply::Error(r.out, kNotFloat);
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet)) return;
  int64_t added = 0, updated = 0, processed = 0;
  double last = 0;
  // Scores this command set, for members it names twice.
  std::map<std::string, double> staged;
  if (!(xx && !zset.exists())) {
    for (size_t j = 0; j < elements; ++j) {
      const std::string& member = r.args[first + 2 * j + 1];
      std::optional<double> current;
      const auto it = staged.find(member);
      if (it != staged.end()) {
        current = it->second;
      } else if (!ReadScore(r, &zset, member, /*locked=*/true, &current)) {
        return;
      }
      double score = scores[j];
      if (current) {
        if (nx) continue;
        if (incr) {
          score += *current;
          if (std::isnan(score)) return reply::Error(r.out, "ERR resulting score is not a number (NaN)");
        }
        if ((lt && score >= *current) || (gt && score <= *current)) continue;
        last = score;
        ++processed;
        if (score != *current) {
          if (!SetScore(r, &zset, member, score, current)) return;
          staged[member] = score;
          ++updated;
        }
      } else {
        if (xx) continue;
        if (!SetScore(r, &zset, member, score, current)) return;
        staged[member] = score;
        last = score;
        ++added;
        ++processed;
      }
    }
    if (!zset.Commit(r)) return;
  }
  if (incr) {
    return processed ? reply::Double(r.out, r.protocol(), FormatScore(last))
                     : reply::Null(r.out, r.protocol());
  }
  reply::Integer(r.out, ch ? added + updated : added);
}

void ZAdd(Request& r) {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
  size_t i = 2;
  for (; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "nx") nx = true;
    else if (opt == "xx") xx = true;
    else if (opt == "gt") gt = true;
    else if (opt == "lt") lt = true;
    else if (opt == "ch") ch = true;
    else if (opt == "incr") incr = true;
    else break;
  }
  const size_t pairs = r.args.size() - i;
  if (pairs == 0 || pairs % 2 != 0) return reply::Error(r.out, kSyntaxError);
  if (nx && xx) return reply::Error(r.out, "ERR XX and NX options at the same time are not compatible");
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    return reply::Error(r.out, "ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (incr && pairs > 2) return reply::Error(r.out, "ERR INCR option supports a single increment-element pair");
  Add(r, i, nx, xx, gt, lt, ch, incr);
}

void ZIncrBy(Request& r) { Add(r, 2, false, false, false, false, false, true); }

void ZRem(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet)) return;
  int64_t removed = 0;
  for (size_t i = 2; i < r.args.size(); ++i) {
    std::optional<double> score;
    if (!ReadScore(r, &zset, r.args[i], /*locked=*/true, &score)) return;
    bool existed;
    if (!zset.DeleteMember(r, r.args[i], &existed)) return;
    if (existed && score) {
      zset.batch().DeleteIndex(zset.version(), IndexEntry(*score, r.args[i]));
      ++removed;
    }
  }
  if (zset.Commit(r)) reply::Integer(r.out, removed);
}

void ZScore(Request& r) {
  Collection zset;
  std::optional<double> score;
  if (!zset.Open(r, Keyspace::kZSet) ||
      !ReadScore(r, &zset, r.args[2], /*locked=*/false, &score)) {
    return;
  }
  score ? reply::Double(r.out, r.protocol(), FormatScore(*score))
        : reply::Null(r.out, r.protocol());
}

void ZCard(Request& r) {
  Collection zset;
  if (zset.Open(r, Keyspace::kZSet)) reply::Integer(r.out, zset.count());
}

// Every index entry of the open sorted set, in order, without the key's
// lock (a short scan is checked: Collection::Settled).
bool AllEntries(Request& r, Collection& zset, std::vector<std::string>* entries) {
  if (!zset.exists()) return true;
  const Status s = r.keyspace->ForEachIndexEntry(zset.version(), [&](const std::string& e) {
    entries->push_back(e);
    return true;
  });
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return static_cast<int64_t>(entries->size()) >= zset.count() || zset.Settled(r);
}

// Members, or members and scores: in RESP2 one flat array; in RESP3 an
// array of [member, score] pairs, or one flat pair for ZPOPMIN without a
// count (`flat`), as Redis 7.0 replies.
void ReplyEntries(Request& r, const std::vector<std::string>& entries, bool with_scores,
                  bool flat = false) {
  const bool pairs = with_scores && r.protocol() == 3 && !flat;
  reply::ArrayHeader(r.out, entries.size() * (with_scores && !pairs ? 2 : 1));
  for (const std::string& e : entries) {
    if (pairs) reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, std::string_view(e).substr(8));
    if (with_scores) reply::Double(r.out, r.protocol(), FormatScore(EntryScore(e)));
  }
}

// ZRANGE / ZREVRANGE key start stop [WITHSCORES], by rank.
void RangeByRank(Request& r, bool reverse) {
  int64_t start, stop;
  if (!ParseStrictInt64(r.args[2], &start) || !ParseStrictInt64(r.args[3], &stop)) {
    return reply::Error(r.out, kNotInteger);
  }
  bool with_scores = false;
  if (r.args.size() == 5 && AsciiLower(r.args[4]) == "withscores") {
    with_scores = true;
  } else if (r.args.size() != 4) {
    return reply::Error(r.out, kSyntaxError);
  }
  Collection zset;
  std::vector<std::string> entries;
  if (!zset.Open(r, Keyspace::kZSet) || !AllEntries(r, zset, &entries)) return;
  if (reverse) std::reverse(entries.begin(), entries.end());
  const int64_t n = static_cast<int64_t>(entries.size());
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) return reply::ArrayHeader(r.out, 0);
  if (stop >= n) stop = n - 1;
  ReplyEntries(r, std::vector<std::string>(entries.begin() + start, entries.begin() + stop + 1),
               with_scores);
}
void ZRange(Request& r) { RangeByRank(r, false); }
void ZRevRange(Request& r) { RangeByRank(r, true); }

// A score bound: "(x" exclusive, "-inf", "+inf".
bool ParseBound(const std::string& s, double* v, bool* exclusive) {
  *exclusive = !s.empty() && s[0] == '(';
  return ParseScore(*exclusive ? s.substr(1) : s, v);
}

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
void ZRangeByScore(Request& r) {
  // Redis reads the options before the range.
  bool with_scores = false;
  int64_t offset = 0, limit = -1;
  for (size_t i = 4; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "withscores") {
      with_scores = true;
    } else if (opt == "limit" && i + 2 < r.args.size()) {
      if (!ParseStrictInt64(r.args[i + 1], &offset) || !ParseStrictInt64(r.args[i + 2], &limit)) {
        return reply::Error(r.out, kNotInteger);
      }
      i += 2;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  double min, max;
  bool min_ex, max_ex;
  if (!ParseBound(r.args[2], &min, &min_ex) || !ParseBound(r.args[3], &max, &max_ex)) {
    return reply::Error(r.out, "ERR min or max is not a float");
  }
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet)) return;
  std::vector<std::string> entries;
  if (zset.exists() && offset >= 0 && limit != 0) {
    int64_t skipped = 0;
    const Status s = r.keyspace->ForEachIndexEntry(
        zset.version(),
        [&](const std::string& e) {
          const double score = EntryScore(e);
          if (score < min || (min_ex && score == min)) return true;
          if (score > max || (max_ex && score == max)) return false;
          if (skipped < offset) return ++skipped, true;
          entries.push_back(e);
          return limit < 0 || static_cast<int64_t>(entries.size()) < limit;
        },
        std::isinf(min) && min < 0 ? std::string() : IndexEntry(min, ""));
    if (!s.ok()) return ReplyStorageError(r, s);
    // How many entries the range holds is not known: always checked.
    if (!zset.Settled(r)) return;
  }
  ReplyEntries(r, entries, with_scores);
}

void ZRank(Request& r) {
  Collection zset;
  std::optional<double> score;
  if (!zset.Open(r, Keyspace::kZSet) ||
      !ReadScore(r, &zset, r.args[2], /*locked=*/false, &score)) {
    return;
  }
  if (!score) return reply::Null(r.out, r.protocol());
  int64_t rank = 0;
  bool found = false;
  const std::string target = IndexEntry(*score, r.args[2]);
  const Status s = r.keyspace->ForEachIndexEntry(zset.version(), [&](const std::string& e) {
    found = e == target;
    rank += found ? 0 : 1;
    return !found;
  });
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!found && !zset.Settled(r)) return;
  reply::Integer(r.out, rank);
}

// ZPOPMIN key [count]
void ZPopMin(Request& r) {
  if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
  int64_t count = 1;
  if (r.args.size() == 3 && (!ParseStrictInt64(r.args[2], &count) || count < 0)) {
    return reply::Error(r.out, "ERR value is out of range, must be positive");
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet)) return;
  std::vector<std::string> popped;
  if (zset.exists() && count > 0) {
    const Status s = r.keyspace->ForEachIndexEntry(zset.version(), [&](const std::string& e) {
      popped.push_back(e);
      return static_cast<int64_t>(popped.size()) < count;
    });
    if (!s.ok()) return ReplyStorageError(r, s);
    for (const std::string& e : popped) {
      bool existed;
      if (!zset.DeleteMember(r, e.substr(8), &existed)) return;
      zset.batch().DeleteIndex(zset.version(), e);
    }
    if (!zset.Commit(r)) return;
  }
  ReplyEntries(r, popped, true, /*flat=*/r.args.size() == 2);
}

}  // namespace

void AddZSetCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"zadd", -4, ZAdd},           {"zincrby", 4, ZIncrBy},   {"zrem", -3, ZRem},
      {"zscore", 3, ZScore},        {"zcard", 2, ZCard},       {"zrange", -4, ZRange},
      {"zrevrange", -4, ZRevRange}, {"zrangebyscore", -4, ZRangeByScore},
      {"zrank", 3, ZRank},          {"zpopmin", -2, ZPopMin},
  });
}

}  // namespace teksdb::server
