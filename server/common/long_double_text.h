// Long doubles as Redis's INCRBYFLOAT and HINCRBYFLOAT read and print them
// (its string2ld and ld2string in human-friendly mode), so replies match
// Redis's byte for byte.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace teksdb::server {

// A float argument as Redis's string2ld reads it (long double; no leading
// space, nothing after the number, no NaN, no overflow).
inline bool ParseLongDouble(const std::string& text, long double* value) {
  if (text.empty() || text.size() >= 5 * 1024 || std::isspace(static_cast<unsigned char>(text[0]))) {
    return false;
  }
  errno = 0;
  char* end = nullptr;
  *value = std::strtold(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(*value)) return false;
  return !(errno == ERANGE && (std::isinf(*value) || *value == 0));
}

// Redis's human-friendly long double: 17 decimals, trailing zeros and a
// bare point dropped, "-0" as "0"; empty, as in Redis, if the digits would
// not fit its 5 KiB buffer.
inline std::string FormatLongDouble(long double value) {
  char buf[5 * 1024];
  int n = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(buf)) return std::string();
  std::string text(buf, static_cast<size_t>(n));
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

}  // namespace teksdb::server
