// PrintableText: bytes from a client or a file, shown in a message or a
// log line: printable ASCII as it is, every other byte (and the backslash)
// as \xNN, cut after `max` bytes with "..." (so a key never garbles a
// terminal or a log).
//
// Thread safety: a pure function.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace teksdb::server {

inline std::string PrintableText(std::string_view s, size_t max = 200) {
  std::string out;
  for (const unsigned char c : s.substr(0, max)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return s.size() > max ? out + "..." : out;
}

}  // namespace teksdb::server
