// RdbFile: a reader of Redis's RDB files (rdb.c's rdbLoadRio), versions 1
// to 10 (Redis 7.0's): the "REDIS" header and version, then opcodes
// (databases, expiry times, auxiliary fields, idle and frequency hints,
// function libraries) and keys, each an RDB object (rdb_value.h), to the
// end opcode and the file's CRC64, which Start checks first when the file
// has one (version 5 on), so a damaged file is refused before any key.
// The RDB importer (rdb_import.cc) feeds what it reads to RESTORE.
//
// The file is untrusted: every read is bounds-checked, and a damaged or
// unsupported file (a newer version, module data) stops the reading with
// an error that says what and at which byte.
//
// Thread safety: one reader per thread; it reads bytes the caller keeps
// alive (the file mapped, or a string).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "redis_value.h"

namespace teksdb::server {

class RdbFile {
 public:
  explicit RdbFile(std::string_view bytes) : bytes_(bytes) {}

  // Reads the header and checks the checksum; false (error()) if this is
  // not an RDB file of a version this reader knows, or it is damaged.
  bool Start();

  enum class Item { kKey, kFunction, kEnd, kError };
  struct Entry {
    int db = 0;
    std::string key;
    int64_t expire_ms = 0;  // absolute; 0: none
    RedisValue value;
    std::string function_code;  // kFunction: a library's source
  };
  // The next key or function library; kEnd after the end opcode (the
  // file's last bytes), kError (error()) on a damaged file.
  Item Next(Entry* entry);

  int version() const { return version_; }
  size_t position() const { return pos_; }
  size_t size() const { return bytes_.size(); }
  const std::string& error() const { return error_; }

 private:
  Item Fail(const std::string& what);

  std::string_view bytes_;
  size_t pos_ = 0;
  int version_ = 0;
  int db_ = 0;
  std::string error_;
};

}  // namespace teksdb::server
