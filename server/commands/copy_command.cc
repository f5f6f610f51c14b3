// COPY source destination [DB db] [REPLACE] and RANDOMKEY, as Redis 7.0
// answers them. COPY of a string is one write; of a collection, a new
// version holding a copy of every member (and score index) record, O(n) as
// in Redis, the TTL kept. RANDOMKEY seeks to a random point of the key
// order and takes the next live key (wrapping around): every key can come
// out, though not each equally often.
#include <random>

#include "ascii_case.h"
#include "commands.h"
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
  if (!storage_format::IsCollection(from->type)) {
    batch.PutIn(db, destination, copy);
  } else {
    s = r.keyspace->NewVersion(&copy.version);
    if (s.ok()) {
      s = r.keyspace->ForEachMember(from->version, [&](const std::string& m, const std::string& v) {
        batch.PutMember(copy.version, m, v);
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
  std::string start(8, '\0');
  for (char& c : start) c = static_cast<char>(RandomIndex(256));
  std::optional<std::string> found;
  auto take = [&](const std::string& key, const Keyspace::Value&) {
    found = key;
    return false;
  };
  Status s = r.keyspace->ForEachKey(take, start);
  if (s.ok() && !found) s = r.keyspace->ForEachKey(take);
  if (!s.ok()) return ReplyStorageError(r, s);
  found ? reply::Bulk(r.out, *found) : reply::Null(r.out, r.protocol());
}

}  // namespace

void AddCopyCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"copy", -3, Copy}, {"randomkey", 1, RandomKey}});
}

}  // namespace teksdb::server
