// Keyspace: Redis keys stored in a RocksDB database, Ardb-style. Each key
// has one meta record, "M" + key -> [type][expiry][payload]: the type byte
// ('s' string, 'h' hash, 'S' set, 'l' list, 'z' sorted set), the expiry as milliseconds since the epoch, 8
// bytes big-endian (0: none), and the payload: a string's value, a
// collection's member count (8 bytes big-endian). A collection's members
// are records of their own under the key's member prefix, "H" + the key's
// length (4 bytes big-endian) + key, followed by the field: so one key's
// members are contiguous and in order, a whole hash is a seek and a short
// scan (the paper's range_query), and updating one field is two puts. A
// sorted set also keeps a score index: "Z" + the key's length + key +
// score (8 bytes that sort as the doubles do) + member, so ranges by score
// and by rank are seeks and scans.
//
// Expired keys read as absent (expiry is enforced on read), and the
// background sweep (expiry_sweeper.h) deletes them with their members. A write that
// replaces a key (SET over a hash, a new hash where an expired one was,
// DEL) first deletes the old key's members in the same batch
// (DeleteMembers), so none outlive their key.
//
// Thread safety: reads take no lock (one RocksDB read each). Every write of
// a key runs under that key's lock (LockKeys; a stripe of 1024 mutexes, by
// hash of the key), so read-modify-write commands (INCR, SET NX, APPEND,
// EXPIRE, ...) are atomic against every other write of the key, and two
// clients incrementing one counter never lose an increment. Multi-key
// writes lock every stripe they touch in stripe order, and write one
// WriteBatch, so they are atomic too.
#pragma once

#include <atomic>
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
  static constexpr char kHash = 'h';
  static constexpr char kSet = 'S';
  static constexpr char kList = 'l';
  static constexpr char kZSet = 'z';

  // What TYPE replies for a type byte.
  static const char* TypeName(char type);

  struct Value {
    char type = kString;
    int64_t expire_ms = 0;  // 0: never
    std::string payload;
  };

  // `sync`: every write waits for the WAL to reach the disk.
  Keyspace(ROCKSDB_NAMESPACE::DB* db, bool sync);

  // The key's value, unless it is absent or expired.
  ROCKSDB_NAMESPACE::Status Read(const std::string& key, std::optional<Value>* value) const;
  // The key's value even if expired (then *expired is set).
  ROCKSDB_NAMESPACE::Status ReadAny(const std::string& key, std::optional<Value>* value,
                                    bool* expired) const;

  // A batch of writes, applied atomically by Commit.
  class Batch {
   public:
    void Put(const std::string& key, const Value& value);
    void Delete(const std::string& key);
    void PutMember(const std::string& key, const std::string& member, const std::string& value);
    void DeleteMember(const std::string& key, const std::string& member);
    // Score index entries of a sorted set (`entry`: encoded score + member).
    void PutIndex(const std::string& key, const std::string& entry);
    void DeleteIndex(const std::string& key, const std::string& entry);

   private:
    friend class Keyspace;
    ROCKSDB_NAMESPACE::WriteBatch batch_;
    bool sets_expiry_ = false;
  };
  ROCKSDB_NAMESPACE::Status Commit(Batch* batch);

  // Adds to `batch` the deletion of every member of `key`, if what is stored
  // there (live or expired) is a collection. For writes that replace the key.
  ROCKSDB_NAMESPACE::Status DeleteMembers(const std::string& key, Batch* batch) const;

  // One member's value, or nullopt.
  ROCKSDB_NAMESPACE::Status ReadMember(const std::string& key, const std::string& member,
                                       std::optional<std::string>* value) const;
  // Every member of `key` from `from` on, in member order, passed to
  // `visit` until it returns false.
  ROCKSDB_NAMESPACE::Status ForEachMember(
      const std::string& key,
      const std::function<bool(const std::string& member, const std::string& value)>& visit,
      const std::string& from = std::string()) const;
  // The same over a sorted set's score index (entries: score + member).
  ROCKSDB_NAMESPACE::Status ForEachIndexEntry(
      const std::string& key,
      const std::function<bool(const std::string& entry)>& visit,
      const std::string& from = std::string()) const;

  // Locks the stripes of `keys` (in stripe order) until the result dies.
  std::vector<std::unique_lock<std::mutex>> LockKeys(const std::vector<std::string>& keys);

  // Every live key from `start` on (inclusive), in key order, passed to
  // `visit` until it returns false; expired keys too if `include_expired`.
  ROCKSDB_NAMESPACE::Status ForEachKey(
      const std::function<bool(const std::string& key, const Value& value)>& visit,
      const std::string& start = std::string(), bool include_expired = false) const;

  // Deletes `key` and its members if it is expired (under its lock); sets
  // *reclaimed when it did. For the background expiry sweep.
  ROCKSDB_NAMESPACE::Status ReclaimIfExpired(const std::string& key, bool* reclaimed);

  // How many committed batches have set an expiry so far: the sweep idles
  // while this stands still and no key it saw had an expiry.
  uint64_t expiry_writes() const { return expiry_writes_.load(std::memory_order_relaxed); }

  // Removes every key.
  ROCKSDB_NAMESPACE::Status Clear();

  static int64_t NowMs();

 private:
  static std::string MetaKey(const std::string& key) { return "M" + key; }
  static std::string MemberPrefix(const std::string& key) { return Prefixed('H', key); }
  static std::string IndexPrefix(const std::string& key) { return Prefixed('Z', key); }
  static std::string Prefixed(char tag, const std::string& key);
  static std::string Encode(const Value& value);
  static bool Decode(const ROCKSDB_NAMESPACE::Slice& bytes, Value* value);
  // Every record under `prefix`, from prefix + `from` on: the rest of its
  // key and its value, until `visit` returns false.
  ROCKSDB_NAMESPACE::Status ScanPrefix(
      const std::string& prefix, const std::string& from,
      const std::function<bool(const std::string&, const ROCKSDB_NAMESPACE::Slice&)>& visit) const;

  ROCKSDB_NAMESPACE::DB* const db_;
  ROCKSDB_NAMESPACE::WriteOptions write_options_;
  static constexpr size_t kStripes = 1024;
  std::unique_ptr<std::mutex[]> stripes_;
  std::atomic<uint64_t> expiry_writes_{0};
};

}  // namespace teksdb::server
