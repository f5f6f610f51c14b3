// AclLog: ACL LOG's entries, newest first, as Redis 7.0 records them: a
// command, key or channel denied, or a failed AUTH, with the context
// (toplevel, multi, lua), the object (the command, key, channel, or
// "AUTH"), the user, when, and the client's CLIENT LIST line. An event
// like one of the ten newest (same reason, context, object and user,
// within 60 s) counts there instead of adding one. At most
// acllog-max-len entries are kept (trimmed as the next is added).
//
// Thread safety: every member may be called from any thread (one mutex).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace teksdb::server {

class AclLog {
 public:
  struct Entry {
    uint64_t count = 1;
    std::string reason;   // "command", "key", "channel", "auth"
    std::string context;  // "toplevel", "multi", "lua"
    std::string object;
    std::string username;
    int64_t at_ms = 0;  // wall clock, of the last event counted
    std::string client_info;
  };

  // Records an event (entry.count ignored), at `entry.at_ms`.
  void Add(Entry entry);
  // The newest `count` entries.
  std::vector<Entry> Newest(size_t count) const;
  void Reset();

  int64_t max_len() const { return max_len_.load(std::memory_order_relaxed); }
  void set_max_len(int64_t n) { max_len_.store(n, std::memory_order_relaxed); }

 private:
  mutable std::mutex mu_;
  std::deque<Entry> entries_;
  std::atomic<int64_t> max_len_{128};
};

}  // namespace teksdb::server
