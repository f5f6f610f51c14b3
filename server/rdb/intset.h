// Intset: Redis's sorted array of integers (intset.c), the encoding of its
// small sets of integers in RDB files and DUMP payloads: the width of each
// integer (2, 4 or 8 bytes) and the count, 4 bytes little-endian each,
// then the integers, little-endian, strictly ascending.
//
// Decode checks what intset.c's deep validation checks (width, size, not
// empty, strictly ascending); Encode writes the narrowest width that holds
// every integer, as Redis's intset does.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "decode_budget.h"
#include <string_view>
#include <vector>

namespace teksdb::server::intset {

// The members of `intset`, as decimal text; false if it is damaged.
bool Decode(std::string_view intset, std::vector<std::string>* members,
            DecodeBudget* budget = nullptr);
// An intset of `values` (any order, no duplicates).
std::string Encode(std::vector<int64_t> values);

}  // namespace teksdb::server::intset
