// SlowLog implementation.
#include "slow_log.h"

#include <chrono>

#include "redacted_arguments.h"

namespace teksdb::server {

void SlowLog::Add(int64_t usec, const std::vector<std::string>& args, const std::string& address,
                  const std::string& name) {
  constexpr size_t kMaxArgs = 32, kMaxArgBytes = 128;
  Entry entry{0,
              std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count(),
              usec,
              {},
              address,
              name};
  for (size_t i = 0; i < args.size() && i < kMaxArgs; ++i) {
    if (i == kMaxArgs - 1 && args.size() > kMaxArgs) {
      entry.args.push_back("... (" + std::to_string(args.size() - kMaxArgs + 1) + " more arguments)");
    } else if (IsRedactedArgument(args, i)) {
      entry.args.push_back("(redacted)");
    } else if (args[i].size() > kMaxArgBytes) {
      entry.args.push_back(args[i].substr(0, kMaxArgBytes) + "... (" +
                           std::to_string(args[i].size() - kMaxArgBytes) + " more bytes)");
    } else {
      entry.args.push_back(args[i]);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  entry.id = next_id_++;
  entries_.push_front(std::move(entry));
  while (static_cast<int64_t>(entries_.size()) > max_len_) entries_.pop_back();
}

std::vector<SlowLog::Entry> SlowLog::Newest(int64_t n) const {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t count = n < 0 ? entries_.size() : std::min<size_t>(entries_.size(), n);
  return std::vector<Entry>(entries_.begin(), entries_.begin() + count);
}

size_t SlowLog::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void SlowLog::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
}

int64_t SlowLog::max_len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return max_len_;
}

void SlowLog::set_max_len(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  max_len_ = n;
  while (static_cast<int64_t>(entries_.size()) > max_len_) entries_.pop_back();
}

}  // namespace teksdb::server
