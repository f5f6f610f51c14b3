// ClientPause: CLIENT PAUSE and FAILOVER's hold on writers, one mechanism
// (Redis 7.0's pause purposes). Each purpose pauses the commands that may
// write (kWrite) or all of them (kAll) until a deadline or until it is
// lifted; the pause in force is the strictest of those still running (a
// second CLIENT PAUSE keeps the stricter kind and the later deadline, as
// Redis's). The command layer holds a paused client's command back (a
// block on kWakeKey) and runs it again when the pause in force becomes
// less strict; while writes are paused nothing expires (main.cc pauses
// the expiry sweep and the reads' reclaims), as in Redis.
//
// Thread safety: every member may be called from any thread. kind() is one
// atomic load (every command reads it); changes are serialized, and the
// change callback runs under that serialization, in the order of the
// changes: it must not call back into ClientPause, nor wait (CLIENT PAUSE
// runs on a connection that may hold key stripes).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

namespace teksdb::server {

class ClientPause {
 public:
  enum Kind : int { kNone = 0, kWrite = 1, kAll = 2 };
  enum Purpose : int { kCommand = 0, kFailover = 1 };
  static constexpr int kPurposes = 2;
  // What a held command waits on (KeyWaiters), woken when the pause eases.
  static constexpr const char* kWakeKey = "\xff" "client-pause";
  static constexpr int64_t kNoDeadline = INT64_MAX;

  // `changed(kind)` is called each time the pause in force changes, with the
  // new one (the caller wakes the held commands, pauses the expiry sweep).
  void set_changed(std::function<void(Kind)> changed);

  // Pauses `kind` for `purpose` until `end_ms` (milliseconds since the
  // epoch; kNoDeadline: until lifted). A purpose already pausing keeps the
  // stricter kind and the later deadline.
  void Pause(Purpose purpose, Kind kind, int64_t end_ms, int64_t now_ms);
  // Lifts `purpose`'s pause (CLIENT UNPAUSE; the failover's end).
  void Unpause(Purpose purpose, int64_t now_ms);
  // Ends the pauses whose deadline is before `now_ms` (the server's cron,
  // and a command that finds a pause in force).
  void ExpireDue(int64_t now_ms);

  // The pause in force (as of the last change: ExpireDue first to see a
  // deadline pass).
  Kind kind() const { return kind_.load(std::memory_order_acquire); }
  // Whether a command that may write waits (kWrite or kAll).
  bool writes_paused() const { return kind() != kNone; }

 private:
  struct Hold {
    Kind kind = kNone;
    int64_t end_ms = 0;
  };
  // Recomputes kind_ from holds_ (dropping those past their deadline) and
  // tells changed_ if it moved. REQUIRES: mu_ held.
  void UpdateLocked(int64_t now_ms);

  std::mutex mu_;
  Hold holds_[kPurposes];  // guarded by mu_
  std::function<void(Kind)> changed_;  // guarded by mu_
  std::atomic<Kind> kind_{kNone};
};

}  // namespace teksdb::server
