// Sorted set pops and their blocking forms: ZPOPMIN ZPOPMAX ZMPOP BZPOPMIN
// BZPOPMAX BZMPOP, as Redis 7.0 answers them (the encoding: sorted_set.h;
// blocking: blocking.h). Pops lock every key they name, and read the score
// index from the end they pop, only as far as they pop. Run again after a
// wake (ClientState::block_rerun), a key of another type counts as empty:
// Redis serves a blocked client only from a sorted set.

#include "ascii_case.h"
#include "blocking.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

// Pops up to `count` entries, lowest or highest first, from the first of
// `keys` that holds a sorted set (*key empty: none does); false having
// replied an error.
bool PopFirst(Request& r, const std::vector<std::string>& keys, bool max, int64_t count,
              std::string* key, std::vector<std::string>* popped) {
  auto locks = r.keyspace->LockKeys(keys);
  for (const std::string& k : keys) {
    if (r.client.block_rerun) {
      std::optional<Keyspace::Value> v;
      const Status s = r.keyspace->Read(k, &v);
      if (!s.ok()) return ReplyStorageError(r, s), false;
      if (v && v->type != Keyspace::kZSet) continue;
    }
    Collection zset;
    if (!zset.Open(r, Keyspace::kZSet, k)) return false;
    if (!zset.exists()) continue;
    // Under the key's lock: the lowest entries forward, or the highest
    // backward, stopping at `count`.
    auto take = [&](const std::string& e) {
      popped->push_back(e);
      return static_cast<int64_t>(popped->size()) < count;
    };
    const Status s = max ? r.keyspace->ForEachIndexEntryBackward(zset.version(), take)
                         : r.keyspace->ForEachIndexEntry(zset.version(), take);
    if (!s.ok()) return ReplyStorageError(r, s), false;
    if (!RemoveEntries(r, &zset, *popped) || !zset.Commit(r)) return false;
    *key = k;
    return true;
  }
  return true;
}

// ZPOPMIN and ZPOPMAX key [count]
void Pop(Request& r, bool max) {
  if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
  int64_t count = 1;
  if (r.args.size() == 3 && (!ParseStrictInt64(r.args[2], &count) || count < 0)) {
    return reply::Error(r.out, "ERR value is out of range, must be positive");
  }
  std::string key;
  std::vector<std::string> popped;
  if (count > 0 && !PopFirst(r, {r.args[1]}, max, count, &key, &popped)) return;
  if (count == 0) {
    // Still a WRONGTYPE check, as in Redis.
    Collection zset;
    if (!zset.Open(r, Keyspace::kZSet)) return;
  }
  ReplyEntries(r, popped, true, /*flat=*/r.args.size() == 2);
}
void ZPopMin(Request& r) { Pop(r, false); }
void ZPopMax(Request& r) { Pop(r, true); }

// [key, [[member, score], ...]]
void ReplyKeyAndEntries(Request& r, const std::string& key, const std::vector<std::string>& popped) {
  reply::ArrayHeader(r.out, 2);
  reply::Bulk(r.out, key);
  reply::ArrayHeader(r.out, popped.size());
  for (const std::string& e : popped) {
    reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, EntryMember(e));
    reply::Double(r.out, r.protocol(), FormatScore(EntryScore(e)));
  }
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] from r.args[at]; without
// a sorted set, a null array or (the blocking form) blocks.
// (The blocking forms' timeout, r.args[1], is read after the rest, as in
// Redis.)
void MultiPop(Request& r, size_t at, bool blocking = false) {
  int64_t numkeys;
  if (!ParseStrictInt64(r.args[at], &numkeys) || numkeys <= 0) {
    return reply::Error(r.out, "ERR numkeys should be greater than 0");
  }
  const size_t end_at = at + 1 + static_cast<size_t>(numkeys);
  if (numkeys > static_cast<int64_t>(r.args.size()) || end_at >= r.args.size()) {
    return reply::Error(r.out, kSyntaxError);
  }
  const std::string end = AsciiLower(r.args[end_at]);
  if (end != "min" && end != "max") return reply::Error(r.out, kSyntaxError);
  int64_t count = -1;
  for (size_t i = end_at + 1; i < r.args.size(); ++i) {
    if (count != -1 || AsciiLower(r.args[i]) != "count" || i + 1 == r.args.size()) {
      return reply::Error(r.out, kSyntaxError);
    }
    if (!ParseStrictInt64(r.args[++i], &count) || count <= 0) {
      return reply::Error(r.out, "ERR count should be greater than 0");
    }
  }
  if (count == -1) count = 1;
  int64_t deadline_ms = -1;
  if (blocking && !ParseBlockTimeout(r, r.args[1], &deadline_ms)) return;
  const std::vector<std::string> keys(r.args.begin() + at + 1, r.args.begin() + end_at);
  std::string key;
  std::vector<std::string> popped;
  if (!PopFirst(r, keys, end == "max", count, &key, &popped)) return;
  if (!key.empty()) return ReplyKeyAndEntries(r, key, popped);
  if (deadline_ms < 0) return reply::NullArray(r.out, r.protocol());
  BlockOrNull(r, keys, deadline_ms);
}
void ZMPop(Request& r) { MultiPop(r, 1); }

void BZMPop(Request& r) { MultiPop(r, 2, true); }

// BZPOPMIN / BZPOPMAX key [key ...] timeout: [key, member, score].
void BlockingPop(Request& r, bool max) {
  int64_t deadline_ms;
  if (!ParseBlockTimeout(r, r.args.back(), &deadline_ms)) return;
  const std::vector<std::string> keys(r.args.begin() + 1, r.args.end() - 1);
  std::string key;
  std::vector<std::string> popped;
  if (!PopFirst(r, keys, max, 1, &key, &popped)) return;
  if (key.empty()) return BlockOrNull(r, keys, deadline_ms);
  reply::ArrayHeader(r.out, 3);
  reply::Bulk(r.out, key);
  reply::Bulk(r.out, EntryMember(popped.front()));
  reply::Double(r.out, r.protocol(), FormatScore(EntryScore(popped.front())));
}
void BZPopMin(Request& r) { BlockingPop(r, false); }
void BZPopMax(Request& r) { BlockingPop(r, true); }

}  // namespace

void AddZSetPopCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"zpopmin", -2, ZPopMin},   {"zpopmax", -2, ZPopMax},   {"zmpop", -4, ZMPop},
      {"bzpopmin", -3, BZPopMin}, {"bzpopmax", -3, BZPopMax}, {"bzmpop", -5, BZMPop},
  });
}

}  // namespace teksdb::server
