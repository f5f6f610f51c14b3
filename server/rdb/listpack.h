// Listpack: Redis 7.0's packed list of strings and integers (listpack.c),
// the body of its small hashes, sorted sets and list nodes in RDB files and
// DUMP payloads. A listpack is a 6-byte header (total bytes and element
// count, little-endian), the entries, each its encoding, its data and its
// length written backwards, and a 0xFF end byte.
//
// Decode checks everything listpack.c's deep validation checks (the
// header's sizes, every entry's encoding, length and back length, the end
// byte, the count unless it says "unknown"), so a damaged listpack is
// refused, never read past its end. Encode writes what Redis's lpAppend
// writes: a string that is a canonical integer as the smallest integer
// encoding that holds it.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "decode_budget.h"
#include <string_view>
#include <vector>

namespace teksdb::server::listpack {

// The entries of `listpack`, integers as their decimal text; false if it
// is damaged.
bool Decode(std::string_view listpack, std::vector<std::string>* entries,
            DecodeBudget* budget = nullptr);
std::string Encode(const std::vector<std::string_view>& entries);
// The bytes one entry takes in a listpack (encoding, data, back length):
// how Redis's streams size their listpacks (stream_store.h).
size_t EntryBytes(std::string_view entry);
size_t EntryBytes(int64_t entry);

}  // namespace teksdb::server::listpack
