// Sorted set commands on members: ZADD (NX XX GT LT CH INCR) ZINCRBY ZREM
// ZSCORE ZMSCORE ZCARD ZRANK ZREVRANK ZRANDMEMBER (ranges:
// zset_range_commands.cc; pops: zset_pop_commands.cc; the encoding:
// sorted_set.h). Writes run under
// the key's lock. Reads take no lock and check, after a miss or a short
// scan, that the set was not replaced under them (Collection::Settled).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "sorted_set.h"
#include "ascii_case.h"
#include "commands.h"
#include "random_count.h"
#include "zset_add.h"
#include "random_choice.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

}  // namespace

void ZAddPairs(Request& r, size_t first, const ZAddFlags& flags) {
  const bool nx = flags.nx, xx = flags.xx, gt = flags.gt, lt = flags.lt, ch = flags.ch,
             incr = flags.incr;
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

namespace {

void ZAdd(Request& r) {
  ZAddFlags flags;
  size_t i = 2;
  for (; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "nx") flags.nx = true;
    else if (opt == "xx") flags.xx = true;
    else if (opt == "gt") flags.gt = true;
    else if (opt == "lt") flags.lt = true;
    else if (opt == "ch") flags.ch = true;
    else if (opt == "incr") flags.incr = true;
    else break;
  }
  const bool nx = flags.nx, xx = flags.xx, gt = flags.gt, lt = flags.lt, incr = flags.incr;
  const size_t pairs = r.args.size() - i;
  if (pairs == 0 || pairs % 2 != 0) return reply::Error(r.out, kSyntaxError);
  if (nx && xx) return reply::Error(r.out, "ERR XX and NX options at the same time are not compatible");
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    return reply::Error(r.out, "ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (incr && pairs > 2) return reply::Error(r.out, "ERR INCR option supports a single increment-element pair");
  ZAddPairs(r, i, flags);
}

void ZIncrBy(Request& r) {
  ZAddFlags flags;
  flags.incr = true;
  ZAddPairs(r, 2, flags);
}

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
      zset.DeleteIndex(IndexEntry(*score, r.args[i]));
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

// ZRANK and ZREVRANK key member [WITHSCORE] (WITHSCORE as Redis 7.2's: the
// rank and the score, a null array when there is none).
void Rank(Request& r, bool reverse) {
  if (r.args.size() > 4) {
    return reply::Error(r.out, std::string("ERR wrong number of arguments for '") +
                                   (reverse ? "zrevrank" : "zrank") + "' command");
  }
  const bool with_score = r.args.size() == 4;
  if (with_score && AsciiLower(r.args[3]) != "withscore") return reply::Error(r.out, kSyntaxError);
  Collection zset;
  std::optional<double> score;
  if (!zset.Open(r, Keyspace::kZSet) ||
      !ReadScore(r, &zset, r.args[2], /*locked=*/false, &score)) {
    return;
  }
  if (!score) return with_score ? reply::NullArray(r.out, r.protocol()) : reply::Null(r.out, r.protocol());
  int64_t rank = 0;
  bool found = false;
  const std::string target = IndexEntry(*score, r.args[2]);
  if (!zset.ForEachIndexEntry(r, [&](const std::string& e) {
        found = e == target;
        rank += found ? 0 : 1;
        return !found;
      })) {
    return;
  }
  if (!found && !zset.Settled(r)) return;
  if (with_score) reply::ArrayHeader(r.out, 2);
  reply::Integer(r.out, reverse ? zset.count() - 1 - rank : rank);
  if (with_score) reply::Double(r.out, r.protocol(), FormatScore(*score));
}
void ZRank(Request& r) { Rank(r, false); }
void ZRevRank(Request& r) { Rank(r, true); }


// ZMSCORE key member [member ...]: one MultiGet.
void ZMScore(Request& r) {
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet)) return;
  const std::vector<std::string> members(r.args.begin() + 2, r.args.end());
  std::vector<std::optional<std::string>> raw;
  if (!zset.ReadMembers(r, members, &raw)) return;
  const bool missed = std::any_of(raw.begin(), raw.end(), [](auto& v) { return !v; });
  if (missed && !zset.Settled(r)) return;
  reply::ArrayHeader(r.out, raw.size());
  for (const std::optional<std::string>& v : raw) {
    v ? reply::Double(r.out, r.protocol(), FormatScore(ScoreOf(*v)))
      : reply::Null(r.out, r.protocol());
  }
}


// ZRANDMEMBER key [count [WITHSCORES]]: distinct members for a positive
// count, possibly repeated ones for a negative count, as in Redis.
void ZRandMember(Request& r) {
  int64_t count;
  bool with_scores;
  if (!ParseRandomCount(r, "withscores", &count, &with_scores)) return;
  const bool with_count = r.args.size() >= 3;
  Collection zset;
  std::vector<std::string> entries;
  if (!zset.Open(r, Keyspace::kZSet) || !AllEntries(r, zset, &entries)) return;
  if (!with_count) {
    if (entries.empty()) return reply::Null(r.out, r.protocol());
    return reply::Bulk(r.out, EntryMember(entries[RandomIndex(entries.size())]));
  }
  std::vector<std::string> picked;
  if (!entries.empty() && count < 0) {
    for (int64_t i = 0; i < -count; ++i) picked.push_back(entries[RandomIndex(entries.size())]);
  } else {
    Shuffle(&entries);
    entries.resize(std::min<size_t>(entries.size(), static_cast<size_t>(count)));
    picked = std::move(entries);
  }
  ReplyEntries(r, picked, with_scores);
}

}  // namespace

void AddZSetCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"zadd", -4, ZAdd},           {"zincrby", 4, ZIncrBy},   {"zrem", -3, ZRem},
      {"zscore", 3, ZScore},        {"zcard", 2, ZCard},       {"zrank", -3, ZRank},
      {"zrevrank", -3, ZRevRank},
      {"zmscore", -3, ZMScore},     {"zrandmember", -2, ZRandMember},
  });
}

}  // namespace teksdb::server
