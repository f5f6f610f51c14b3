// The count argument of HRANDFIELD, SRANDMEMBER and ZRANDMEMBER, checked
// as Redis 7.0.15 checks it (a count whose negation overflows, or one that
// WITHVALUES / WITHSCORES would double past the range: "value is out of
// range"), then bounded here: a negative count asks for repeated picks,
// all held in memory for the reply, so at most kMaxRepeatedPicks of them
// (Redis has no bound).
//
// Thread safety: pure, but for the reply written on `r`.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "ascii_case.h"
#include "request.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {

constexpr int64_t kMaxRepeatedPicks = 1000000;

// r.args: KEY at 1, the count at 2, then at most `option` (e.g.
// "withvalues"; null: nothing may follow). False, having replied, unless
// all is well; then *count and *with_option are set (count 1 without one).
inline bool ParseRandomCount(Request& r, const char* option, int64_t* count, bool* with_option) {
  *count = 1;
  *with_option = false;
  // (SRANDMEMBER, with no option, refuses extra arguments first.)
  if (option == nullptr && r.args.size() > 3) return reply::Error(r.out, kSyntaxError), false;
  if (r.args.size() < 3) return true;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (!ParseStrictInt64(r.args[2], count)) return reply::Error(r.out, kNotInteger), false;
  if (*count < -kMax) {
    reply::Error(r.out, "ERR value is out of range, value must between " + std::to_string(-kMax) +
                            " and " + std::to_string(kMax));
    return false;
  }
  const size_t most = option != nullptr ? 4 : 3;
  if (r.args.size() > most || (r.args.size() == 4 && AsciiLower(r.args[3]) != option)) {
    return reply::Error(r.out, kSyntaxError), false;
  }
  *with_option = r.args.size() == 4;
  if (*with_option && (*count < -kMax / 2 || *count > kMax / 2)) {
    return reply::Error(r.out, "ERR value is out of range"), false;
  }
  if (*count < -kMaxRepeatedPicks) {
    reply::Error(r.out, "ERR count is out of range: at most 1000000 repeated picks");
    return false;
  }
  return true;
}

}  // namespace teksdb::server
