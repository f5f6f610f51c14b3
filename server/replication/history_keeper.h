// HistoryKeeper: the server's ReplicationHistory (replication_history.h),
// shared by the primary's feeds, the replica's link and the commands, and
// kept in its file: every change is saved before it is seen.
//
// Thread safety: every member takes the keeper's mutex.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "replication_history.h"

namespace teksdb::server {

class HistoryKeeper {
 public:
  HistoryKeeper(std::string dir, ReplicationHistory history)
      : dir_(std::move(dir)), history_(std::move(history)) {}

  ReplicationHistory Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return history_;
  }
  // Applies `change` to a copy, saves it, and only then makes it the
  // history; an error (the file not written) changes nothing.
  ROCKSDB_NAMESPACE::Status Update(const std::function<void(ReplicationHistory*)>& change) {
    std::lock_guard<std::mutex> lock(mu_);
    ReplicationHistory changed = history_;
    change(&changed);
    ROCKSDB_NAMESPACE::Status s = changed.Save(dir_);
    if (s.ok()) history_ = std::move(changed);
    return s;
  }
  const std::string& dir() const { return dir_; }

 private:
  const std::string dir_;
  mutable std::mutex mu_;
  ReplicationHistory history_;
};

}  // namespace teksdb::server
