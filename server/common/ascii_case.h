// Lower- and upper-casing of command names and options, byte by byte and ASCII only,
// as Redis compares them (strcasecmp): bytes outside A-Z stay as they are.
#pragma once

#include <string>

namespace teksdb::server {

inline std::string AsciiLower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Whether `s` is `lower` (all lower case) in any case, as strcasecmp.
inline bool AsciiEqualsLower(const std::string& s, const char* lower) {
  size_t i = 0;
  for (; i < s.size() && lower[i] != '\0'; ++i) {
    const char c = s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] - 'A' + 'a') : s[i];
    if (c != lower[i]) return false;
  }
  return i == s.size() && lower[i] == '\0';
}

inline std::string AsciiUpper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace teksdb::server
