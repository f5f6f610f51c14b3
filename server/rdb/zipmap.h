// Zipmap: the packed string-to-string map of Redis before 2.6 (zipmap.c),
// which RDB files of that age hold for small hashes and Redis 7.0 still
// reads. Read only. A zipmap is a count byte (254: unknown), then for each
// pair the field's length and bytes, the value's length, a "free" byte and
// the value followed by that many unused bytes; a 0xFF end byte. Lengths
// are one byte below 254, else 254 and 4 bytes little-endian.
//
// Decode checks what zipmap.c's validation checks: every length within the
// map, the end byte last, the count unless unknown.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "decode_budget.h"
#include <string_view>
#include <utility>
#include <vector>

namespace teksdb::server::zipmap {

// The field-value pairs of `zipmap`; false if it is damaged.
bool Decode(std::string_view zipmap, std::vector<std::pair<std::string, std::string>>* pairs,
            DecodeBudget* budget = nullptr);

}  // namespace teksdb::server::zipmap
