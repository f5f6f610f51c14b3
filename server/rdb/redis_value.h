// RedisValue: one key's value as Redis's serialization sees it, whatever
// teksdb-server stores it as: a string, or a list, set, sorted set, hash
// or stream with all its elements (a stream's groups, consumers and
// pending entries too). What DUMP writes and RESTORE and the RDB importer
// read (rdb_value.h); commands/'s value_image.h reads and writes a key as
// one.
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace teksdb::server {

struct RedisStream {
  struct Id {
    uint64_t ms = 0, seq = 0;
    bool operator<(const Id& o) const { return ms < o.ms || (ms == o.ms && seq < o.seq); }
    bool operator==(const Id& o) const { return ms == o.ms && seq == o.seq; }
  };
  struct Entry {
    Id id;
    std::vector<std::pair<std::string, std::string>> fields;
  };
  struct Pending {
    Id id;
    int64_t delivery_ms = 0;
    uint64_t delivery_count = 0;
    std::string consumer;
  };
  struct Consumer {
    std::string name;
    int64_t seen_ms = 0;
  };
  struct Group {
    std::string name;
    Id last_id;
    int64_t entries_read = -1;  // -1: unknown
    std::vector<Pending> pending;  // by id
    std::vector<Consumer> consumers;
  };
  std::vector<Entry> entries;  // by id
  Id last_id, first_id, max_deleted;
  uint64_t entries_added = 0;
  std::vector<Group> groups;
};

struct RedisValue {
  enum class Type { kString, kList, kSet, kZSet, kHash, kStream };
  Type type = Type::kString;
  std::string string;                                       // kString
  std::vector<std::string> elements;                        // kList, in order; kSet
  std::vector<std::pair<std::string, double>> scored;       // kZSet, by (score, member)
  std::vector<std::pair<std::string, std::string>> fields;  // kHash
  // kHash: each field's deadline (milliseconds since the epoch, 0: none),
  // beside `fields`; empty when no field has one.
  std::vector<int64_t> field_deadlines;
  RedisStream stream;                                       // kStream
  // Small enough for Redis's compact encodings (a listpack, or an intset
  // of integers): what DUMP writes it as, as Redis would.
  bool compact = false;
};

}  // namespace teksdb::server
