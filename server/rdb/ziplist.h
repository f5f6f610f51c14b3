// Ziplist: the packed list of Redis before 7.0 (ziplist.c), in the RDB
// files older Redis versions wrote (small lists, hashes and sorted sets,
// and quicklist nodes) and still read by Redis 7.0. Read only: Redis 7.0
// writes listpacks (listpack.h) instead.
//
// Decode checks what ziplist.c's deep validation checks: the header's
// sizes and tail offset, every entry's previous-length field and encoding,
// the end byte, the count unless it says "unknown".
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "decode_budget.h"
#include <string_view>
#include <vector>

namespace teksdb::server::ziplist {

// The entries of `ziplist`, integers as their decimal text; false if it is
// damaged.
bool Decode(std::string_view ziplist, std::vector<std::string>* entries,
            DecodeBudget* budget = nullptr);

}  // namespace teksdb::server::ziplist
