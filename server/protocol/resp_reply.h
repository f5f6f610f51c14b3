// Replies, appended to a connection's output buffer: what Redis sends for
// each reply type, byte for byte. The first group is the same in RESP2 and
// RESP3; the second takes the connection's protocol (2 until it says
// HELLO 3) and writes RESP3's own types (null, map, set, double) where
// Redis 7.0 does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace teksdb::server::reply {

// CRs and LFs in `s` (a script's {ok=...}) are sent as spaces, as Redis
// does: the reply stays one line.
inline void Simple(std::string* out, std::string_view s) {
  out->push_back('+');
  for (const char c : s) out->push_back(c == '\r' || c == '\n' ? ' ' : c);
  out->append("\r\n");
}
// `message` starts with its code ("ERR ...", "WRONGTYPE ..."). CRs and LFs
// in it (from a client's argument, a storage error) are dropped at its end
// and sent as spaces elsewhere, as Redis does: the reply stays one line.
inline void Error(std::string* out, std::string_view message) {
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) {
    message.remove_suffix(1);
  }
  out->push_back('-');
  for (const char c : message) out->push_back(c == '\r' || c == '\n' ? ' ' : c);
  out->append("\r\n");
}
inline void Integer(std::string* out, int64_t v) {
  out->push_back(':');
  out->append(std::to_string(v));
  out->append("\r\n");
}
inline void Bulk(std::string* out, std::string_view s) {
  out->push_back('$');
  out->append(std::to_string(s.size()));
  out->append("\r\n");
  out->append(s);
  out->append("\r\n");
}
inline void ArrayHeader(std::string* out, size_t n) {
  out->push_back('*');
  out->append(std::to_string(n));
  out->append("\r\n");
}
inline void Ok(std::string* out) { out->append("+OK\r\n"); }

// The null bulk string (RESP2 $-1) and the null array (RESP2 *-1): RESP3
// has one null for both.
inline void Null(std::string* out, int protocol) {
  out->append(protocol == 3 ? "_\r\n" : "$-1\r\n");
}
inline void NullArray(std::string* out, int protocol) {
  out->append(protocol == 3 ? "_\r\n" : "*-1\r\n");
}
// A map of `pairs` key/value pairs (RESP2: a flat array of 2 * pairs).
inline void MapHeader(std::string* out, int protocol, size_t pairs) {
  out->push_back(protocol == 3 ? '%' : '*');
  out->append(std::to_string(protocol == 3 ? pairs : 2 * pairs));
  out->append("\r\n");
}
// A set (RESP2: an array).
inline void SetHeader(std::string* out, int protocol, size_t n) {
  out->push_back(protocol == 3 ? '~' : '*');
  out->append(std::to_string(n));
  out->append("\r\n");
}
// Lines of text as an array of status replies (HELP's).
template <size_t N>
inline void StatusLines(std::string* out, const char* const (&lines)[N]) {
  ArrayHeader(out, N);
  for (const char* line : lines) Simple(out, line);
}
// Text to show as it is (RESP3: a verbatim string of format "txt"; RESP2:
// a bulk string), as Redis's addReplyVerbatim.
inline void Verbatim(std::string* out, int protocol, std::string_view text) {
  if (protocol != 3) return Bulk(out, text);
  out->append("=" + std::to_string(text.size() + 4) + "\r\ntxt:");
  out->append(text);
  out->append("\r\n");
}
// A double, `text` as Redis formats it ("1.5", "inf"); RESP2: a bulk string.
inline void Double(std::string* out, int protocol, std::string_view text) {
  if (protocol != 3) return Bulk(out, text);
  out->push_back(',');
  out->append(text);
  out->append("\r\n");
}

}  // namespace teksdb::server::reply
