// RunningScript implementation: the busy state, the waits of other
// clients, and SCRIPT KILL / shutdown.
#include "running_script.h"

#include "keyspace.h"

namespace teksdb::server {

void RunningScript::Begin(uint64_t client_id, bool function, const std::string& name,
                          const std::vector<std::string>& command) {
  std::lock_guard<std::mutex> lock(mu_);
  client_id_ = client_id;
  function_ = function;
  name_ = name;
  command_ = command;
  started_ms_ = Keyspace::NowMs();
  busy_ = wrote_ = killed_ = false;
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

bool RunningScript::ShouldStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (killed_ || stop_for_shutdown_.load(std::memory_order_relaxed)) return true;
    if (!busy_) {
      // (A threshold of 0 means never, as in Redis.)
      const int64_t threshold = busy_threshold_ms();
      if (threshold <= 0 || Keyspace::NowMs() - started_ms_ < threshold) return false;
      busy_ = true;
    }
  }
  changed_.notify_all();  // the clients that waited now get BUSY
  // Other connections' handlers run here, nested in the script's: every
  // command they run is refused BUSY or touches no key (AllowedWhileBusy),
  // so none waits for what the script holds. SCRIPT KILL among them sets
  // killed_.
  if (serve_others_) serve_others_();
  std::lock_guard<std::mutex> lock(mu_);
  return killed_ || stop_for_shutdown_.load(std::memory_order_relaxed);
}

void RunningScript::NoteWrite() {
  std::lock_guard<std::mutex> lock(mu_);
  wrote_ = true;
}

bool RunningScript::RunsForOther(uint64_t client_id) const {
  if (!active_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return active_.load(std::memory_order_relaxed) && client_id_ != client_id;
}

bool RunningScript::MustRefuse(uint64_t client_id) {
  if (!active_.load(std::memory_order_acquire)) return false;
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] {
    return !active_.load(std::memory_order_relaxed) || busy_ || client_id_ == client_id;
  });
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
  snapshot->duration_ms = Keyspace::NowMs() - started_ms_;
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
