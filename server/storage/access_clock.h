// AccessClock: when each key was last read or written, for OBJECT
// IDLETIME, kept approximately as Redis keeps it (a clock in each value):
// a table of kSlots seconds, a key's slot chosen by a hash of its database
// and name. Keys that share a slot share a time, so a key may read as
// more recently used than it was (never as less), and a key untouched
// since the server started reads as idle since then. 4 MiB, whatever the
// keyspace's size; a touch is one hash and one relaxed store.
//
// Thread safety: every member may be called from any thread (relaxed
// atomics: a touch racing another on the same slot keeps either time).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

namespace teksdb::server {

class AccessClock {
 public:
  static constexpr size_t kSlots = size_t{1} << 20;

  AccessClock();
  void Touch(int db, std::string_view key);
  int64_t IdleSeconds(int db, std::string_view key) const;

 private:
  static size_t SlotOf(int db, std::string_view key);
  // Seconds on the steady clock since the clock was made, plus one (0: a
  // slot never touched).
  uint32_t Now() const;

  const int64_t start_ms_;
  std::unique_ptr<std::atomic<uint32_t>[]> slots_;
};

}  // namespace teksdb::server
