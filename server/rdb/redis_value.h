// RedisValue: one key's value as Redis's serialization sees it, whatever
// teksdb-server stores it as: a string, or a list, set, sorted set or hash
// with all its elements. What DUMP writes and RESTORE and the RDB importer
// read (rdb_value.h); commands/'s value_image.h reads and writes a key as
// one.
//
// Thread safety: a plain value.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace teksdb::server {

struct RedisValue {
  enum class Type { kString, kList, kSet, kZSet, kHash };
  Type type = Type::kString;
  std::string string;                                       // kString
  std::vector<std::string> elements;                        // kList, in order; kSet
  std::vector<std::pair<std::string, double>> scored;       // kZSet, by (score, member)
  std::vector<std::pair<std::string, std::string>> fields;  // kHash
  // Small enough for Redis's compact encodings (a listpack, or an intset
  // of integers): what DUMP writes it as, as Redis would.
  bool compact = false;
};

}  // namespace teksdb::server
