// ClientPause: the pause in force, from the purposes' holds (client_pause.h).
#include "client_pause.h"

#include <algorithm>
#include <utility>

namespace teksdb::server {

void ClientPause::set_changed(std::function<void(Kind)> changed) {
  std::lock_guard<std::mutex> lock(mu_);
  changed_ = std::move(changed);
}

void ClientPause::Pause(Purpose purpose, Kind kind, int64_t end_ms, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Hold& hold = holds_[purpose];
  if (hold.kind == kNone) {
    hold = {kind, end_ms};
  } else {
    hold.kind = std::max(hold.kind, kind);
    hold.end_ms = std::max(hold.end_ms, end_ms);
  }
  UpdateLocked(now_ms);
}

void ClientPause::Unpause(Purpose purpose, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  holds_[purpose] = Hold{};
  UpdateLocked(now_ms);
}

void ClientPause::ExpireDue(int64_t now_ms) {
  if (kind() == kNone) return;
  std::lock_guard<std::mutex> lock(mu_);
  UpdateLocked(now_ms);
}

void ClientPause::UpdateLocked(int64_t now_ms) {
  Kind strictest = kNone;
  for (Hold& hold : holds_) {
    // (Redis keeps a pause through its deadline's millisecond.)
    if (hold.kind != kNone && hold.end_ms < now_ms) hold = Hold{};
    strictest = std::max(strictest, hold.kind);
  }
  if (strictest == kind_.load(std::memory_order_relaxed)) return;
  kind_.store(strictest, std::memory_order_release);
  if (changed_) changed_(strictest);
}

}  // namespace teksdb::server
