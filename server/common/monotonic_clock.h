// MonotonicMs: milliseconds on the steady clock (which never steps back),
// for timeouts and ages: how long since a replica's last acknowledgement,
// a link's last read, a deadline.
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

}  // namespace teksdb::server
