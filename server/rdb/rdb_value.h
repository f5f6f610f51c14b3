// RdbValue: a value as an RDB object, Redis 7.0's serialization of one
// key's value in DUMP payloads and RDB files: a type byte, then the value
// in that type's encoding (rdb.c's rdbSaveObject / rdbLoadObject).
//
// Append writes what Redis 7.0 writes for the value: a string (integer or
// LZF encodings when they are shorter), a list as a quicklist of listpacks
// of up to 8 KB (list-max-listpack-size -2), a compact hash or sorted set
// as one listpack and a larger one as plain pairs, a compact set of
// integers as an intset, any other set as plain strings, a stream as
// rdb_stream.h writes it.
//
// Read reads every encoding Redis 7.0 reads for these types, the ones
// older versions wrote included (ziplists, zipmaps, quicklists of
// ziplists, text scores, streams without their counters); module values
// are refused with a message that says so. Input is untrusted: every length is checked
// against the bytes there are before anything is allocated, empty values,
// duplicate members or fields and NaN scores are refused as Redis refuses
// them, nothing is read past the end, and a value whose decoding would
// take more memory than decode_budget.h allows is refused.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "redis_value.h"

namespace teksdb::server::rdb_value {

// Appends `value` as an RDB object (type byte and body).
void Append(std::string* out, const RedisValue& value);
// Reads an RDB object of type `type` (its type byte already read) at
// body[*pos]; false, with what is wrong in *error, if it cannot.
bool Read(uint8_t type, std::string_view body, size_t* pos, RedisValue* value, std::string* error);

// A DUMP payload: the object, then rdb_payload.h's footer.
std::string Dump(const RedisValue& value);
// RESTORE's reading of one: kBadFooter when the version or checksum is
// wrong (the checksum only when `verify_checksum`), kBadData when the
// object cannot be read (or bytes follow it: *error, if given, says what).
enum class RestoreResult { kOk, kBadFooter, kBadData };
RestoreResult Restore(std::string_view payload, RedisValue* value, bool verify_checksum = true,
                      std::string* error = nullptr);

}  // namespace teksdb::server::rdb_value
