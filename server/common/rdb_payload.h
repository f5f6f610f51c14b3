// RdbPayload: Redis 7.0's serialization of DUMP payloads, as far as the
// server speaks it: RDB strings (length-prefixed, integer-encoded or LZF
// compressed, rdb.c's rdbSaveRawString / rdbGenericLoadStringObject), and a
// payload's footer: the RDB version (2 bytes, little-endian) and the CRC64
// (Jones polynomial, Redis's crc64.c; 8 bytes, little-endian) of
// everything before it. FUNCTION DUMP / RESTORE use it; payloads come from
// the network, so every read is bounds-checked and a damaged one is an
// error, never a crash.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace teksdb::server::rdb_payload {

// The RDB version Redis 7.0 writes; payloads of a newer one are refused.
constexpr uint16_t kRdbVersion = 10;

// Redis's CRC64 of `data`, continuing from `crc` (0 to start).
uint64_t Crc64(uint64_t crc, std::string_view data);

// Appends `s` as an RDB string (plain: Redis reads it whatever it would
// have written).
void AppendString(std::string* out, std::string_view s);
// Appends the footer (version and CRC64 of *out) that ends a payload.
void AppendFooter(std::string* out);

// Checks a payload's footer (Redis's "DUMP payload version or checksum are
// wrong" when it fails) and gives the body before it.
bool CheckFooter(std::string_view payload, std::string_view* body);

// Reads an RDB string at body[*pos] into *s, moving *pos past it; false if
// the body is damaged (truncated, a bad length or LZF block).
bool ReadString(std::string_view body, size_t* pos, std::string* s);

}  // namespace teksdb::server::rdb_payload
