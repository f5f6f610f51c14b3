// MonotonicMs and MonotonicUs: milliseconds and microseconds on the steady
// clock (which never steps back), for timeouts and ages: how long since a
// replica's last acknowledgement, a link's last read, a client's last
// command, what a walk took. CoarseMonotonicMs reads the same clock as of
// the kernel's last tick (1-4 ms behind), without reading the CPU's time
// counter: for what every request records in seconds (INFO's recent peaks,
// the output limits' soft windows).
//
// Thread safety: any thread.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace teksdb::server {

inline int64_t MonotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline int64_t CoarseMonotonicMs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

inline int64_t MonotonicUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace teksdb::server
