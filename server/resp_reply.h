// RESP2 replies, appended to a connection's output buffer: what Redis
// sends for each reply type, byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace teksdb::server::reply {

inline void Simple(std::string* out, std::string_view s) {
  out->push_back('+');
  out->append(s);
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
inline void Null(std::string* out) { out->append("$-1\r\n"); }
inline void NullArray(std::string* out) { out->append("*-1\r\n"); }
inline void ArrayHeader(std::string* out, size_t n) {
  out->push_back('*');
  out->append(std::to_string(n));
  out->append("\r\n");
}
inline void Ok(std::string* out) { out->append("+OK\r\n"); }

}  // namespace teksdb::server::reply
