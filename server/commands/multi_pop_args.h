// The arguments LMPOP and ZMPOP share, and their blocking forms BLMPOP and
// BZMPOP: numkeys key [key ...] END [COUNT count], parsed and refused as
// Redis 7.0 does.
//
// Thread safety: a request's, on its thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "request.h"

namespace teksdb::server {

struct MultiPopArgs {
  std::vector<std::string> keys;
  bool first_end = false;  // END is the first of the two words (LEFT, MIN)
  int64_t count = 1;
  int64_t deadline_ms = -1;  // the blocking forms' (blocking.h); -1: not blocking
};

// Parses r.args from `at` (numkeys), END being `first_end` or `second_end`
// (lower case, either case accepted). `blocking`: also the timeout,
// r.args[1], read after the rest, as in Redis. False, having replied
// Redis's error.
bool ParseMultiPop(Request& r, size_t at, bool blocking, const char* first_end,
                   const char* second_end, MultiPopArgs* args);

}  // namespace teksdb::server
