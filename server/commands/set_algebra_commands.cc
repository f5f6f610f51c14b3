// Set algebra: SINTER SUNION SDIFF, their STORE forms, and SINTERCARD, as
// Redis 7.0 answers them: every key is type-checked first (WRONGTYPE), an
// absent key is an empty set, and a STORE replaces its destination (a new
// version, without a TTL) or deletes it when the result is empty.
//
// Thread safety: SINTER, SUNION, SDIFF and SINTERCARD read without locks
// (each set is checked for having been replaced under the read:
// Collection::Settled); the STORE forms lock the destination and every
// source, so the result is one state of the sources.
#include <algorithm>
#include <iterator>
#include <set>

#include "ascii_case.h"
#include "collection.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using Members = std::set<std::string>;
enum class Operation { kInter, kUnion, kDiff };

// The members of set `key` (none if absent); false, having replied
// (WRONGTYPE, a storage error) or set r.retry, when the command must stop.
bool ReadSet(Request& r, const std::string& key, bool* exists, Members* members) {
  Collection set;
  if (!set.Open(r, Keyspace::kSet, key)) return false;
  *exists = set.exists();
  if (!set.ForEach(r, [&](const std::string& m, const std::string&) {
        members->insert(m);
        return true;
      })) {
    return false;
  }
  return static_cast<int64_t>(members->size()) >= set.count() || set.Settled(r);
}

// `operation` over the sets named by keys; false having replied.
bool Combine(Request& r, Operation operation, const std::vector<std::string>& keys,
             Members* result) {
  std::vector<Members> sets(keys.size());
  bool any_absent = false;
  for (size_t i = 0; i < keys.size(); ++i) {
    bool exists;
    if (!ReadSet(r, keys[i], &exists, &sets[i])) return false;
    any_absent |= !exists;
  }
  if (operation == Operation::kInter && any_absent) return true;
  *result = std::move(sets[0]);
  for (size_t i = 1; i < sets.size(); ++i) {
    if (operation == Operation::kUnion) {
      result->insert(sets[i].begin(), sets[i].end());
      continue;
    }
    Members kept;
    const bool inter = operation == Operation::kInter;
    std::copy_if(result->begin(), result->end(), std::inserter(kept, kept.end()),
                 [&](const std::string& m) { return (sets[i].count(m) > 0) == inter; });
    *result = std::move(kept);
  }
  return true;
}

void Read(Request& r, Operation operation) {
  Members result;
  if (!Combine(r, operation, std::vector<std::string>(r.args.begin() + 1, r.args.end()), &result)) {
    return;
  }
  reply::SetHeader(r.out, r.protocol(), result.size());
  for (const std::string& m : result) reply::Bulk(r.out, m);
}

void Store(Request& r, Operation operation) {
  const std::string& destination = r.args[1];
  const std::vector<std::string> sources(r.args.begin() + 2, r.args.end());
  std::vector<std::string> locked = sources;
  locked.push_back(destination);
  auto locks = r.keyspace->LockKeys(locked);
  Members result;
  if (!Combine(r, operation, sources, &result)) return;
  Collection set;
  if (!set.Replace(r, Keyspace::kSet, destination)) return;
  for (const std::string& m : result) {
    bool existed;
    if (!set.PutMember(r, m, std::string(), &existed)) return;
  }
  if (set.Commit(r)) reply::Integer(r.out, static_cast<int64_t>(result.size()));
}

void SInter(Request& r) { Read(r, Operation::kInter); }
void SUnion(Request& r) { Read(r, Operation::kUnion); }
void SDiff(Request& r) { Read(r, Operation::kDiff); }
void SInterStore(Request& r) { Store(r, Operation::kInter); }
void SUnionStore(Request& r) { Store(r, Operation::kUnion); }
void SDiffStore(Request& r) { Store(r, Operation::kDiff); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void SInterCard(Request& r) {
  int64_t numkeys;
  if (!ParseStrictInt64(r.args[1], &numkeys) || numkeys <= 0) {
    return reply::Error(r.out, "ERR numkeys should be greater than 0");
  }
  if (numkeys > static_cast<int64_t>(r.args.size()) - 2) {
    return reply::Error(r.out, "ERR Number of keys can't be greater than number of args");
  }
  int64_t limit = 0;
  for (size_t i = 2 + numkeys; i < r.args.size(); i += 2) {
    if (AsciiLower(r.args[i]) != "limit" || i + 1 == r.args.size()) {
      return reply::Error(r.out, kSyntaxError);
    }
    if (!ParseStrictInt64(r.args[i + 1], &limit) || limit < 0) {
      return reply::Error(r.out, "ERR LIMIT can't be negative");
    }
  }
  Members result;
  const std::vector<std::string> keys(r.args.begin() + 2, r.args.begin() + 2 + numkeys);
  if (!Combine(r, Operation::kInter, keys, &result)) return;
  const int64_t n = static_cast<int64_t>(result.size());
  reply::Integer(r.out, limit > 0 ? std::min(n, limit) : n);
}

}  // namespace

void AddSetAlgebraCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"sinter", -2, SInter},           {"sunion", -2, SUnion},
      {"sdiff", -2, SDiff},             {"sinterstore", -3, SInterStore},
      {"sunionstore", -3, SUnionStore}, {"sdiffstore", -3, SDiffStore},
      {"sintercard", -3, SInterCard},
  });
}

}  // namespace teksdb::server
