// OBJECT ENCODING's answer: the encoding Redis 7.0 would hold the value in
// now, by its size and contents and the thresholds CONFIG sets
// (hash-max-listpack-entries / -value, zset-max-listpack-entries / -value,
// set-max-intset-entries): int, embstr or raw strings; quicklist lists;
// listpack or hashtable hashes; intset or hashtable sets; listpack or
// skiplist sorted sets. Redis never converts a value back to its compact
// encoding when it shrinks; this answer does, being computed afresh.
//
// Thread safety: as the Request it reads through.
#pragma once

#include <cstdint>
#include <string>

#include "request.h"

namespace teksdb::server {

// False, having replied a storage error, if the members could not be read.
bool ObjectEncoding(Request& r, const Keyspace::Value& v, std::string* name);

// A collection's member count, from its meta record.
int64_t MemberCount(const Keyspace::Value& v);

}  // namespace teksdb::server
