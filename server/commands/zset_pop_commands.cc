// Sorted set pops and their blocking forms: ZPOPMIN ZPOPMAX ZMPOP BZPOPMIN
// BZPOPMAX BZMPOP, as Redis 7.0 answers them (the encoding: sorted_set.h;
// blocking: blocking.h). Pops lock every key they name, and read the score
// index from the end they pop, only as far as they pop. Run again after a
// wake (ClientState::block_rerun), a key of another type counts as empty:
// Redis serves a blocked client only from a sorted set.

#include "ascii_case.h"
#include "blocking.h"
#include "multi_pop_args.h"
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
    if (!(max ? zset.ForEachIndexEntryBackward(r, take) : zset.ForEachIndexEntry(r, take))) {
      return false;
    }
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
void MultiPop(Request& r, size_t at, bool blocking = false) {
  MultiPopArgs args;
  if (!ParseMultiPop(r, at, blocking, "min", "max", &args)) return;
  std::string key;
  std::vector<std::string> popped;
  if (!PopFirst(r, args.keys, !args.first_end, args.count, &key, &popped)) return;
  if (!key.empty()) return ReplyKeyAndEntries(r, key, popped);
  if (args.deadline_ms < 0) return reply::NullArray(r.out, r.protocol());
  BlockOrNull(r, args.keys, args.deadline_ms);
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
