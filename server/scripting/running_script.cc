// RunningScript implementation: the busy state, the waits of other
// clients, and SCRIPT KILL / shutdown.
#include "running_script.h"

#include <chrono>
#include <cstdio>
#include <exception>

#include "keyspace.h"
#include "monotonic_clock.h"

namespace teksdb::server {

void RunningScript::Begin(uint64_t client_id, bool function, const std::string& name,
                          const std::vector<std::string>& command) {
  std::lock_guard<std::mutex> lock(mu_);
  client_id_ = client_id;
  function_ = function;
  name_ = name;
  command_ = command;
  started_ms_ = MonotonicMs();
  busy_ = wrote_ = killed_ = false;
  run_stopped_for_shutdown_ = false;
  active_.store(true, std::memory_order_release);
}

void RunningScript::End() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_.store(false, std::memory_order_release);
    busy_ = false;
  }
  changed_.notify_all();
}

bool RunningScript::StopRequestedLocked() {
  if (stop_for_shutdown_.load(std::memory_order_relaxed)) run_stopped_for_shutdown_ = true;
  return run_stopped_for_shutdown_ || killed_;
}

bool RunningScript::ShouldStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (StopRequestedLocked()) return true;
    if (!busy_) {
      // (A threshold of 0 means never, as in Redis.)
      const int64_t threshold = busy_threshold_ms();
      if (threshold <= 0 || MonotonicMs() - started_ms_ < threshold) return false;
      busy_ = true;
    }
  }
  changed_.notify_all();  // the clients that waited now get BUSY
  // Other connections' handlers run here, nested in the script's: every
  // command they run is refused BUSY or touches no key (AllowedWhileBusy),
  // so none waits for what the script holds. SCRIPT KILL among them sets
  // killed_.
  if (serve_others_) {
    try {
      serve_others_();
    } catch (const std::exception& e) {  // another connection's: not the script's
      std::fprintf(stderr, "teksdb-server: a connection served while a script was busy failed: %s\n",
                   e.what());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  return StopRequestedLocked();
}

void RunningScript::NoteWrite() {
  std::lock_guard<std::mutex> lock(mu_);
  wrote_ = true;
}

bool RunningScript::MustRefuse(uint64_t client_id) {
  if (!active_.load(std::memory_order_acquire)) return false;
  std::unique_lock<std::mutex> lock(mu_);
  auto settled = [&] {
    return !active_.load(std::memory_order_relaxed) || busy_ || client_id_ == client_id;
  };
  // Until the threshold, by the clock too: a script stuck inside one C
  // call (its hook never runs) is busy all the same.
  const int64_t threshold = busy_threshold_ms();
  while (!settled()) {
    if (threshold <= 0) {
      changed_.wait(lock);
      continue;
    }
    const int64_t left = started_ms_ + threshold - MonotonicMs();
    if (left <= 0) {
      busy_ = true;
      break;
    }
    changed_.wait_for(lock, std::chrono::milliseconds(left));
  }
  return active_.load(std::memory_order_relaxed) && busy_ && client_id_ != client_id;
}

const char* RunningScript::BusyError() const {
  std::lock_guard<std::mutex> lock(mu_);
  return function_ ? kBusyFunctionError : kBusyError;
}

bool RunningScript::Running(Snapshot* snapshot) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!active_.load(std::memory_order_relaxed)) return false;
  snapshot->name = name_;
  snapshot->command = command_;
  snapshot->duration_ms = MonotonicMs() - started_ms_;
  return true;
}

bool RunningScript::RunsEval() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_.load(std::memory_order_relaxed) && !function_;
}

RunningScript::KillResult RunningScript::Kill(bool function_kill) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!active_.load(std::memory_order_relaxed)) return KillResult::kNotBusy;
  if (wrote_) return KillResult::kUnkillable;
  if (function_kill != function_) return KillResult::kOtherKind;
  killed_ = true;
  return KillResult::kKilled;
}

void RunningScript::StopForShutdown() { stop_for_shutdown_.store(true, std::memory_order_release); }

}  // namespace teksdb::server
