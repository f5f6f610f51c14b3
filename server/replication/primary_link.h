// PrimaryLink: a replica's side of replication, on its own thread. It
// connects to the primary, says who it is (AUTH with masterauth,
// REPLCONF listening-port, its run id, its data format, the files of a
// cut-off sync it holds), and asks to continue its history from its next sequence
// (PSYNC). Then either
// - "+CONTINUE <replid>": it adopts the primary's history id and applies
//   the primary's batches as they come (wal_applier.h), acknowledging the
//   sequence applied (REPLCONF ACK) after each burst and every second; or
// - "+FULLRESYNC <replid> <sequence>": it receives the primary's checkpoint
//   into sync_dir, checking each file's size and checksum, keeps serving
//   its old data meanwhile, and once the copy is whole writes the history
//   into it and calls on_copy_ready, which swaps the copy in (the server
//   reopens its database; main.cc) and ends the link.
// A lost link, a refused handshake, or a batch that does not follow is
// retried after a pause (the primary decides again what the replica
// needs). The last error is kept for INFO.
//
// Thread safety: Info may be called from any thread; Stop from any thread
// but the link's. The destructor stops and joins.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "history_keeper.h"
#include "link_socket.h"
#include "primary_auth.h"
#include "rocksdb/db.h"

namespace teksdb::server {

class PrimaryLink {
 public:
  struct Options {
    std::string format;      // the data format this server reads
    std::string run_id;      // this process's (a primary refuses itself)
    int listening_port = 0;  // announced to the primary (INFO's slaveN)
    std::string sync_dir;    // where a full sync's copy is received
    PrimaryAuth auth;  // masteruser and masterauth
    std::string bind_source_addr;  // the address to connect from, or empty
    bool sync_writes = false;  // each batch on disk before it is acknowledged
    int64_t timeout_ms = 60000;  // a primary silent this long is dropped
  };
  struct Info {
    bool up = false;
    bool syncing = false;        // a full sync is being received
    uint64_t sync_bytes = 0;     // received so far in it
    int64_t last_io_ms = 0;      // steady clock; 0: never
    int64_t down_since_ms = 0;   // steady clock
    bool synced_once = false;    // continued the primary's history at least once
    std::string last_error;
  };

  // `on_applied`: called (on the link's thread) with each batch applied.
  PrimaryLink(ROCKSDB_NAMESPACE::DB* db, HistoryKeeper* history, Options options,
              std::function<void()> on_copy_ready,
              std::function<void(const std::string& batch)> on_applied);
  ~PrimaryLink();
  PrimaryLink(const PrimaryLink&) = delete;
  PrimaryLink& operator=(const PrimaryLink&) = delete;

  void Stop();
  Info info() const;

 private:
  void Run();
  // One connection, from connect to its end; true when the link must end
  // (a copy is ready, or Stop).
  bool Session();
  ROCKSDB_NAMESPACE::Status Handshake(LinkSocket* link, std::string* reply);
  ROCKSDB_NAMESPACE::Status Stream(LinkSocket* link);
  // Receives a full sync; true in *ready once the copy is whole.
  ROCKSDB_NAMESPACE::Status ReceiveCopy(LinkSocket* link, const std::string& replid,
                                       uint64_t sequence, bool* ready);
  void SetError(const std::string& error);
  void Pause(int ms);

  ROCKSDB_NAMESPACE::DB* const db_;
  HistoryKeeper* const history_;
  const Options options_;
  const std::function<void()> on_copy_ready_;
  const std::function<void(const std::string&)> on_applied_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  LinkSocket* link_ = nullptr;  // the connection now, for Stop's Shutdown
  Info info_;
  std::thread thread_;
};

}  // namespace teksdb::server
