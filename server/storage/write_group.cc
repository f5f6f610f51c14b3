// WriteGroup implementation: staging, the stripes held, the flush and the
// rewrite of replies a failed flush cannot vouch for.
#include "write_group.h"

#include <algorithm>

#include "resp_reply.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

WriteGroup::WriteGroup(std::string* out) : out_(out) {}

Status WriteGroup::Stage(const ROCKSDB_NAMESPACE::WriteBatch& writes,
                         std::vector<std::string> merged_values, bool sets_expiry) {
  if (!abandoned_.empty()) return Status::Aborted("the server is shutting down");
  sets_expiry_ |= sets_expiry;
  return staged_.Add(writes, std::move(merged_values));
}

bool WriteGroup::Holds(size_t s) const {
  return std::any_of(held_.begin(), held_.end(), [s](const auto& h) { return h.first == s; });
}

bool WriteGroup::TryTake(std::mutex& stripe, size_t s) {
  std::unique_lock<std::mutex> lock(stripe, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  held_.emplace_back(s, std::move(lock));
  return true;
}

void WriteGroup::Take(std::mutex* stripes, const std::vector<size_t>& sorted) {
  for (size_t s : sorted) held_.emplace_back(s, std::unique_lock<std::mutex>(stripes[s]));
}

void WriteGroup::ReplaceVouched(const std::string& reply) {
  for (auto it = vouched_replies_.rbegin(); it != vouched_replies_.rend(); ++it) {
    out_->replace(it->first, it->second - it->first, reply);
  }
  vouched_replies_.clear();
}

void WriteGroup::EndCommand() {
  if (!abandoned_.empty()) {  // the command's reply too: nothing it did stays
    out_->replace(command_reply_start_, out_->size() - command_reply_start_, abandoned_);
  } else if (staged()) {
    vouched_replies_.emplace_back(command_reply_start_, out_->size());
  }
}

void WriteGroup::Abandon(const std::string& error) {
  abandoned_.clear();
  reply::Error(&abandoned_, error);
  staged_.Clear();
  written_.clear();
  sets_expiry_ = false;
  ReplaceVouched(abandoned_);
}

Status WriteGroup::Flush(ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::WriteOptions& options,
                         bool* set_expiry) {
  *set_expiry = false;
  Status s;
  if (staged()) {
    s = db->Write(options, staged_.batch());
    *set_expiry = s.ok() && sets_expiry_;
    if (!s.ok()) {
      std::string error;
      reply::Error(&error, "ERR storage: " + s.ToString());
      ReplaceVouched(error);
      written_.clear();
    }
    staged_.Clear();
  }
  sets_expiry_ = false;
  vouched_replies_.clear();
  if (!in_transaction_) {  // unlocks every stripe and gate
    held_.clear();
    if (gate_.owns_lock()) gate_.unlock();
    all_gates_.clear();
  }
  return s;
}

}  // namespace teksdb::server
