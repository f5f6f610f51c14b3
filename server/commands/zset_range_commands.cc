// Sorted set ranges: ZRANGE (BYSCORE, BYLEX, REV, LIMIT, WITHSCORES),
// ZRANGESTORE, ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX,
// ZREVRANGEBYLEX, ZCOUNT, ZLEXCOUNT, ZREMRANGEBYRANK, ZREMRANGEBYSCORE,
// ZREMRANGEBYLEX, with Redis 7.0's parsing (zrangeGenericCommand) and
// replies.
//
// A range is selected from the sorted set's entries in (score, member)
// order as Redis walks a small sorted set (a listpack): the first entry at
// or past the start bound, OFFSET entries skipped, then entries until one
// passes the end bound or LIMIT is reached. With scores in order this is
// exactly the entries in the range; for BYLEX over members of different
// scores (which Redis leaves unspecified) it is what Redis answers for
// sorted sets of up to 128 members.
//
// Thread safety: reads take no lock (a short read is checked:
// Collection::Settled); ZRANGESTORE and ZREMRANGEBY* lock their keys.
#include <algorithm>
#include <cstring>
#include <limits>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

enum class By { kRank, kScore, kLex };

// One end of a BYLEX range: "-" (below everything), "+" (above
// everything), "[x" inclusive or "(x" exclusive.
struct LexBound {
  int infinite = 0;  // -1 "-", +1 "+", 0 a string
  std::string text;
  bool exclusive = false;
};

struct Range {
  By by = By::kRank;
  bool reverse = false;
  int64_t start = 0, stop = -1;  // kRank
  double min = 0, max = 0;       // kScore
  bool min_exclusive = false, max_exclusive = false;
  LexBound lex_min, lex_max;  // kLex
  int64_t offset = 0, limit = -1;
};

bool ParseScoreBound(const std::string& s, double* v, bool* exclusive) {
  *exclusive = !s.empty() && s[0] == '(';
  return ParseScore(*exclusive ? s.substr(1) : s, v);
}

bool ParseLexBound(const std::string& s, LexBound* bound) {
  if (s == "+" || s == "-") {
    bound->infinite = s == "+" ? 1 : -1;
    bound->exclusive = true;
    return true;
  }
  if (s.empty() || (s[0] != '(' && s[0] != '[')) return false;
  bound->exclusive = s[0] == '(';
  bound->text = s.substr(1);
  return true;
}

