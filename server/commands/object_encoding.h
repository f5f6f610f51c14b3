// OBJECT ENCODING's answer, in Redis's names: int, embstr or raw strings (by
// their size and contents, as Redis 7.0 would hold them); quicklist lists;
// for hashes, sets and sorted sets the encoding they are stored in
// (collection.h): listpack, or intset for a set of integers, while compact;
// hashtable (skiplist for a sorted set) once one record per member. As in
// Redis, a collection converted past a limit stays so when it shrinks.
//
// Thread safety: a pure function.
#pragma once

#include <string>

#include "keyspace.h"

namespace teksdb::server {

std::string ObjectEncoding(const Keyspace::Value& v);

}  // namespace teksdb::server
