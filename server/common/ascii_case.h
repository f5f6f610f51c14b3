// Lower- and upper-casing of command names and options, byte by byte and ASCII only,
// as Redis compares them (strcasecmp): bytes outside A-Z stay as they are.
#pragma once

#include <string>
#include <string_view>

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

// Whether `a` and `b` are equal but for the case of ASCII letters.
inline bool AsciiEqualIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

inline std::string AsciiUpper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace teksdb::server
