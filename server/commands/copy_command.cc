// COPY source destination [DB db] [REPLACE] and RANDOMKEY, as Redis 7.0
// answers them. COPY of a string is one write; of a collection, a new
// version holding a copy of every member (and score index) record, O(n) as
// in Redis, the TTL kept (and a hash's field deadlines: a listpackex gets a
// due version of its own). RANDOMKEY draws from the live keys that follow a
// random point of the key order (RandomKey says how evenly).
#include <algorithm>
#include <random>

#include "ascii_case.h"
#include "commands.h"
#include "compact_members.h"
#include "database_selection.h"
#include "random_choice.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

void Copy(Request& r) {
  bool replace = false;
  int db = r.keyspace->database();
  for (size_t i = 3; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "replace") {
      replace = true;
    } else if (opt == "db" && i + 1 < r.args.size()) {
      if (!ParseDatabaseIndex(r, r.args[++i], &db)) return;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  const std::string& source = r.args[1];
  const std::string& destination = r.args[2];
  if (source == destination && db == r.keyspace->database()) {
    return reply::Error(r.out, "ERR source and destination objects are the same");
  }
  auto locks = r.keyspace->LockKeys({source, destination});
  std::optional<Keyspace::Value> from, to;
  Status s = r.keyspace->Read(source, &from);
  if (s.ok() && from) s = r.keyspace->InDatabase(db).Read(destination, &to);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!from || (to && !replace)) return reply::Integer(r.out, 0);
  Keyspace::Batch batch;
  Keyspace::Value copy = *from;
  const bool listpack_ex = from->version == 0 && compact_members::DueVersion(from->payload) != 0;
  // A string, or a compact collection: the meta record holds it all.
  if (!storage_format::IsCollection(from->type) || (from->version == 0 && !listpack_ex)) {
    batch.PutIn(db, destination, copy);
  } else if (listpack_ex) {
    // A listpackex: its fields' deadlines get due entries of a due version
    // of the copy's own.
    uint64_t due_version;
    s = r.keyspace->NewVersion(&due_version);
    if (!s.ok()) return ReplyStorageError(r, s);
    compact_members::SetDueVersion(&copy.payload, due_version);
    compact_members::Reader reader(copy.payload);
    ROCKSDB_NAMESPACE::Slice field, stored;
    while (reader.Next(&field, &stored)) {
      const int64_t deadline = compact_members::DeadlineOf(stored);
      if (deadline != 0) batch.PutDue(deadline, due_version, field.ToString());
    }
    batch.PutNewIn(db, destination, copy);
  } else {
    s = r.keyspace->NewVersion(&copy.version);
    if (s.ok()) {
      // (A hash's field deadlines come along.)
      s = r.keyspace->ForEachMemberWithDeadline(
          from->version, [&](const std::string& m, const std::string& v, int64_t deadline) {
            batch.PutMember(copy.version, m, v);
            if (deadline != 0) batch.PutDeadline(copy.version, m, deadline);
            return true;
          });
    }
    if (s.ok() && from->type == Keyspace::kZSet) {
      s = r.keyspace->ForEachIndexEntry(from->version, [&](const std::string& e) {
        batch.PutIndex(copy.version, e);
        return true;
      });
    }
    if (!s.ok()) return ReplyStorageError(r, s);
    batch.PutNewIn(db, destination, copy);
  }
  s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, 1);
}

void RandomKey(Request& r) {
  // Up to kSample keys from a random point of the key order on (wrapping
  // around), one of them drawn: a database of up to kSample keys is drawn
  // from evenly; a larger one favours keys after wide gaps less than a
  // single seek would.
  constexpr size_t kSample = 64;
  std::string start(8, '\0');
  for (char& c : start) c = static_cast<char>(RandomIndex(256));
  std::vector<std::string> sample;
  auto take = [&](const std::string& key, const Keyspace::Value&) {
    if (std::find(sample.begin(), sample.end(), key) != sample.end()) return false;
    sample.push_back(key);
    return sample.size() < kSample;
  };
  Status s = r.keyspace->ForEachKey(take, start);
  if (s.ok() && sample.size() < kSample) s = r.keyspace->ForEachKey(take);
  if (!s.ok()) return ReplyStorageError(r, s);
  sample.empty() ? reply::Null(r.out, r.protocol())
                 : reply::Bulk(r.out, sample[RandomIndex(sample.size())]);
}

}  // namespace

void AddCopyCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"copy", -3, Copy}, {"randomkey", 1, RandomKey}});
}

}  // namespace teksdb::server
