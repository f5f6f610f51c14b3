// Set commands: SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD SPOP SMOVE
// SRANDMEMBER (set algebra: set_algebra_commands.cc). A set is a
// Collection (collection.h) of type 'S': a small one inside its meta record
// (an intset or a listpack), a large one a meta record (its version and
// member count) and one empty record per member under the set's version
// (keyspace.h). Writes run under the key's
// lock; an emptied set is deleted, as in Redis. Reads take no lock and
// check, after a miss or a short scan, that the set was not replaced under
// them (Collection::Settled).
#include <algorithm>

#include "collection.h"
#include "commands.h"
#include "random_count.h"
#include "random_choice.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

void SAdd(Request& r) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  if (!set.LoadPresence(r, std::vector<std::string>(r.args.begin() + 2, r.args.end()))) return;
  int64_t added = 0;
  for (size_t i = 2; i < r.args.size(); ++i) {
    bool existed;
    if (!set.PutMember(r, r.args[i], "", &existed)) return;
    added += existed ? 0 : 1;
  }
  if (set.Commit(r)) reply::Integer(r.out, added);
}

void SRem(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection set;
  int64_t removed;
  if (set.Open(r, Keyspace::kSet) && set.DeleteListed(r, &removed) && set.Commit(r)) {
    reply::Integer(r.out, removed);
  }
}

void SMembers(Request& r) {
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  std::vector<std::string> members;
  if (!set.ForEach(r, [&](const std::string& m, const std::string&) {
        members.push_back(m);
        return true;
      })) {
    return;
  }
  if (!set.WholeReadSettled(r, static_cast<int64_t>(members.size()))) return;
  reply::SetHeader(r.out, r.protocol(), members.size());
  for (const std::string& m : members) reply::Bulk(r.out, m);
}

void SIsMember(Request& r) {
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  std::optional<std::string> value;
  if (!set.ReadMemberUnlocked(r, r.args[2], &value)) return;
  reply::Integer(r.out, value ? 1 : 0);
}

void SMIsMember(Request& r) {
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  const std::vector<std::string> members(r.args.begin() + 2, r.args.end());
  std::vector<std::optional<std::string>> values;
  if (!set.ReadMembers(r, members, &values)) return;
  const bool missed = std::any_of(values.begin(), values.end(), [](auto& v) { return !v; });
  if (missed && !set.Settled(r)) return;
  reply::ArrayHeader(r.out, values.size());
  for (const std::optional<std::string>& v : values) reply::Integer(r.out, v ? 1 : 0);
}

void SCard(Request& r) {
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  reply::Integer(r.out, set.count());
}

// SPOP key [count]: random members, removed.
void SPop(Request& r) {
  if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
  int64_t want = 1;
  if (r.args.size() == 3) {
    if (!ParseStrictInt64(r.args[2], &want) || want < 0) {
      return reply::Error(r.out, "ERR value is out of range, must be positive");
    }
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  if (!set.exists()) {
    return r.args.size() == 3 ? reply::SetHeader(r.out, r.protocol(), 0)
                              : reply::Null(r.out, r.protocol());
  }
  std::vector<std::string> members;
  if (!set.ForEach(r, [&](const std::string& m, const std::string&) {
        members.push_back(m);
        return true;
      })) {
    return;
  }
  Shuffle(&members);
  members.resize(std::min<size_t>(members.size(), static_cast<size_t>(want)));
  for (const std::string& m : members) {
    bool existed;
    if (!set.DeleteMember(r, m, &existed)) return;
  }
  if (!set.Commit(r)) return;
  if (r.args.size() == 2) return reply::Bulk(r.out, members.front());
  reply::SetHeader(r.out, r.protocol(), members.size());
  for (const std::string& m : members) reply::Bulk(r.out, m);
}

// SMOVE source destination member
void SMove(Request& r) {
  const std::string& member = r.args[3];
  auto locks = r.keyspace->LockKeys({r.args[1], r.args[2]});
  Collection source, destination;
  if (!source.Open(r, Keyspace::kSet, r.args[1])) return;
  if (!source.exists()) return reply::Integer(r.out, 0);
  if (!destination.Open(r, Keyspace::kSet, r.args[2])) return;
  std::optional<std::string> present;
  if (r.args[1] == r.args[2]) {
    if (source.ReadMember(r, member, &present)) reply::Integer(r.out, present ? 1 : 0);
    return;
  }
  bool existed;
  if (!source.DeleteMember(r, member, &existed)) return;
  if (!existed) return reply::Integer(r.out, 0);
  if (!destination.PutMember(r, member, std::string(), &existed)) return;
  // A member the destination holds already leaves it untouched (WATCH,
  // notifications), as in Redis.
  if (source.Commit(r) && (existed || destination.Commit(r))) reply::Integer(r.out, 1);
}

// SRANDMEMBER key [count]: distinct members for a positive count, possibly
// repeated ones for a negative count, as in Redis.
void SRandMember(Request& r) {
  int64_t count;
  bool unused;
  if (!ParseRandomCount(r, nullptr, &count, &unused)) return;
  const bool with_count = r.args.size() == 3;
  Collection set;
  if (!set.Open(r, Keyspace::kSet)) return;
  std::vector<std::string> members;
  if (!set.ForEach(r, [&](const std::string& m, const std::string&) {
        members.push_back(m);
        return true;
      })) {
    return;
  }
  if (static_cast<int64_t>(members.size()) < set.count() && !set.Settled(r)) return;
  if (!with_count) {
    if (members.empty()) return reply::Null(r.out, r.protocol());
    return reply::Bulk(r.out, members[RandomIndex(members.size())]);
  }
  std::vector<std::string> picked;
  if (!members.empty() && count < 0) {
    for (int64_t i = 0; i < -count; ++i) picked.push_back(members[RandomIndex(members.size())]);
  } else {
    Shuffle(&members);
    members.resize(std::min<size_t>(members.size(), static_cast<size_t>(count)));
    picked = std::move(members);
  }
  reply::ArrayHeader(r.out, picked.size());
  for (const std::string& m : picked) reply::Bulk(r.out, m);
}

}  // namespace

void AddSetCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"sadd", -3, SAdd},        {"srem", -3, SRem},   {"smembers", 2, SMembers},
      {"sismember", 3, SIsMember}, {"smismember", -3, SMIsMember},
      {"smove", 4, SMove},       {"srandmember", -2, SRandMember}, {"scard", 2, SCard}, {"spop", -2, SPop},
  });
}

}  // namespace teksdb::server
