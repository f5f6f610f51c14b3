// MemoryLimit's read of the resident memory.
#include "memory_limit.h"

#include <unistd.h>

#include <cstdio>

#include "monotonic_clock.h"

namespace teksdb::server {

int64_t MemoryLimit::UsedBytes() {
  const int64_t now = MonotonicMs();
  int64_t read_at = read_at_ms_.load(std::memory_order_relaxed);
  // One caller refreshes; the others use the last value meanwhile.
  if (now - read_at >= kRefreshMs &&
      read_at_ms_.compare_exchange_strong(read_at, now, std::memory_order_relaxed)) {
    long long pages = 0, resident = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%lld %lld", &pages, &resident) != 2) resident = 0;
      std::fclose(statm);
    }
    used_.store(resident * sysconf(_SC_PAGESIZE), std::memory_order_relaxed);
  }
  return used_.load(std::memory_order_relaxed);
}

}  // namespace teksdb::server
