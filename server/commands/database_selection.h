// A connection's database: ParseDatabaseIndex reads a database number from
// a command's argument (SELECT, MOVE, SWAPDB, COPY ... DB) with Redis
// 7.0's errors; SelectDatabase makes it the connection's.
//
// Thread safety: on the request's connection, like the Request.
#pragma once

#include <cstdint>
#include <string>

#include "request.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {

// A number as Redis's getIntFromObject reads it: an integer that fits a C
// int.
inline bool ParseCInt(const std::string& arg, int* n) {
  int64_t wide;
  if (!ParseStrictInt64(arg, &wide) || wide < INT32_MIN || wide > INT32_MAX) return false;
  *n = static_cast<int>(wide);
  return true;
}

inline bool IsDatabaseIndex(int n) { return n >= 0 && n < Keyspace::kDatabases; }
constexpr const char* kDatabaseOutOfRange = "ERR DB index is out of range";

// False, having replied, unless `arg` is 0 .. Keyspace::kDatabases - 1:
// not a C int gets "ERR value is not an integer or out of range", any
// other number "ERR DB index is out of range".
inline bool ParseDatabaseIndex(Request& r, const std::string& arg, int* db) {
  if (!ParseCInt(arg, db)) {
    reply::Error(r.out, kNotInteger);
    return false;
  }
  if (!IsDatabaseIndex(*db)) {
    reply::Error(r.out, kDatabaseOutOfRange);
    return false;
  }
  return true;
}

// The connection's database from now on, also as CLIENT LIST shows it.
inline void SelectDatabase(Request& r, int db) {
  r.keyspace->Select(db);
  if (r.client.info) r.client.info->db.store(db, std::memory_order_relaxed);
}

}  // namespace teksdb::server
