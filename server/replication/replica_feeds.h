// ReplicaFeeds: a primary's side of replication. Each replica that sent
// PSYNC gets a thread that owns its link (link_socket.h):
// - it continues the replica's history when it may (replication_history.h)
//   and the WAL still holds the replica's next sequence (wal_reader.h),
//   answering "+CONTINUE <replid>" and streaming batches;
// - otherwise it answers "+FULLRESYNC <replid> <sequence>" and ships a
//   RocksDB checkpoint (hard links, taken while writes go on) file by file
//   with checksums, skipping the files the replica already holds whole (a
//   sync cut off resumes), at most max_bytes_per_second; file deletions
//   stay disabled from the checkpoint until that replica (its address and
//   listening port) acknowledges its sequence (or sync_retention_ms passes), so the WAL the replica then
//   asks for is still there: a write burst during a sync cannot force
//   another one. The replica closes the link to swap its copy in, and
//   comes back asking to continue;
// - it reads the replica's acknowledgements (REPLCONF ACK), for WAIT and
//   min-replicas, and disconnects a replica silent for timeout_ms (so a
//   stalled replica holds nothing of the primary's for long).
//
// Thread safety: every public member may be called from any thread.
// The destructor disconnects every replica and joins its thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "history_keeper.h"
#include "link_socket.h"
#include "rocksdb/db.h"
#include "sync_files.h"
#include "wal_reader.h"

namespace teksdb::server {

// What a replica asked for (REPLCONF and PSYNC, from the command layer).
struct PsyncRequest {
  std::string replid;  // "?": none
  uint64_t next = 0;   // the first sequence it lacks
  int listening_port = 0;
  std::string format;  // the data format it reads (REPLCONF teksdb-format)
  // Its acknowledgements are of batches on disk (REPLCONF capa
  // teksdb-acks-on-disk: it syncs each batch), for WAITAOF.
  bool acks_on_disk = false;
  std::map<std::string, sync_files::FileSum> held;  // a cut-off sync's files

  // Reads REPLCONF teksdb-held's list ("name size checksum" lines); false
  // on a malformed one.
  bool ParseHeld(const std::string& listed);
};

class ReplicaFeeds {
 public:
  struct Options {
    std::string format;          // this server's data format
    std::string checkpoint_dir;  // where full syncs' checkpoints go (made, removed)
    int64_t max_bytes_per_second = 0;  // a full sync's rate; 0: unlimited
    int64_t timeout_ms = 60000;        // a replica silent this long is dropped
    int64_t sync_retention_ms = 300000;  // file deletions held after a sync at most
  };
  struct ReplicaInfo {
    uint64_t id = 0;
    std::string ip;
    int port = 0;
    std::string state;  // "wait_bgsave", "send_bulk", "online"
    uint64_t acked = 0;
    int64_t lag_s = 0;  // since its last acknowledgement
  };

  // `on_ack`: called (from a feed's thread) after each acknowledgement.
  ReplicaFeeds(ROCKSDB_NAMESPACE::DB* db, HistoryKeeper* history, Options options,
               std::function<void()> on_ack);
  ~ReplicaFeeds();
  ReplicaFeeds(const ReplicaFeeds&) = delete;
  ReplicaFeeds& operator=(const ReplicaFeeds&) = delete;

  // Takes over a replica's link after its PSYNC and serves it.
  void Serve(std::unique_ptr<LinkSocket> socket, PsyncRequest request);
  std::vector<ReplicaInfo> Replicas() const;
  // How many replicas are being fed (each holds a socket and a thread:
  // they count against maxclients, as Redis counts its replicas).
  size_t Count() const;
  // How many online replicas acknowledged `sequence` or later (`on_disk`:
  // of those whose acknowledgements are of batches on disk,
  // PsyncRequest::acks_on_disk).
  int CountAcked(uint64_t sequence, bool on_disk = false) const;
  // How many online replicas acknowledged within `max_lag_s` seconds.
  int CountInReach(int64_t max_lag_s) const;
  // Disconnects every replica (a demotion); they may come back.
  void DisconnectAll();
  // Sets a full sync's rate (CONFIG SET repl-max-mbps).
  void set_max_bytes_per_second(int64_t rate) { max_bytes_per_second_.store(rate); }
  int64_t max_bytes_per_second() const { return max_bytes_per_second_.load(); }

 private:
  struct Feed {
    uint64_t id = 0;
    std::string ip;
    int port = 0;
    std::unique_ptr<LinkSocket> socket;
    std::atomic<int> state{0};  // 0 wait_bgsave, 1 send_bulk, 2 online
    std::atomic<uint64_t> acked{0};
    bool acks_on_disk = false;  // set before the feed runs
    std::atomic<int64_t> last_ack_ms{0};
    std::atomic<bool> done{false};
    std::thread thread;
  };
  // A full sync's hold on file deletions, until the replica it was for
  // (its address and port) acknowledges `sequence`, or the deadline.
  struct Hold {
    uint64_t sequence;
    int64_t deadline_ms;
    std::string ip;
    int port;
  };

  void Run(Feed* feed, PsyncRequest request);
  // Ships a checkpoint; its sequence in *sequence.
  ROCKSDB_NAMESPACE::Status FullSync(Feed* feed, const PsyncRequest& request);
  ROCKSDB_NAMESPACE::Status SendFile(Feed* feed, const std::string& dir, const std::string& name,
                                     const sync_files::FileSum* held, uint64_t* sent_bytes,
                                     int64_t started_ms);
  ROCKSDB_NAMESPACE::Status Stream(Feed* feed, WalReader* reader,
                                   std::vector<ShippedBatch> batches);
  // Reads what acknowledgements came within wait_ms.
  ROCKSDB_NAMESPACE::Status ReadAcks(Feed* feed, int wait_ms);
  // Lets go of the holds that `feed`'s acknowledgement of `acked` (null:
  // none, only the time) has ended.
  void ReleaseHolds(const Feed* feed, uint64_t acked);
  // Joins the threads of feeds that ended. REQUIRES: mu_.
  void ReapLocked();

  ROCKSDB_NAMESPACE::DB* const db_;
  HistoryKeeper* const history_;
  const Options options_;
  const std::function<void()> on_ack_;
  std::atomic<int64_t> max_bytes_per_second_;
  mutable std::mutex mu_;
  std::list<std::unique_ptr<Feed>> feeds_;
  std::vector<Hold> holds_;
  uint64_t next_id_ = 0;
  bool stopping_ = false;
};

}  // namespace teksdb::server
