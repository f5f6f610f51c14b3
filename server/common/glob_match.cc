// GlobMatch implementation: iterative matching with one saved '*' position
// (the classic two-pointer algorithm), so no input recurses or explodes.
#include "glob_match.h"

#include <utility>

namespace teksdb::server {
namespace {

// Matches the one pattern element at p (not '*') against byte c; sets
// *next to the position after the element. False if the element is malformed
// at the end of the pattern, as Redis treats it (a literal).
bool MatchOne(std::string_view pattern, size_t p, unsigned char c, size_t* next) {
  if (pattern[p] == '?') {
    *next = p + 1;
    return true;
  }
  if (pattern[p] == '\\' && p + 1 < pattern.size()) {
    *next = p + 2;
    return static_cast<unsigned char>(pattern[p + 1]) == c;
  }
  if (pattern[p] == '[') {
    size_t i = p + 1;
    const bool negate = i < pattern.size() && pattern[i] == '^';
    if (negate) ++i;
    bool match = false;
    while (i < pattern.size() && pattern[i] != ']') {
      if (pattern[i] == '\\' && i + 1 < pattern.size()) {
        match |= static_cast<unsigned char>(pattern[i + 1]) == c;
        i += 2;
      } else if (i + 2 < pattern.size() && pattern[i + 1] == '-') {
        unsigned char lo = static_cast<unsigned char>(pattern[i]);
        unsigned char hi = static_cast<unsigned char>(pattern[i + 2]);
        if (lo > hi) std::swap(lo, hi);
        match |= c >= lo && c <= hi;
        i += 3;
      } else {
        match |= static_cast<unsigned char>(pattern[i]) == c;
        ++i;
      }
    }
    // An unclosed '[' runs to the end of the pattern, as in Redis.
    *next = i < pattern.size() ? i + 1 : i;
    return negate ? !match : match;
  }
  *next = p + 1;
  return static_cast<unsigned char>(pattern[p]) == c;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view subject) {
  size_t p = 0, s = 0;
  size_t star = std::string_view::npos, star_s = 0;
  while (s < subject.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      while (p < pattern.size() && pattern[p] == '*') ++p;
      if (p == pattern.size()) return true;
      star = p;
      star_s = s;
      continue;
    }
    size_t next;
    if (p < pattern.size() && MatchOne(pattern, p, static_cast<unsigned char>(subject[s]), &next)) {
      p = next;
      ++s;
      continue;
    }
    if (star == std::string_view::npos) return false;
    p = star;
    s = ++star_s;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace teksdb::server
