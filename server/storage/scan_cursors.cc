// ScanCursors implementation.
#include "scan_cursors.h"

#include <random>

namespace teksdb::server {

ScanCursors::ScanCursors() {
  // Below 2^62, so that cursors stay far from the top of any client's
  // signed 64-bit integers however many are handed out.
  std::random_device seed;
  next_ = ((uint64_t{seed()} << 32 | seed()) & ((uint64_t{1} << 62) - 1)) | 1;
}

uint64_t ScanCursors::Save(std::string position) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t cursor = next_++;
  if (next_ == 0) next_ = 1;
  bytes_ += position.size();
  positions_[cursor] = std::move(position);
  order_.push_back(cursor);
  while (order_.size() > 1 && (order_.size() > kMaxCursors || bytes_ > kMaxBytes)) {
    const auto oldest = positions_.find(order_.front());
    bytes_ -= oldest->second.size();
    positions_.erase(oldest);
    order_.pop_front();
  }
  return cursor;
}

bool ScanCursors::Find(uint64_t cursor, std::string* position) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = positions_.find(cursor);
  if (it == positions_.end()) return false;
  *position = it->second;
  return true;
}

}  // namespace teksdb::server
