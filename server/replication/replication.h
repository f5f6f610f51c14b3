// Replication: this server's role and what serves it, in one object that
// the commands (REPLICAOF, ROLE, REPLCONF, PSYNC, WAIT, INFO, CONFIG),
// the network layer (the PSYNC hand-over) and main.cc (start, the swap of
// a full sync's copy) share:
// - the history (history_keeper.h), in the data directory's file;
// - as a primary, or a replica with replicas of its own, the feeds of its
//   replicas (replica_feeds.h);
// - as a replica, the link to its primary (primary_link.h);
// - a planned switchover, FAILOVER (switchover.h).
// A primary starts a new history at every start (an unsynced tail it lost
// in a crash may have reached a replica: that replica must not resume as
// if nothing happened) and at every promotion.
//
// Settings that CONFIG SET changes at run time are atomics here.
//
// Thread safety: every public member may be called from any thread; role
// changes are serialized by role_mu_.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "history_keeper.h"
#include "primary_link.h"
#include "replica_feeds.h"
#include "rocksdb/db.h"
#include "switchover.h"

namespace teksdb::server {

class Replication {
 public:
  struct Options {
    std::string dir;     // the data directory; dir + ".sync", dir + ".checkpoints" beside it
    std::string format;  // the data format (both ends must read the same)
    std::string run_id;  // this process's
    int listening_port = 0;
    bool sync_writes = false;
    int64_t timeout_ms = 60000;
    PrimaryAuth auth;                  // CONFIG masteruser's and masterauth's first values
    int64_t max_bytes_per_second = 0;  // a full sync's rate's first value
  };
  struct Hooks {
    std::function<void(bool replica)> role_changed;  // after a change
    std::function<void()> copy_ready;  // a full sync's copy waits in sync_dir()
    // A replica applied one of its primary's batches (RocksDB's bytes).
    std::function<void(const std::string& batch)> applied;
    // A replica acknowledged: WAIT looks again.
    std::function<void()> progress;
    // FAILOVER holds writers back (true) until it is done (false).
    std::function<void(bool held)> hold_writers;
  };
  // Settings CONFIG reads and sets.
  struct Settings {
    std::atomic<int> replica_priority{100};
    std::atomic<int> min_replicas_to_write{0};
    std::atomic<int> min_replicas_max_lag{10};
  };

  Replication(ROCKSDB_NAMESPACE::DB* db, Options options, Hooks hooks);
  ~Replication();

  // At start: reads the history file (a new history where there is none),
  // and as a primary starts a new one; as a replica, connects.
  ROCKSDB_NAMESPACE::Status Start();

  bool replica() const { return replica_.load(std::memory_order_acquire); }
  // REPLICAOF host port; *already when it follows that primary now.
  ROCKSDB_NAMESPACE::Status Follow(const std::string& host, int port, bool* already);
  // REPLICAOF NO ONE.
  ROCKSDB_NAMESPACE::Status Promote();

  ReplicationHistory history() const { return history_->Get(); }
  // The link's state (a replica), or a link that never was.
  PrimaryLink::Info link_info() const;
  // Whether Sentinel may promote this replica: it holds its primary's
  // history (never an empty or half-synced copy).
  bool promotable() const;
  ReplicaFeeds& feeds() { return *feeds_; }
  // FAILOVER (switchover.h); writes wait while it holds them (Hooks).
  Switchover& switchover() { return *switchover_; }
  Settings& settings() { return settings_; }
  // CONFIG masterauth and masteruser.
  void set_masterauth(const std::string& password);
  void set_masteruser(const std::string& user);
  PrimaryAuth auth() const;
  // CONFIG bind-source-addr: the address the link to a primary leaves
  // from (empty: the system's choice).
  void set_bind_source_addr(const std::string& address);
  std::string bind_source_addr() const;
  // Whether writes may go on (min-replicas-to-write), as a primary.
  bool EnoughReplicas() const;

  // Where a full sync's copy arrives, and the swap that puts it in place of
  // `dir` (main.cc, with the database closed); also, at start, finishes a
  // swap that a crash cut off.
  static std::string SyncDir(const std::string& dir) { return dir + ".sync"; }
  static ROCKSDB_NAMESPACE::Status SwapInCopy(const std::string& dir);
  static ROCKSDB_NAMESPACE::Status FinishCutOffSwap(const std::string& dir);

 private:
  void StartLinkLocked();
  void StopLinkLocked();
  // A link up connects again (a new masteruser or masterauth).
  void RestartLinkLocked();

  ROCKSDB_NAMESPACE::DB* const db_;
  const Options options_;
  const Hooks hooks_;
  Settings settings_;
  std::unique_ptr<HistoryKeeper> history_;
  std::unique_ptr<ReplicaFeeds> feeds_;
  std::unique_ptr<Switchover> switchover_;
  std::atomic<bool> replica_{false};
  mutable std::mutex role_mu_;
  std::unique_ptr<PrimaryLink> link_;  // guarded by role_mu_
  PrimaryAuth auth_;                   // guarded by role_mu_
  std::string bind_source_addr_;       // guarded by role_mu_
};

}  // namespace teksdb::server
