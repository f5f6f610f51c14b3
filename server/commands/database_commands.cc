// SELECT's 16 databases: SELECT, MOVE and SWAPDB, as Redis 7.0 answers
// them. A connection's view reads and writes the database it SELECTed
// (keyspace.h); MOVE rewrites the key's meta record into the other
// database, pointing a collection's owner record there, so it is O(1)
// whatever the key holds; SWAPDB exchanges the two databases' slots
// (storage_format.h), O(1) too, holding the whole keyspace.
#include "commands.h"
#include "database_selection.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

void Select(Request& r) {
  int db;
  if (!ParseDatabaseIndex(r, r.args[1], &db)) return;
  SelectDatabase(r, db);
  reply::Ok(r.out);
}

void Move(Request& r) {
  const std::string& key = r.args[1];
  int target;
  if (!ParseDatabaseIndex(r, r.args[2], &target)) return;
  if (target == r.keyspace->database()) {
    return reply::Error(r.out, "ERR source and destination objects are the same");
  }
  auto locks = r.keyspace->LockKeys({key});  // the key's stripe, in every database
  std::optional<Keyspace::Value> v, existing;
  Status s = r.keyspace->Read(key, &v);
  if (s.ok() && v) s = r.keyspace->InDatabase(target).Read(key, &existing);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v || existing) return reply::Integer(r.out, 0);
  Keyspace::Batch batch;
  batch.Delete(key);
  // A collection's version now belongs to the key in `target`.
  storage_format::IsCollection(v->type) ? batch.PutNewIn(target, key, *v)
                                        : batch.PutIn(target, key, *v);
  s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, 1);
}

void SwapDb(Request& r) {
  int a, b;
  if (!ParseCInt(r.args[1], &a)) return reply::Error(r.out, "ERR invalid first DB index");
  if (!ParseCInt(r.args[2], &b)) return reply::Error(r.out, "ERR invalid second DB index");
  if (!IsDatabaseIndex(a) || !IsDatabaseIndex(b)) return reply::Error(r.out, kDatabaseOutOfRange);
  // Inside EXEC or a script the transaction holds the whole keyspace
  // already (command_info.cc marks SWAPDB so).
  const bool own_transaction = !r.keyspace->InTransaction();
  if (own_transaction) r.keyspace->BeginTransaction({}, /*whole_keyspace=*/true);
  const Status s = r.keyspace->SwapDatabases(a, b);
  if (own_transaction) r.keyspace->EndTransaction();
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Ok(r.out);
}

}  // namespace

void AddDatabaseCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"select", 2, Select}, {"move", 3, Move}, {"swapdb", 3, SwapDb}});
}

}  // namespace teksdb::server
