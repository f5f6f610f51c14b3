// Doubles as Redis 7.0 writes them (util.c's d2string): inf, -inf, -0,
// integers within 2^52 without a fraction, the rest with 17 significant
// digits. Sorted set scores in replies, and in the listpacks of DUMP.
//
// Thread safety: a pure function.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace teksdb::server {

inline std::string FormatScore(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  if (v > -4503599627370495.0 && v < 4503599627370496.0 &&
      v == static_cast<double>(static_cast<long long>(v))) {
    return std::to_string(static_cast<long long>(v));
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace teksdb::server
