// Persistence and database commands of a single RocksDB-backed server, as
// a client of Redis 7.0 expects them: SAVE (flushes RocksDB's memtables to
// SST files; with the WAL every acknowledged write is already durable),
// BGSAVE (the same, not waited for), LASTSAVE (the last SAVE or BGSAVE, or
// the start), SWAPDB and MOVE (one database: only 0, and moving a key to
// the database it is in is Redis's error).
#include <chrono>

#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

int64_t NowSeconds() { return Keyspace::NowMs() / 1000; }

void Save(Request& r) {
  ROCKSDB_NAMESPACE::FlushOptions options;
  options.wait = true;
  const ROCKSDB_NAMESPACE::Status s = r.server.db->Flush(options);
  if (!s.ok()) return ReplyStorageError(r, s);
  r.server.last_save_s = NowSeconds();
  reply::Ok(r.out);
}

void BgSave(Request& r) {
  if (r.args.size() > 2 || (r.args.size() == 2 && r.args[1] != "SCHEDULE" && r.args[1] != "schedule")) {
    return reply::Error(r.out, kSyntaxError);
  }
  ROCKSDB_NAMESPACE::FlushOptions options;
  options.wait = false;
  const ROCKSDB_NAMESPACE::Status s = r.server.db->Flush(options);
  if (!s.ok()) return ReplyStorageError(r, s);
  r.server.last_save_s = NowSeconds();
  reply::Simple(r.out, "Background saving started");
}

void LastSave(Request& r) { reply::Integer(r.out, r.server.last_save_s.load()); }

void SwapDb(Request& r) {
  int64_t first, second;
  if (!ParseStrictInt64(r.args[1], &first)) return reply::Error(r.out, "ERR invalid first DB index");
  if (!ParseStrictInt64(r.args[2], &second)) {
    return reply::Error(r.out, "ERR invalid second DB index");
  }
  if (first != 0 || second != 0) return reply::Error(r.out, "ERR DB index is out of range");
  reply::Ok(r.out);
}

void Move(Request& r) {
  int64_t db;
  if (!ParseStrictInt64(r.args[2], &db)) return reply::Error(r.out, kNotInteger);
  if (db != 0) return reply::Error(r.out, "ERR DB index is out of range");
  reply::Error(r.out, "ERR source and destination objects are the same");
}

}  // namespace

void AddPersistenceCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"save", 1, Save},     {"bgsave", -1, BgSave},  {"lastsave", 1, LastSave},
      {"swapdb", 3, SwapDb}, {"move", 3, Move},
  });
}

}  // namespace teksdb::server
