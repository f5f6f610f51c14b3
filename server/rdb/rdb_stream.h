// RdbStream: a stream as an RDB object (rdb.c's stream case of
// rdbSaveObject / rdbLoadObject), RDB_TYPE_STREAM_LISTPACKS_2 (Redis 7.0's)
// and RDB_TYPE_STREAM_LISTPACKS (older, read only): the listpack nodes
// with their master ids (each a master entry of fields, then entries as
// flags, id deltas and values, t_stream.c's layout), the length and ids,
// then the consumer groups with their pending entries and consumers.
//
// Append writes nodes of up to 100 entries (stream-node-max-entries'
// default), each node's master fields those of its first entry. Read
// checks every node as Redis's deep sanitization does (the master entry,
// each entry's flags, counts and back count, ids increasing), refuses
// duplicate groups, consumers and pending entries, pending entries of no
// consumer, and a length that is not the entries there are; bounds are
// checked before anything is allocated.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "decode_budget.h"
#include "redis_value.h"

namespace teksdb::server::rdb_stream {

// Appends the stream's body (after its type byte, RDB_TYPE_STREAM_LISTPACKS_2).
void Append(std::string* out, const RedisStream& stream);
// Reads a stream body of RDB type `type` (15 or 19) at body[*pos]; false,
// with *error, if it cannot.
// Its decoding spends from `budget` (decode_budget.h).
bool Read(uint8_t type, std::string_view body, size_t* pos, RedisStream* stream, std::string* error,
          DecodeBudget* budget);

}  // namespace teksdb::server::rdb_stream
