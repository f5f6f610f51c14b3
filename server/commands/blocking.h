// What the blocking commands share (BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP in
// list_move_commands.cc; BZPOPMIN BZPOPMAX BZMPOP in zset_commands.cc):
// their timeout argument, and blocking when there is nothing to serve
// (the connection then waits: connection.h).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "commands.h"
#include "long_double_text.h"
#include "resp_reply.h"

namespace teksdb::server {

// A timeout in seconds (a float; 0: none) as a deadline in milliseconds
// since the epoch (0: none); false having replied Redis's error.
inline bool ParseBlockTimeout(Request& r, const std::string& arg, int64_t* deadline_ms) {
  long double seconds;
  if (!ParseLongDouble(arg, &seconds)) {
    reply::Error(r.out, "ERR timeout is not a float or out of range");
    return false;
  }
  const long double ms = std::ceil(seconds * 1000.0L);
  // Redis converts to a long long without a check: what does not fit
  // comes out negative.
  if (ms < 0 || ms >= 9.2e18L) {
    reply::Error(r.out, "ERR timeout is negative");
    return false;
  }
  *deadline_ms = ms == 0 ? 0 : Keyspace::NowMs() + static_cast<int64_t>(ms);
  return true;
}

// Nothing to serve: blocks on `keys` until the deadline (woken by writes
// to them, and by their deletion if `wake_on_delete`), or, where the
// command may not block (inside EXEC), replies the null array at once.
inline void BlockOrNull(Request& r, std::vector<std::string> keys, int64_t deadline_ms,
                        bool wake_on_delete = false) {
  if (!r.client.may_block) return reply::NullArray(r.out, r.protocol());
  for (std::string& key : keys) key = r.keyspace->Name(key);
  r.client.block = ClientState::Block{std::move(keys), deadline_ms, false, wake_on_delete};
}

}  // namespace teksdb::server
