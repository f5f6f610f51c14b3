// AclLog implementation.
#include "acl_log.h"

#include <algorithm>
#include <cstdlib>

namespace teksdb::server {
namespace {

constexpr int64_t kGroupingMs = 60000;  // Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA
constexpr size_t kGroupingScan = 10;    // entries looked at for a match

bool SameEvent(const AclLog::Entry& a, const AclLog::Entry& b) {
  return a.reason == b.reason && a.context == b.context && a.object == b.object &&
         a.username == b.username && std::llabs(a.at_ms - b.at_ms) <= kGroupingMs;
}

}  // namespace

void AclLog::Add(Entry entry) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < entries_.size() && i < kGroupingScan; ++i) {
    if (!SameEvent(entries_[i], entry)) continue;
    Entry match = std::move(entries_[i]);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    match.count++;
    match.at_ms = entry.at_ms;
    match.client_info = std::move(entry.client_info);
    entries_.push_front(std::move(match));
    return;
  }
  entry.count = 1;
  entries_.push_front(std::move(entry));
  while (static_cast<int64_t>(entries_.size()) > max_len()) entries_.pop_back();
}

std::vector<AclLog::Entry> AclLog::Newest(size_t count) const {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t n = std::min(count, entries_.size());
  return std::vector<Entry>(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n));
}

void AclLog::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
}

}  // namespace teksdb::server
