// SplitRedisArgs implementation: Redis's sdssplitargs, character by character.
#include "redis_args.h"

#include <cctype>

namespace teksdb::server {

namespace {
bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
int HexValue(char c) {
  return c <= '9' ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
}
bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'; }
}  // namespace

bool SplitRedisArgs(std::string_view s, std::vector<std::string>* args) {
  size_t i = 0;
  args->clear();
  while (true) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i == s.size()) return true;
    std::string word;
    bool in_double = false, in_single = false;
    while (true) {
      if (in_double) {
        if (i == s.size()) return false;
        if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && IsHexDigit(s[i + 2]) &&
            IsHexDigit(s[i + 3])) {
          word.push_back(static_cast<char>(HexValue(s[i + 2]) * 16 + HexValue(s[i + 3])));
          i += 3;
        } else if (s[i] == '\\' && i + 1 < s.size()) {
          ++i;
          switch (s[i]) {
            case 'n': word.push_back('\n'); break;
            case 'r': word.push_back('\r'); break;
            case 't': word.push_back('\t'); break;
            case 'b': word.push_back('\b'); break;
            case 'a': word.push_back('\a'); break;
            default: word.push_back(s[i]); break;
          }
        } else if (s[i] == '"') {
          if (i + 1 < s.size() && !IsSpace(s[i + 1])) return false;
          in_double = false;
          ++i;
          break;
        } else {
          word.push_back(s[i]);
        }
      } else if (in_single) {
        if (i == s.size()) return false;
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\'') {
          ++i;
          word.push_back('\'');
        } else if (s[i] == '\'') {
          if (i + 1 < s.size() && !IsSpace(s[i + 1])) return false;
          in_single = false;
          ++i;
          break;
        } else {
          word.push_back(s[i]);
        }
      } else {
        if (i == s.size() || IsSpace(s[i])) break;
        if (s[i] == '"') {
          in_double = true;
        } else if (s[i] == '\'') {
          in_single = true;
        } else {
          word.push_back(s[i]);
        }
      }
      ++i;
    }
    args->push_back(std::move(word));
  }
}

std::string QuoteRedisArg(std::string_view word) {
  bool plain = !word.empty();
  for (const char c : word) {
    if (IsSpace(c) || c == '"' || c == '\'' || c == '\\' ||
        !std::isprint(static_cast<unsigned char>(c))) {
      plain = false;
    }
  }
  if (plain) return std::string(word);
  std::string out = "\"";
  for (const char c : word) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (std::isprint(static_cast<unsigned char>(c))) {
          out.push_back(c);
        } else {
          static const char kHex[] = "0123456789abcdef";
          const unsigned char u = static_cast<unsigned char>(c);
          out += "\\x";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 15]);
        }
    }
  }
  return out + "\"";
}

}  // namespace teksdb::server
