// StorageHealth implementation: the listener's callbacks and the thread
// that calls DB::Resume().
#include "storage_health.h"

#include <chrono>
#include <cstdio>

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

StorageHealth::~StorageHealth() { Stop(); }

void StorageHealth::Start(ROCKSDB_NAMESPACE::DB* db) {
  db_ = db;
  retrier_ = std::thread([this] { Retry(); });
}

void StorageHealth::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (retrier_.joinable()) retrier_.join();
}

std::string StorageHealth::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void StorageHealth::OnBackgroundError(ROCKSDB_NAMESPACE::BackgroundErrorReason,
                                      Status* bg_error) {
  if (bg_error->ok()) return;
  errors_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.empty()) return;
    error_ = bg_error->ToString();
  }
  std::fprintf(stderr, "teksdb-server: storage: %s; resuming every %d ms until it clears\n",
               bg_error->ToString().c_str(), kRetryMs);
  wake_.notify_all();
}

void StorageHealth::OnErrorRecoveryBegin(ROCKSDB_NAMESPACE::BackgroundErrorReason, Status,
                                         bool* auto_recovery) {
  // Retry() resumes as soon as the cause clears, however little space.
  *auto_recovery = false;
}

void StorageHealth::OnErrorRecoveryEnd(const ROCKSDB_NAMESPACE::BackgroundErrorRecoveryInfo& info) {
  if (!info.new_bg_error.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  RecoveredLocked();
}

void StorageHealth::RecoveredLocked() {
  if (error_.empty()) return;
  error_.clear();
  recoveries_.fetch_add(1, std::memory_order_relaxed);
  std::fprintf(stderr, "teksdb-server: storage: recovered; writes are taken again\n");
}

void StorageHealth::Retry() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (error_.empty()) {
      wake_.wait(lock);
      continue;
    }
    wake_.wait_for(lock, std::chrono::milliseconds(kRetryMs));
    if (stopping_ || error_.empty()) continue;
    lock.unlock();
    const Status s = db_->Resume();
    lock.lock();
    if (s.ok()) RecoveredLocked();
  }
}

}  // namespace teksdb::server
