// Sorted set algebra: ZUNION ZINTER ZDIFF, their STORE forms, and
// ZINTERCARD, as Redis 7.0's zunionInterDiffGenericCommand answers them:
// sources may be sorted sets or sets (every member scored 1), an absent
// key is empty, WEIGHTS multiply scores (NaN counts as 0), AGGREGATE
// SUM|MIN|MAX combines them, results in (score, member) order. The STORE
// forms replace their destination (a new version) or delete it when the
// result is empty. Reads take no lock (each source is checked for having
// been replaced under the read); the STORE forms lock every key.
#include <algorithm>
#include <cmath>
#include <map>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;
using Scores = std::map<std::string, double>;
enum class Operation { kUnion, kInter, kDiff };

// Members and scores of `key`, a sorted set or a set (absent: none).
bool ReadScores(Request& r, const std::string& key, bool* exists, Scores* scores) {
  std::optional<Keyspace::Value> meta;
  const Status s = r.keyspace->Read(key, &meta);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  *exists = meta.has_value();
  if (!meta) return true;
  if (meta->type != Keyspace::kZSet && meta->type != Keyspace::kSet) {
    return reply::Error(r.out, kWrongType), false;
  }
  Collection collection;
  if (!collection.Open(r, meta->type, key)) return false;
  const bool zset = meta->type == Keyspace::kZSet;
  if (!collection.ForEach(r, [&](const std::string& m, const std::string& value) {
        (*scores)[m] = zset ? ScoreOf(value) : 1.0;
        return true;
      })) {
    return false;
  }
  return static_cast<int64_t>(scores->size()) >= collection.count() || collection.Settled(r);
}

double Weighted(double score, double weight) {
  const double v = score * weight;
  return std::isnan(v) ? 0 : v;
}

// The command's parts, from r.args[at] (numkeys) on.
struct Parsed {
  std::vector<std::string> keys;
  std::vector<double> weights;
  char aggregate = 's';  // s(um), m(in), M(ax)
  bool with_scores = false;
  int64_t limit = 0;  // ZINTERCARD
};

// Reads numkeys and the keys (Redis then reads the keys' types, then the
// options); false having replied.
bool ParseKeys(Request& r, size_t at, const char* name, Parsed* p) {
  int64_t numkeys;
  if (!ParseStrictInt64(r.args[at], &numkeys)) return reply::Error(r.out, kNotInteger), false;
  if (numkeys < 1) {
    return reply::Error(r.out, std::string("ERR at least 1 input key is needed for '") + name +
                                   "' command"), false;
  }
  if (numkeys > static_cast<int64_t>(r.args.size() - at - 1)) {
    return reply::Error(r.out, kSyntaxError), false;
  }
  p->keys.assign(r.args.begin() + at + 1, r.args.begin() + at + 1 + numkeys);
  p->weights.assign(p->keys.size(), 1.0);
  return true;
}

bool ParseOptions(Request& r, size_t from, Operation op, bool store, Parsed* p) {
  for (size_t i = from; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    const size_t left = r.args.size() - i - 1;
    if (op != Operation::kDiff && opt == "weights" && left >= p->keys.size()) {
      for (size_t k = 0; k < p->keys.size(); ++k) {
        if (!ParseScore(r.args[++i], &p->weights[k])) {
          return reply::Error(r.out, "ERR weight value is not a float"), false;
        }
      }
    } else if (op != Operation::kDiff && opt == "aggregate" && left >= 1) {
      const std::string how = AsciiLower(r.args[++i]);
      if (how != "sum" && how != "min" && how != "max") return reply::Error(r.out, kSyntaxError), false;
      p->aggregate = how == "sum" ? 's' : (how == "min" ? 'm' : 'M');
    } else if (!store && opt == "withscores") {
      p->with_scores = true;
    } else {
      return reply::Error(r.out, kSyntaxError), false;
    }
  }
  return true;
}

