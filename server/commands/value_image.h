// ValueImage: a key's whole value as a RedisValue (rdb/redis_value.h), read
// from how teksdb-server stores it and written back the same way: DUMP and
// MIGRATE read one, RESTORE writes one. A written value is stored as the
// commands that build it would store it (a collection compact up to the
// CONFIG limits, compact_limits.h).
//
// Thread safety: one command's; the caller holds the key's lock.
#pragma once

#include <cstdint>
#include <string>

#include "redis_value.h"
#include "request.h"

namespace teksdb::server {

// Reads the value of `key`, whose meta record is `stored`; false, having
// replied, on a storage error.
bool ReadValueImage(Request& r, const std::string& key, const Keyspace::Value& stored,
                    RedisValue* value);
// Replaces whatever `key` holds by `value` (not empty), expiring at
// `expire_ms` (0: never), in one commit; false, having replied, on a
// storage error.
bool WriteValueImage(Request& r, const std::string& key, const RedisValue& value, int64_t expire_ms);

}  // namespace teksdb::server
