// SlowLog: the commands that took longer than a threshold, newest first,
// as Redis's SLOWLOG keeps them (id, start time, microseconds, arguments
// cut to 32 and each to 128 bytes, client address and name), at most
// max_len of them. Both settings are CONFIG SET-able
// (slowlog-log-slower-than: microseconds, negative turns it off, 0 logs
// everything; slowlog-max-len).
//
// Thread safety: every member may be called from any thread. Execute
// reads the threshold (a relaxed atomic) on every command and takes the
// mutex only for a slow one.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace teksdb::server {

class SlowLog {
 public:
  struct Entry {
    uint64_t id;
    int64_t time_s;
    int64_t usec;
    std::vector<std::string> args;
    std::string client_address, client_name;
  };

  bool IsSlow(int64_t usec) const {
    const int64_t threshold = slower_than_.load(std::memory_order_relaxed);
    return threshold >= 0 && usec >= threshold;
  }
  void Add(int64_t usec, const std::vector<std::string>& args, const std::string& address,
           const std::string& name);
  // The newest `n` entries (all if n < 0).
  std::vector<Entry> Newest(int64_t n) const;
  size_t size() const;
  void Reset();

  int64_t slower_than() const { return slower_than_.load(std::memory_order_relaxed); }
  void set_slower_than(int64_t usec) { slower_than_.store(usec, std::memory_order_relaxed); }
  int64_t max_len() const;
  void set_max_len(int64_t n);

 private:
  std::atomic<int64_t> slower_than_{10000};
  mutable std::mutex mu_;
  std::deque<Entry> entries_;  // newest first
  uint64_t next_id_ = 0;
  int64_t max_len_ = 128;
};

}  // namespace teksdb::server
