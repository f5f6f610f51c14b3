// CpuRelax: the pause hint for spin-wait loops (x86 `pause`, else a yield).
// Thread safety: none needed; it touches no memory.
#pragma once

#include <thread>

namespace teksdb {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace teksdb
