// MonotonicMs and MonotonicUs: milliseconds and microseconds on the steady
// clock (which never steps back), for timeouts and ages: how long since a
// replica's last acknowledgement, a link's last read, a client's last
// command, what a walk took.
//
// Thread safety: any thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace teksdb::server {

inline int64_t MonotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline int64_t MonotonicUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace teksdb::server
