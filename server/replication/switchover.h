// Switchover: FAILOVER, Redis 6.2's planned switchover of a primary to one
// of its replicas, on a thread of its own, without losing a write:
// 1. writes pause (paused() is true, and `hold_writers(true)` has the
//    command layer hold writers back: CLIENT PAUSE WRITE's mechanism,
//    client_pause.h) while the target replica (or, without
//    one, any online replica) acknowledges everything written;
// 2. that replica is promoted (REPLICAOF NO ONE on a connection of the
//    switchover's own, after AUTH with masterauth), and this server follows
//    it: having written nothing since, it continues the replica's history;
// 3. writes resume, to READONLY now.
// Past the timeout with no replica in sync it is aborted (FORCE: the target
// is promoted all the same); FAILOVER ABORT stops it while it waits.
//
// Thread safety: every public member may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "primary_auth.h"
#include "replica_feeds.h"
#include "rocksdb/db.h"

namespace teksdb::server {

class Switchover {
 public:
  struct Request {
    std::string host;  // empty: any online replica
    int port = 0;
    int64_t timeout_ms = 0;  // 0: none
    bool force = false;
  };
  // `follow`: makes this server a replica of host:port (Replication::Follow);
  // `hold_writers(held)`: writes pause (true, before Start returns) and
  // resume (false).
  Switchover(ROCKSDB_NAMESPACE::DB* db, ReplicaFeeds* feeds,
             std::function<bool(const std::string& host, int port)> follow,
             std::function<void(bool held)> hold_writers);
  ~Switchover();

  // Starts one; false with Redis's error when one is running.
  bool Start(Request request, const PrimaryAuth& auth, std::string* error);
  // FAILOVER ABORT: false when none waits.
  bool Abort();
  bool paused() const { return state_.load() != kNone; }
  // INFO's master_failover_state.
  const char* state_name() const;

 private:
  enum State { kNone, kWaitingForSync, kInProgress };
  void Run(Request request, PrimaryAuth auth);
  // The replica to promote once it has everything, or false.
  bool FindInSync(const Request& request, std::string* host, int* port) const;
  void Finish();

  ROCKSDB_NAMESPACE::DB* const db_;
  ReplicaFeeds* const feeds_;
  const std::function<bool(const std::string&, int)> follow_;
  const std::function<void(bool)> hold_writers_;
  std::atomic<int> state_{kNone};
  std::mutex mu_;
  std::condition_variable cv_;
  bool abort_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace teksdb::server
