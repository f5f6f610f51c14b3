// Keyspace: Redis keys stored in a RocksDB database, Ardb-style. Each key
// has one meta record, "M" + key -> [type][expiry][payload]: the type byte
// ('s' string), the expiry as milliseconds since the epoch, 8 bytes
// big-endian (0: none), and for a string its value. Collections will add
// one RocksDB key per member beside their meta record.
//
// Expired keys read as absent (expiry is enforced on read) and are
// overwritten or deleted by the next write.
//
// Thread safety: reads take no lock (one RocksDB read each). Every write of
// a key runs under that key's lock (LockKeys; a stripe of 1024 mutexes, by
// hash of the key), so read-modify-write commands (INCR, SET NX, APPEND,
// EXPIRE, ...) are atomic against every other write of the key, and two
// clients incrementing one counter never lose an increment. Multi-key
// writes lock every stripe they touch in stripe order, and write one
// WriteBatch, so they are atomic too.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rocksdb/db.h"

namespace teksdb::server {

class Keyspace {
 public:
  static constexpr char kString = 's';

  struct Value {
    char type = kString;
    int64_t expire_ms = 0;  // 0: never
    std::string payload;
  };

  // `sync`: every write waits for the WAL to reach the disk.
  Keyspace(ROCKSDB_NAMESPACE::DB* db, bool sync);

  // The key's value, unless it is absent or expired.
  ROCKSDB_NAMESPACE::Status Read(const std::string& key, std::optional<Value>* value) const;

  // A batch of writes, applied atomically by Commit.
  class Batch {
   public:
    void Put(const std::string& key, const Value& value);
    void Delete(const std::string& key);

   private:
    friend class Keyspace;
    ROCKSDB_NAMESPACE::WriteBatch batch_;
  };
  ROCKSDB_NAMESPACE::Status Commit(Batch* batch);

  // Locks the stripes of `keys` (in stripe order) until the result dies.
  std::vector<std::unique_lock<std::mutex>> LockKeys(const std::vector<std::string>& keys);

  // Every live key, in key order, passed to `visit` until it returns false.
  template <typename Visit>
  ROCKSDB_NAMESPACE::Status ForEachKey(Visit visit) const;

  // Removes every key.
  ROCKSDB_NAMESPACE::Status Clear();

  static int64_t NowMs();

 private:
  static std::string MetaKey(const std::string& key) { return "M" + key; }
  static std::string Encode(const Value& value);
  static bool Decode(const ROCKSDB_NAMESPACE::Slice& bytes, Value* value);
  // Iterates the meta records; ForEachKey's body.
  ROCKSDB_NAMESPACE::Status Scan(const std::function<bool(const std::string&, const Value&)>& visit) const;

  ROCKSDB_NAMESPACE::DB* const db_;
  ROCKSDB_NAMESPACE::WriteOptions write_options_;
  static constexpr size_t kStripes = 1024;
  std::unique_ptr<std::mutex[]> stripes_;
};

template <typename Visit>
ROCKSDB_NAMESPACE::Status Keyspace::ForEachKey(Visit visit) const {
  return Scan([&](const std::string& key, const Value& value) { return visit(key, value); });
}

}  // namespace teksdb::server
