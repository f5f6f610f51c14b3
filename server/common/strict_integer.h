// Integers as Redis reads and writes them (its string2ll and ll2string): an
// optional '-', then digits without leading zeros, no spaces, no '+', and
// within int64_t. Used for protocol lengths and for command arguments
// (INCRBY, EXPIRE, ...) alike, so both reject what Redis rejects.
#pragma once

#include <cstdint>
#include <string>

namespace teksdb::server {

inline bool ParseStrictInt64(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative) ++i;
  if (i == s.size()) return false;
  if (s[i] == '0') {
    if (s.size() == i + 1 && !negative) {
      *out = 0;
      return true;
    }
    return false;
  }
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > uint64_t{1} << 63) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > uint64_t{INT64_MAX}) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

}  // namespace teksdb::server