// The sources' scores (all read, types checked), then combined.
bool Combine(Request& r, Operation op, const Parsed& p, Scores* result) {
  std::vector<Scores> sources(p.keys.size());
  bool any_absent = false;
  for (size_t k = 0; k < p.keys.size(); ++k) {
    bool exists;
    if (!ReadScores(r, p.keys[k], &exists, &sources[k])) return false;
    any_absent |= !exists;
  }
  if (op == Operation::kInter && any_absent) return true;
  for (const auto& [member, score] : sources[0]) {
    double total = Weighted(score, p.weights[0]);
    bool keep = true;
    for (size_t k = 1; k < sources.size() && keep; ++k) {
      const auto it = sources[k].find(member);
      if (op == Operation::kDiff) {
        keep = it == sources[k].end();
      } else if (it == sources[k].end()) {
        keep = op == Operation::kUnion;
      } else {
        const double v = Weighted(it->second, p.weights[k]);
        total = p.aggregate == 's' ? total + v : (p.aggregate == 'm' ? std::min(total, v) : std::max(total, v));
        if (std::isnan(total)) total = 0;
      }
    }
    if (keep) (*result)[member] = total;
  }
  if (op != Operation::kUnion) return true;
  for (size_t k = 1; k < sources.size(); ++k) {
    for (const auto& [member, score] : sources[k]) {
      if (result->count(member) > 0) continue;
      // First seen in source k: aggregate over sources k.. that hold it.
      double total = Weighted(score, p.weights[k]);
      for (size_t l = k + 1; l < sources.size(); ++l) {
        const auto it = sources[l].find(member);
        if (it == sources[l].end()) continue;
        const double v = Weighted(it->second, p.weights[l]);
        total = p.aggregate == 's' ? total + v : (p.aggregate == 'm' ? std::min(total, v) : std::max(total, v));
        if (std::isnan(total)) total = 0;
      }
      (*result)[member] = total;
    }
  }
  return true;
}

// WRONGTYPE if a source is neither a sorted set nor a set.
bool CheckTypes(Request& r, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    std::optional<Keyspace::Value> meta;
    const Status s = r.keyspace->Read(key, &meta);
    if (!s.ok()) return ReplyStorageError(r, s), false;
    if (meta && meta->type != Keyspace::kZSet && meta->type != Keyspace::kSet) {
      return reply::Error(r.out, kWrongType), false;
    }
  }
  return true;
}

std::vector<std::string> Ordered(const Scores& scores) {
  std::vector<std::string> entries;
  for (const auto& [member, score] : scores) entries.push_back(IndexEntry(score, member));
  std::sort(entries.begin(), entries.end());
  return entries;
}

void Read(Request& r, Operation op, const char* name) {
  Parsed p;
  Scores result;
  if (!ParseKeys(r, 1, name, &p)) return;
  // Redis checks the sources' types before it reads the options.
  if (!CheckTypes(r, p.keys)) return;
  if (!ParseOptions(r, 2 + p.keys.size(), op, false, &p) || !Combine(r, op, p, &result)) return;
  ReplyEntries(r, Ordered(result), p.with_scores);
}

void Store(Request& r, Operation op, const char* name) {
  Parsed p;
  Scores result;
  if (!ParseKeys(r, 2, name, &p)) return;
  std::vector<std::string> locked = p.keys;
  locked.push_back(r.args[1]);
  auto locks = r.keyspace->LockKeys(locked);
  if (!CheckTypes(r, p.keys)) return;
  if (!ParseOptions(r, 3 + p.keys.size(), op, true, &p) || !Combine(r, op, p, &result)) return;
  Collection stored;
  if (!stored.Replace(r, Keyspace::kZSet, r.args[1])) return;
  for (const auto& [member, score] : result) {
    if (!SetScore(r, &stored, member, score, std::nullopt)) return;
  }
  if (stored.Commit(r)) reply::Integer(r.out, static_cast<int64_t>(result.size()));
}

void ZUnion(Request& r) { Read(r, Operation::kUnion, "zunion"); }
void ZInter(Request& r) { Read(r, Operation::kInter, "zinter"); }
void ZDiff(Request& r) { Read(r, Operation::kDiff, "zdiff"); }
void ZUnionStore(Request& r) { Store(r, Operation::kUnion, "zunionstore"); }
void ZInterStore(Request& r) { Store(r, Operation::kInter, "zinterstore"); }
void ZDiffStore(Request& r) { Store(r, Operation::kDiff, "zdiffstore"); }

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
void ZInterCard(Request& r) {
  Parsed p;
  if (!ParseKeys(r, 1, "zintercard", &p) || !CheckTypes(r, p.keys)) return;
  for (size_t i = 2 + p.keys.size(); i < r.args.size(); i += 2) {
    if (AsciiLower(r.args[i]) != "limit" || i + 1 == r.args.size()) {
      return reply::Error(r.out, kSyntaxError);
    }
    if (!ParseStrictInt64(r.args[i + 1], &p.limit) || p.limit < 0) {
      return reply::Error(r.out, "ERR LIMIT can't be negative");
    }
  }
  Scores result;
  if (!Combine(r, Operation::kInter, p, &result)) return;
  const int64_t n = static_cast<int64_t>(result.size());
  reply::Integer(r.out, p.limit > 0 ? std::min(n, p.limit) : n);
}

}  // namespace

void AddZSetAlgebraCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"zunion", -3, ZUnion},           {"zinter", -3, ZInter},
      {"zdiff", -3, ZDiff},             {"zunionstore", -4, ZUnionStore},
      {"zinterstore", -4, ZInterStore}, {"zdiffstore", -4, ZDiffStore},
      {"zintercard", -3, ZInterCard},
  });
}

}  // namespace teksdb::server
