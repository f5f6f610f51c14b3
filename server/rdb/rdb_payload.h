// RdbPayload: the pieces every RDB serialization of Redis 7.0 is made of:
// lengths, RDB strings (length-prefixed, integer-encoded or LZF compressed,
// rdb.c's rdbSaveRawString / rdbGenericLoadStringObject), doubles, and a
// DUMP payload's footer: the RDB version (2 bytes, little-endian) and the
// CRC64 (Jones polynomial, Redis's crc64.c; 8 bytes, little-endian) of
// everything before it. DUMP / RESTORE, FUNCTION DUMP / RESTORE and RDB
// files (rdb_value.h, rdb_file.h) use it; their bytes come from the network
// or from files, so every read is bounds-checked and a damaged one is an
// error, never a crash or an allocation larger than the input promises.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace teksdb::server::rdb_payload {

// The RDB version Redis 7.0 writes, which DUMP writes unless a value needs
// Redis 7.4's (a hash with field deadlines: kHashFieldsRdbVersion); payloads
// and files newer than kNewestRdbVersion (Redis 7.4's) are refused.
constexpr uint16_t kRdbVersion = 10;
constexpr uint16_t kHashFieldsRdbVersion = 12;
constexpr uint16_t kNewestRdbVersion = 12;

// Redis's CRC64 of `data`, continuing from `crc` (0 to start).
uint64_t Crc64(uint64_t crc, std::string_view data);

// Appends an RDB length.
void AppendLength(std::string* out, uint64_t n);
// Appends `s` as an RDB string, as Redis's rdbSaveRawString writes it: an
// integer of up to 32 bits in its encoding, a string longer than 20 bytes
// LZF-compressed when that saves 4 bytes or more, else length and bytes.
void AppendString(std::string* out, std::string_view s);
// Appends a double as 8 bytes, little-endian (RDB_TYPE_ZSET_2's scores).
void AppendBinaryDouble(std::string* out, double v);
// Appends the footer (version and CRC64 of *out) that ends a payload.
void AppendFooter(std::string* out, uint16_t version = kRdbVersion);

// Checks a payload's footer (Redis's "DUMP payload version or checksum are
// wrong" when it fails) and gives the body before it; the checksum only
// when `verify_checksum` (DEBUG SET-SKIP-CHECKSUM-VALIDATION turns it off).
bool CheckFooter(std::string_view payload, std::string_view* body, bool verify_checksum = true);

// The readers: each reads at body[*pos], moving *pos past what it read,
// and returns false if the body is damaged (truncated, a bad length or
// encoding, an LZF block that does not decompress to its length).
bool ReadByte(std::string_view body, size_t* pos, uint8_t* b);
// A plain length (not a string encoding).
bool ReadLength(std::string_view body, size_t* pos, uint64_t* n);
bool ReadString(std::string_view body, size_t* pos, std::string* s);
// RDB_TYPE_ZSET_2's binary double, and RDB_TYPE_ZSET's text one (a length
// byte, 253-255 for nan, inf and -inf, then the text).
bool ReadBinaryDouble(std::string_view body, size_t* pos, double* v);
bool ReadTextDouble(std::string_view body, size_t* pos, double* v);
// An unsigned little-endian integer of `bytes` bytes (1 to 8).
bool ReadLittleEndian(std::string_view body, size_t* pos, int bytes, uint64_t* v);

}  // namespace teksdb::server::rdb_payload
