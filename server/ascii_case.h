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

inline std::string AsciiUpper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace teksdb::server