// Redis's sdscmplex: "-" below every string, "+" above.
int CompareLex(const LexBound& a, const LexBound& b) {
  if (a.infinite != 0 && a.infinite == b.infinite) return 0;
  if (a.infinite == -1 || b.infinite == 1) return -1;
  if (a.infinite == 1 || b.infinite == -1) return 1;
  return a.text.compare(b.text);
}
int CompareMember(std::string_view member, const LexBound& bound) {
  if (bound.infinite != 0) return -bound.infinite;
  const int c = member.compare(bound.text);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool AtOrAboveMin(const Range& range, const std::string& entry) {
  if (range.by == By::kScore) {
    const double score = EntryScore(entry);
    return range.min_exclusive ? score > range.min : score >= range.min;
  }
  const int c = CompareMember(EntryMember(entry), range.lex_min);
  return range.lex_min.exclusive ? c > 0 : c >= 0;
}
bool AtOrBelowMax(const Range& range, const std::string& entry) {
  if (range.by == By::kScore) {
    const double score = EntryScore(entry);
    return range.max_exclusive ? score < range.max : score <= range.max;
  }
  const int c = CompareMember(EntryMember(entry), range.lex_max);
  return range.lex_max.exclusive ? c < 0 : c <= 0;
}

// Whether the range can hold anything at all (Redis: min > max, or equal
// and either end exclusive, is always empty).
bool CanHoldAny(const Range& range) {
  if (range.by == By::kScore) {
    return !(range.min > range.max ||
             (range.min == range.max && (range.min_exclusive || range.max_exclusive)));
  }
  const int c = CompareLex(range.lex_min, range.lex_max);
  return !(c > 0 || (c == 0 && (range.lex_min.exclusive || range.lex_max.exclusive)));
}

// Ranks as Redis sanitizes them: negative from the end, clamped; false
// when nothing is left.
bool ClampRanks(int64_t n, int64_t* start, int64_t* stop) {
  if (*start < 0) *start += n;
  if (*stop < 0) *stop += n;
  if (*start < 0) *start = 0;
  if (*start > *stop || *start >= n) return false;
  if (*stop >= n) *stop = n - 1;
  return true;
}

// The entries `range` selects, in reply order (see the top of the file).
std::vector<std::string> Select(std::vector<std::string> entries, const Range& range) {
  if (range.reverse) std::reverse(entries.begin(), entries.end());
  const int64_t n = static_cast<int64_t>(entries.size());
  if (range.by == By::kRank) {
    int64_t start = range.start, stop = range.stop;
    if (!ClampRanks(n, &start, &stop)) return {};
    return std::vector<std::string>(entries.begin() + start, entries.begin() + stop + 1);
  }
  if (n == 0 || !CanHoldAny(range)) return {};
  // Walking forward the start bound is the minimum; reversed, the maximum.
  auto at_start = [&](const std::string& e) {
    return range.reverse ? AtOrBelowMax(range, e) : AtOrAboveMin(range, e);
  };
  auto before_end = [&](const std::string& e) {
    return range.reverse ? AtOrAboveMin(range, e) : AtOrBelowMax(range, e);
  };
  if (!at_start(entries.back()) || !before_end(entries.front())) return {};
  int64_t i = 0;
  while (i < n && !at_start(entries[i])) ++i;
  if (i == n || !before_end(entries[i]) || range.offset < 0) return {};
  i += range.offset;
  std::vector<std::string> selected;
  for (; i < n && (range.limit < 0 || static_cast<int64_t>(selected.size()) < range.limit); ++i) {
    if (!before_end(entries[i])) break;
    selected.push_back(entries[i]);
  }
  return selected;
}

// Reads the range bounds at r.args[at], r.args[at + 1] (max first when
// reversed by score or lex, as Redis takes them); false having replied.
bool ParseBounds(Request& r, size_t at, Range* range) {
  const std::string& first = r.args[at];
  const std::string& second = r.args[at + 1];
  const bool swapped = range->reverse && range->by != By::kRank;
  const std::string& low = swapped ? second : first;
  const std::string& high = swapped ? first : second;
  switch (range->by) {
    case By::kRank:
      if (!ParseStrictInt64(first, &range->start) || !ParseStrictInt64(second, &range->stop)) {
        return reply::Error(r.out, kNotInteger), false;
      }
      return true;
    case By::kScore:
      if (!ParseScoreBound(low, &range->min, &range->min_exclusive) ||
          !ParseScoreBound(high, &range->max, &range->max_exclusive)) {
        return reply::Error(r.out, "ERR min or max is not a float"), false;
      }
      return true;
    case By::kLex:
      if (!ParseLexBound(low, &range->lex_min) || !ParseLexBound(high, &range->lex_max)) {
        return reply::Error(r.out, "ERR min or max not valid string range item"), false;
      }
      return true;
  }
  return false;
}

// The entries of sorted set `key` that `range` selects, in reply order:
// false having replied or set r.retry. `opened`: the Collection, for a
// caller that then writes it. By score, or by ranks from the start, the
// score index is read from the range's start (a seek; backwards when
// reversed) to its end or LIMIT; by lex (the listpack walk, see the top of
// the file) or by ranks from the end every entry is read and Select picks. A streamed read without the key's
// lock is checked (Collection::Settled): one more meta record read.
bool ReadSelected(Request& r, const std::string& key, const Range& range, Collection* opened,
                  std::vector<std::string>* selected) {
  if (!opened->Open(r, Keyspace::kZSet, key)) return false;
  // Ranks counted from the end need the set's size as of the scan; the
  // meta record's count, read before it, may be older (a ZADD between).
  if (range.by == By::kLex ||
      (range.by == By::kRank && (range.start < 0 || range.stop < 0))) {
    std::vector<std::string> entries;
    if (!AllEntries(r, *opened, &entries)) return false;
    *selected = Select(std::move(entries), range);
    return true;
  }
  if (!opened->exists()) return true;
  int64_t skip, take;
  // Forward, the first entry read is at or after it; backward, below it.
  std::string from;
  if (range.by == By::kRank) {
    if (range.start > range.stop) return true;
    skip = range.start;
    // Or fewer, where the index ends (a stop of INT64_MAX: no end at all).
    take = range.stop - range.start < std::numeric_limits<int64_t>::max()
               ? range.stop - range.start + 1
               : -1;
  } else {
    if (!CanHoldAny(range) || range.offset < 0) return true;
    skip = range.offset;
    take = range.limit < 0 ? -1 : range.limit;
    from = range.reverse ? storage_format::PrefixEnd(IndexEntry(range.max, std::string()))
                         : IndexEntry(range.min, std::string());
  }
  auto visit = [&](const std::string& e) {
    if (take >= 0 && static_cast<int64_t>(selected->size()) >= take) return false;
    if (range.by == By::kScore) {
      // Walking backward the start bound is the maximum (as in Select).
      if (!(range.reverse ? AtOrBelowMax(range, e) : AtOrAboveMin(range, e))) {
        return true;  // an exclusive bound's own score
      }
      if (!(range.reverse ? AtOrAboveMin(range, e) : AtOrBelowMax(range, e))) return false;
    }
    if (skip > 0) {
      --skip;
    } else {
      selected->push_back(e);
    }
    return true;
  };
  if (!(range.reverse ? opened->ForEachIndexEntryBackward(r, visit, from)
                      : opened->ForEachIndexEntry(r, visit, from))) {
    return false;
  }
  // A read that counts neither on the end of the index nor on the count
  // cannot tell a short read: the version must still be the key's.
  return opened->Settled(r);
}

// What a ZRANGE-family command fixes before its options: how it ranges
// and in which direction (legacy commands), and whether it stores.
struct Fixed {
  std::optional<By> by;
  std::optional<bool> reverse;
  bool store = false;
};

void RangeCommand(Request& r, Fixed fixed) {
  const size_t source_at = fixed.store ? 2 : 1;
  Range range;
  bool with_scores = false;
  for (size_t i = source_at + 3; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    const size_t left = r.args.size() - i - 1;
    if (opt == "withscores" && !fixed.store) {
      with_scores = true;
    } else if (opt == "limit" && left >= 2) {
      if (!ParseStrictInt64(r.args[i + 1], &range.offset) ||
          !ParseStrictInt64(r.args[i + 2], &range.limit)) {
        return reply::Error(r.out, kNotInteger);
      }
      i += 2;
    } else if (!fixed.reverse && opt == "rev") {
      fixed.reverse = true;
    } else if (!fixed.by && (opt == "bylex" || opt == "byscore")) {
      fixed.by = opt == "bylex" ? By::kLex : By::kScore;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  range.by = fixed.by.value_or(By::kRank);
  range.reverse = fixed.reverse.value_or(false);
  // (As in Redis, "LIMIT x -1" is no limit, also by rank.)
  if (range.limit != -1 && range.by == By::kRank) {
    return reply::Error(
        r.out, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (with_scores && range.by == By::kLex) {
    return reply::Error(r.out, "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  if (!ParseBounds(r, source_at + 1, &range)) return;
  Keyspace::KeyLocks locks;
  if (fixed.store) locks = r.keyspace->LockKeys({r.args[1], r.args[2]});
  Collection source;
  std::vector<std::string> selected;
  if (!ReadSelected(r, r.args[source_at], range, &source, &selected)) return;
  if (!fixed.store) return ReplyEntries(r, selected, with_scores);
  // ZRANGESTORE: the destination replaced by the selection, or deleted.
  const std::string& destination = r.args[1];
  Collection stored;
  if (!stored.Replace(r, Keyspace::kZSet, destination)) return;
  for (const std::string& e : selected) {
    if (!SetScore(r, &stored, std::string(EntryMember(e)), EntryScore(e), std::nullopt)) return;
  }
  if (stored.Commit(r)) reply::Integer(r.out, static_cast<int64_t>(selected.size()));
}

void ZRange(Request& r) { RangeCommand(r, {}); }
void ZRangeStore(Request& r) { RangeCommand(r, {std::nullopt, std::nullopt, true}); }
void ZRevRange(Request& r) { RangeCommand(r, {By::kRank, true}); }
void ZRangeByScore(Request& r) { RangeCommand(r, {By::kScore, false}); }
void ZRevRangeByScore(Request& r) { RangeCommand(r, {By::kScore, true}); }
void ZRangeByLex(Request& r) { RangeCommand(r, {By::kLex, false}); }
void ZRevRangeByLex(Request& r) { RangeCommand(r, {By::kLex, true}); }

// ZCOUNT and ZLEXCOUNT key min max.
void Count(Request& r, By by) {
  Range range;
  range.by = by;
  if (!ParseBounds(r, 2, &range)) return;
  Collection zset;
  std::vector<std::string> selected;
  if (!ReadSelected(r, r.args[1], range, &zset, &selected)) return;
  reply::Integer(r.out, static_cast<int64_t>(selected.size()));
}
void ZCount(Request& r) { Count(r, By::kScore); }
void ZLexCount(Request& r) { Count(r, By::kLex); }

// ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX key min max.
void RemoveRange(Request& r, By by) {
  Range range;
  range.by = by;
  if (!ParseBounds(r, 2, &range)) return;
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection zset;
  std::vector<std::string> removed;
  if (!ReadSelected(r, r.args[1], range, &zset, &removed)) return;
  if (RemoveEntries(r, &zset, removed) && zset.Commit(r)) {
    reply::Integer(r.out, static_cast<int64_t>(removed.size()));
  }
}
void ZRemRangeByRank(Request& r) { RemoveRange(r, By::kRank); }
void ZRemRangeByScore(Request& r) { RemoveRange(r, By::kScore); }
void ZRemRangeByLex(Request& r) { RemoveRange(r, By::kLex); }

}  // namespace

void AddZSetRangeCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"zrange", -4, ZRange},
      {"zrangestore", -5, ZRangeStore},
      {"zrevrange", -4, ZRevRange},
      {"zrangebyscore", -4, ZRangeByScore},
      {"zrevrangebyscore", -4, ZRevRangeByScore},
      {"zrangebylex", -4, ZRangeByLex},
      {"zrevrangebylex", -4, ZRevRangeByLex},
      {"zcount", 4, ZCount},
      {"zlexcount", 4, ZLexCount},
      {"zremrangebyrank", 4, ZRemRangeByRank},
      {"zremrangebyscore", 4, ZRemRangeByScore},
      {"zremrangebylex", 4, ZRemRangeByLex},
  });
}

}  // namespace teksdb::server
