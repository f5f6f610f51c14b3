// Persistence commands of a single RocksDB-backed server, as
// a client of Redis 7.0 expects them: SAVE (flushes RocksDB's memtables to
// SST files; with the WAL every acknowledged write is already durable),
// BGSAVE (the same, not waited for), BGREWRITEAOF (the same again: the WAL
// is this server's append-only file, and a flush is what shortens the log
// a restart replays), LASTSAVE (the last SAVE or BGSAVE, or the start).
// SELECT's databases: database_commands.cc.
#include <chrono>

#include "commands.h"
#include "resp_reply.h"

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

// Starts a flush of the memtables, not waited for; false having replied a
// storage error.
bool StartFlush(Request& r) {
  ROCKSDB_NAMESPACE::FlushOptions options;
  options.wait = false;
  const ROCKSDB_NAMESPACE::Status s = r.server.db->Flush(options);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return true;
}

void BgSave(Request& r) {
  if (r.args.size() > 2 || (r.args.size() == 2 && r.args[1] != "SCHEDULE" && r.args[1] != "schedule")) {
    return reply::Error(r.out, kSyntaxError);
  }
  if (!StartFlush(r)) return;
  r.server.last_save_s = NowSeconds();
  reply::Simple(r.out, "Background saving started");
}

void BgRewriteAof(Request& r) {
  if (StartFlush(r)) reply::Simple(r.out, "Background append only file rewriting started");
}

void LastSave(Request& r) { reply::Integer(r.out, r.server.last_save_s.load()); }

}  // namespace

void AddPersistenceCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"save", 1, Save}, {"bgsave", -1, BgSave}, {"lastsave", 1, LastSave},
      {"bgrewriteaof", 1, BgRewriteAof},
  });
}

}  // namespace teksdb::server
