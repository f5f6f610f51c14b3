// ZADD's work, shared with GEOADD (geo_commands.cc), which stores each
// place as a sorted-set member scored by its geohash, as Redis does.
//
// Thread safety: as any command (it takes the key's lock).
#pragma once

#include <cstddef>

#include "request.h"

namespace teksdb::server {

struct ZAddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};
// Adds r.args' score-member pairs from `first` on to the sorted set
// r.args[1], and replies as ZADD (ZINCRBY with incr).
void ZAddPairs(Request& r, size_t first, const ZAddFlags& flags);

}  // namespace teksdb::server
