// RunningScript: the script (EVAL, or a function's FCALL) running now, as
// other clients and the script's own hook see it, after Redis 7.0's
// script.c.
//
// A script holds the whole keyspace while it runs. Until it has run for the
// busy-reply threshold (CONFIG lua-time-limit / busy-reply-threshold,
// 5000 ms by default), other clients' commands wait for it to end, as
// they wait in Redis, whose script holds the only thread. Past the
// threshold the script is busy: other clients' commands are refused with
// Redis's BUSY error, except those Redis allows then (AllowedWhileBusy:
// AUTH, HELLO, MULTI, SCRIPT KILL, SHUTDOWN, ...), and the script's
// own thread serves the other connections from its hook (serve_others: a
// poll of the I/O threads' event loop), since it may be the only I/O
// thread. SCRIPT KILL stops a busy script that has called no write command
// (one that has is UNKILLABLE); SHUTDOWN NOSAVE and SIGTERM stop any script
// (StopForShutdown, for good: a script that starts afterwards stops at
// once), and the writes it staged are dropped, so none of a script is
// applied unless all of it ran.
//
// Stopping: ShouldStop answers true from then on, and the hook raises an
// error at every instruction, so a script that catches the error with
// pcall cannot go on (Redis's hook does the same, per line).
//
// Thread safety: Begin, End, ShouldStop and NoteWrite on the script's
// thread; the rest from any thread. One mutex guards the state; active_ is
// also read without it, on every command's path (Execute), and then read
// again under it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace teksdb::server {

class RunningScript {
 public:
  static constexpr int64_t kDefaultBusyThresholdMs = 5000;
  static constexpr const char* kBusyError =
      "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
  static constexpr const char* kBusyFunctionError =
      "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
  // What a stopped script raises (Redis adds "ERR ").
  static constexpr const char* kKilledError = "Script killed by user with SCRIPT KILL...";
  static constexpr const char* kShutdownError = "Script stopped: the server is shutting down";

  enum class KillResult { kKilled, kNotBusy, kUnkillable, kOtherKind };

  // What FUNCTION STATS shows of a running script.
  struct Snapshot {
    std::string name;                  // the function's (or the sha)
    std::vector<std::string> command;  // the client's FCALL or EVAL
    int64_t duration_ms = 0;
  };

  // The script of client `client_id` starts (REQUIRES: it holds the whole
  // keyspace) and ends. `function`: FCALL's (FUNCTION KILL stops it).
  void Begin(uint64_t client_id, bool function, const std::string& name,
             const std::vector<std::string>& command);
  void End();
  // From the script's hook: whether the script must stop now. Marks the
  // script busy once past the threshold (waking the clients that wait),
  // and from then on serves the other clients first.
  bool ShouldStop();
  // The script called a write command: SCRIPT KILL can no longer stop it.
  void NoteWrite();
  // Whether the script that last ran was stopped for a shutdown (its
  // writes must then be dropped). Read by the script's thread after End.
  bool last_run_stopped_for_shutdown() const { return run_stopped_for_shutdown_; }

  // Whether a script may be running (a hint, without the mutex: Execute's
  // fast path before it asks MustRefuse).
  bool active() const { return active_.load(std::memory_order_acquire); }
  // For a command of client `client_id`: waits while another client's
  // script runs under the threshold; then true if one is busy (reply
  // kBusyError), false if none runs (or only this client's own).
  bool MustRefuse(uint64_t client_id);

  // The BUSY error for the kind of script running (or that last ran).
  const char* BusyError() const;
  // A running script, if any (FUNCTION STATS).
  bool Running(Snapshot* snapshot) const;
  // Whether the running script, if any, is an EVAL's.
  bool RunsEval() const;

  // SCRIPT KILL (`function_kill` false) or FUNCTION KILL; kOtherKind when
  // the running script is of the other kind (reply BusyError()).
  KillResult Kill(bool function_kill);
  // SHUTDOWN NOSAVE and signals: stops any script, now and from now on.
  void StopForShutdown();

  int64_t busy_threshold_ms() const { return threshold_ms_.load(std::memory_order_relaxed); }
  void set_busy_threshold_ms(int64_t ms) { threshold_ms_.store(ms, std::memory_order_relaxed); }
  // What a busy script's hook calls to serve the other clients (set before
  // any script runs: Server::Run).
  void set_serve_others(std::function<void()> serve) { serve_others_ = std::move(serve); }

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;  // a script ended or became busy
  // Written under mu_; read without it only as a hint (Execute's path).
  std::atomic<bool> active_{false};
  uint64_t client_id_ = 0;
  bool function_ = false;
  std::string name_;
  std::vector<std::string> command_;
  int64_t started_ms_ = 0;
  bool busy_ = false;
  bool wrote_ = false;
  bool killed_ = false;
  bool run_stopped_for_shutdown_ = false;  // the script's thread's only
  std::atomic<bool> stop_for_shutdown_{false};
  std::atomic<int64_t> threshold_ms_{kDefaultBusyThresholdMs};
  std::function<void()> serve_others_;

  // Whether the script must stop now, noting a stop for a shutdown.
  // REQUIRES: mu_ held, the script's thread.
  bool StopRequestedLocked();
};

}  // namespace teksdb::server
