// StorageHealth: RocksDB's background error (a full disk, too many open
// files, an I/O error), watched and cleared without a restart.
//
// After such an error RocksDB refuses every write (each refusal names the
// cause: the replies say "ERR storage: IO error: No space left on
// device ..."); reads go on. This listener learns of the error
// (OnBackgroundError), keeps RocksDB from its own recovery (which for a
// full disk waits for 64 MiB free, checked every 5 s), and a thread of its
// own calls DB::Resume() every kRetryMs while the error stands: once the
// cause is gone, the memtables are flushed to new files and writes are
// taken again, within kRetryMs plus the flush. Writes refused meanwhile
// were answered with the error, never acknowledged; a batch whose WAL
// append failed reached no memtable, and the flush that Resume starts
// puts the WAL it was in behind the manifest, so nothing half written is
// replayed after a restart.
//
// INFO shows it (error(), errors(), recoveries()).
//
// Thread safety: the listener's callbacks run on RocksDB's threads; every
// member may be called from any thread (the error text under a mutex).
// Start and Stop bracket the database's life: Stop before it closes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "rocksdb/db.h"
#include "rocksdb/listener.h"

namespace teksdb::server {

class StorageHealth : public ROCKSDB_NAMESPACE::EventListener {
 public:
  static constexpr int kRetryMs = 200;

  ~StorageHealth() override;
  // Watches `db` (opened with this listener among its options).
  void Start(ROCKSDB_NAMESPACE::DB* db);
  // Ends the retries (joins the thread).
  void Stop();

  // The background error that stands, as RocksDB words it; empty: none.
  std::string error() const;
  uint64_t errors() const { return errors_.load(std::memory_order_relaxed); }
  uint64_t recoveries() const { return recoveries_.load(std::memory_order_relaxed); }

  void OnBackgroundError(ROCKSDB_NAMESPACE::BackgroundErrorReason reason,
                         ROCKSDB_NAMESPACE::Status* bg_error) override;
  void OnErrorRecoveryBegin(ROCKSDB_NAMESPACE::BackgroundErrorReason reason,
                            ROCKSDB_NAMESPACE::Status bg_error, bool* auto_recovery) override;
  void OnErrorRecoveryEnd(const ROCKSDB_NAMESPACE::BackgroundErrorRecoveryInfo& info) override;

 private:
  void Retry();
  // The error cleared: counted and logged, once. REQUIRES: mu_ held.
  void RecoveredLocked();

  ROCKSDB_NAMESPACE::DB* db_ = nullptr;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::string error_;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::thread retrier_;
  std::atomic<uint64_t> errors_{0}, recoveries_{0};
};

}  // namespace teksdb::server
