// Keyspace: Redis keys stored in a RocksDB database, in storage_format.h's
// layout: a meta record per key, and a collection's members, score index
// and owner record under the collection's version. Reads and writes of
// members take the version from the meta record (Value::version), so a
// write that replaces or deletes a key (SET over a hash, DEL, an expiry
// reached and swept, a new hash where an expired one was) writes only the
// meta record, O(1) whatever the key held; the old version's records are
// invisible from then on and compactions remove them
// (stale_member_filter.h).
//
// Expired keys read as absent (expiry is enforced on read), and the
// background sweep (expiry_sweeper.h) deletes their meta records; so does
// the command whose read met one (RecordExpiredReads), as Redis's reads do.
//
// Thread safety: reads take no lock (one RocksDB read each). Every write of
// a key runs under that key's lock (LockKeys; a stripe of 1024 mutexes, by
// hash of the key), so read-modify-write commands (INCR, SET NX, APPEND,
// EXPIRE, ...) are atomic against every other write of the key, and two
// clients incrementing one counter never lose an increment. Multi-key
// writes lock every stripe they touch in stripe order, and write one
// WriteBatch, so they are atomic too. Writers also hold one of kGates
// gates shared; a transaction that must hold the whole keyspace still
// takes every gate exclusively (BeginTransaction, write_group.h). A read
// without the key's lock may
// find records of the version it read removed by a compaction once another
// write replaced it: Unchanged tells such a read to start again.
//
// Databases. SELECT's 16 databases: a view reads and writes one (Select),
// each kept under one slot of the records (storage_format.h); SWAPDB
// exchanges two databases' slots. WATCH and blocked clients name a key with
// its database (Name).
//
// Views. A Keyspace is a view of shared state (the database, the stripes,
// the version allocator): the server's own commits each write at once; a
// connection's view (InGroup) stages its writes in the connection's
// WriteGroup (write_group.h), reads through them, and leaves the stripes
// it locks to the group, until FlushGroup writes them all in one
// DB::Write. Copies are cheap; the shared state lives while any view does.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "key_waiters.h"
#include "key_write_listener.h"
#include "prefetched_meta.h"
#include "storage_format.h"
#include "version_allocator.h"
#include "watched_keys.h"
#include "write_group.h"

namespace teksdb::server {

class Keyspace {
 public:
  static constexpr char kString = storage_format::kString;
  static constexpr char kHash = storage_format::kHash;
  static constexpr char kSet = storage_format::kSet;
  static constexpr char kList = storage_format::kList;
  static constexpr char kZSet = storage_format::kZSet;
  static constexpr char kStream = storage_format::kStream;

  // What TYPE replies for a type byte.
  static const char* TypeName(char type);

  // A meta record: type, expiry, payload and, for a collection, version.
  using Value = storage_format::Meta;

  // `sync`: every write waits for the WAL to reach the disk.
  // REQUIRES: storage_format::Prepare(db) accepted the database.
  Keyspace(ROCKSDB_NAMESPACE::DB* db, bool sync);

  static constexpr int kDatabases = storage_format::kDatabases;

  // Whether every write waits for the WAL to reach the disk (`sync`).
  bool syncs_writes() const { return shared_->write_options.sync; }

  // A view whose writes are staged in `group` (see Views above).
  Keyspace InGroup(WriteGroup* group) const;
  // This view in database `db` (0 <= db < kDatabases): the same group,
  // nothing prefetched.
  Keyspace InDatabase(int db) const;
  // SELECT: this view reads and writes database `db` from now on.
  void Select(int db);
  int database() const { return db_; }
  // A key's name across databases, for WATCH and blocked clients: its
  // database's number (one byte), then the key.
  std::string Name(const std::string& key) const;
  static int NameDatabase(const std::string& name);
  static std::string NameKey(const std::string& name);

  // The keys a command's commits wrote, for keyspace notifications: while
  // a sink is set (RecordWrites), every Commit through this view appends
  // each key whose meta record it writes, in its database, and whether
  // the write deleted it. RecordWrites(nullptr) stops.
  struct WrittenKey {
    int db;
    std::string key;
    bool deleted;
  };
  void RecordWrites(std::vector<WrittenKey>* sink) { written_ = sink; }

  // Lazy expiry: while a sink is set, every read through this view (and
  // its copies) that finds a key expired - Read, ReadMany, ReadView,
  // ForEachKey without expired keys - appends it, so that its connection
  // can delete it once its writes are in (ExpirySweeper::ReclaimRead), as
  // Redis deletes an expired key its reads meet. At most kMaxExpiredReads
  // in a sink: the sweep takes the rest. RecordExpiredReads(nullptr) stops.
  static constexpr size_t kMaxExpiredReads = 64;
  struct ExpiredRead {
    int db;
    std::string key;
    // A hash field past its deadline (NoteExpiredField), not the key.
    bool is_field = false;
    std::string field;
  };
  void RecordExpiredReads(std::vector<ExpiredRead>* sink) { expired_reads_ = sink; }
  // A read met hash `key`'s `field` past its deadline: recorded as above,
  // for its connection to reclaim (field_deadlines.h).
  void NoteExpiredField(const std::string& key, const std::string& field) const {
    if (expired_reads_ != nullptr && expired_reads_->size() < kMaxExpiredReads) {
      expired_reads_->push_back({db_, key, true, field});
    }
  }
  bool recording_expired_reads() const { return expired_reads_ != nullptr; }

  // Who is told of written keys once they are in the database (main sets
  // CLIENT TRACKING's), and the connection this view writes for (0: the
  // server's own writes).
  void SetWriteListener(KeyWriteListener* listener) {
    shared_->listener.store(listener, std::memory_order_release);
  }
  void set_writer(uint64_t id) { writer_ = id; }
  // A read of `keys` by this view's connection, for the listener
  // (KeyWriteListener::Read): now, or after the group's flush for keys the
  // group wrote.
  void NoteRead(const std::vector<std::string>& keys, bool caching_given);

  // At start, and after a replica's full sync: reads which slot holds each
  // database (storage_format.h).
  ROCKSDB_NAMESPACE::Status LoadDatabases();
  // SWAPDB: databases `a` and `b` exchange their keys, O(1); watchers and
  // blocked clients of both are touched as Redis 7.0 touches them.
  // REQUIRES: a group's view holding the whole keyspace (BeginTransaction).
  ROCKSDB_NAMESPACE::Status SwapDatabases(int a, int b);
  // FLUSHDB: removes every key of this view's database.
  ROCKSDB_NAMESPACE::Status ClearDatabase();
  // A batch a replica applied (replication/): the databases' slots read
  // again if it rewrote them, and the watchers and blocked clients of the
  // keys it wrote touched, as for a commit.
  void Applied(const ROCKSDB_NAMESPACE::WriteBatch& batch);
  // Writes what this view's group staged, releasing its stripes (nothing
  // to do without a group). On failure the group has rewritten the replies
  // it vouched for; the status is returned all the same.
  ROCKSDB_NAMESPACE::Status FlushGroup();

  // The key's value, unless it is absent or expired.
  ROCKSDB_NAMESPACE::Status Read(const std::string& key, std::optional<Value>* value) const;
  // Read of several keys at once (one RocksDB MultiGet): (*values)[i] is
  // keys[i]'s value, unless it is absent or expired.
  ROCKSDB_NAMESPACE::Status ReadMany(const std::vector<std::string>& keys,
                                     std::vector<std::optional<Value>>* values) const;
  // Reads the meta records of `keys` in one MultiGet and keeps them, so the
  // Reads of those keys that follow in this view take them from there,
  // until this view writes anything, Prefetch is called again or Unchanged
  // finds a key changed (a connection's run of pipelined GETs, HGETs,
  // HGETALLs, SMEMBERS and the like: their meta records, a compact
  // collection whole, are read as of the prefetch, which lies
  // between their arrival and their replies). A hint: a failure only
  // leaves nothing kept, and it keeps no more than kPrefetchBytes of values
  // (a run of GETs of big values costs no more memory than the replies the
  // connection may hold). Prefetch({}) drops what was kept.
  static constexpr uint64_t kPrefetchBytes = 64 * 1024;
  void Prefetch(const std::vector<ROCKSDB_NAMESPACE::Slice>& keys);
  // The key's value even if expired (then *expired is set).
  ROCKSDB_NAMESPACE::Status ReadAny(const std::string& key, std::optional<Value>* value,
                                    bool* expired) const;
  // Read without a copy: the key's meta record decoded in place, its
  // payload in *held or in what Prefetch kept (valid while *held lives and
  // this view neither writes nor prefetches again); nullopt if the key is
  // absent or expired.
  ROCKSDB_NAMESPACE::Status ReadView(const std::string& key, ROCKSDB_NAMESPACE::PinnableSlice* held,
                                     std::optional<storage_format::MetaView>* view) const;

  // Whether `key` still holds `version` (absent or another type: no), for
  // reads without the key's lock that met fewer members than they expected.
  // Asks the database, not what Prefetch kept, and drops that if not: the
  // read that runs again then reads afresh.
  ROCKSDB_NAMESPACE::Status Unchanged(const std::string& key, uint64_t version,
                                      bool* unchanged);

  // A version for a new collection, never handed out before.
  ROCKSDB_NAMESPACE::Status NewVersion(uint64_t* version) {
    return shared_->versions.Next(version);
  }

  // A batch of writes, applied atomically by Commit. Its keys are in the
  // database of the view that commits it, unless named (the ...In forms).
  class Batch {
   public:
    // Writes the meta record of `key`, replacing whatever it held.
    void Put(const std::string& key, const Value& value) { PutIn(kViewsDatabase, key, value); }
    // Put of a collection whose version is new (NewVersion), or that moves
    // to another key (RENAME, MOVE): its owner record too (none for a
    // compact collection, version 0: it has no member records; a
    // listpackex hash's for its due version, compact_members.h).
    void PutNew(const std::string& key, const Value& value) {
      PutNewIn(kViewsDatabase, key, value);
    }
    void Delete(const std::string& key) { DeleteIn(kViewsDatabase, key); }
    // Members put into the compact collection at `key`, written as a merge
    // operand (`puts`, a compact payload of them; compact_puts_merge.h);
    // `value` is the record after them, what the write group's later reads
    // see. REQUIRES: `key` holds a compact collection, read under its lock.
    void MergePuts(const std::string& key, const Value& value, const std::string& puts);
    // The same in database `db` (MOVE, COPY ... DB).
    void PutIn(int db, const std::string& key, const Value& value);
    void PutNewIn(int db, const std::string& key, const Value& value);
    void DeleteIn(int db, const std::string& key);
    void PutMember(uint64_t version, const std::string& member, const std::string& value);
    void DeleteMember(uint64_t version, const std::string& member);
    // Score index entries of a sorted set (`entry`: encoded score + member).
    void PutIndex(uint64_t version, const std::string& entry);
    void DeleteIndex(uint64_t version, const std::string& entry);
    // A hash field's deadline: its "E" record and its due entry
    // (storage_format.h). Deleting it takes the deadline it had, whose due
    // entry goes too.
    void PutDeadline(uint64_t version, const std::string& field, int64_t deadline_ms);
    void DeleteDeadline(uint64_t version, const std::string& field, int64_t old_deadline_ms);
    // A due entry alone: a listpackex's field (its deadline is in the
    // compact record; `version` its due version), or the sweep's delete
    // once it acted on one.
    void PutDue(int64_t deadline_ms, uint64_t version, const std::string& field);
    void DeleteDue(int64_t deadline_ms, uint64_t version, const std::string& field);

   private:
    friend class Keyspace;
    static constexpr int kViewsDatabase = -1;
    // A meta record's write, kept until Commit knows the database's slot.
    struct MetaWrite {
      int db;
      std::string key;
      std::string value;  // the encoded meta record
      bool erase;
      bool owner;  // PutNew: the owner record too
      uint64_t version;
      std::string puts;  // MergePuts: the operand
    };
    ROCKSDB_NAMESPACE::WriteBatch batch_;
    std::vector<std::string> merged_values_;  // the values of batch_'s Merges, in order
    std::vector<MetaWrite> metas_;
    bool sets_expiry_ = false;
  };
  // Writes `batch` (in a group's view: stages it, REQUIRES the batch's keys
  // locked through this view).
  ROCKSDB_NAMESPACE::Status Commit(Batch* batch);

  // One member's value in collection `version`, or nullopt.
  ROCKSDB_NAMESPACE::Status ReadMember(uint64_t version, const std::string& member,
                                       std::optional<std::string>* value) const;
  // Several members' values in collection `version` (one MultiGet).
  ROCKSDB_NAMESPACE::Status ReadMembers(uint64_t version, const std::vector<std::string>& members,
                                        std::vector<std::optional<std::string>>* values) const;
  // Hash fields' deadlines in collection `version` (one MultiGet of their
  // "E" records): (*deadlines)[i] is fields[i]'s, 0 if it has none.
  ROCKSDB_NAMESPACE::Status ReadDeadlines(uint64_t version, const std::vector<std::string>& fields,
                                          std::vector<int64_t>* deadlines) const;
  // Every member of collection `version` from `from` on with its deadline
  // (0: none), in member order: its "H" and "E" records walked together.
  ROCKSDB_NAMESPACE::Status ForEachMemberWithDeadline(
      uint64_t version,
      const std::function<bool(const std::string& member, const std::string& value,
                               int64_t deadline_ms)>& visit,
      const std::string& from = std::string()) const;
  // The due entries with a deadline at or before `now_ms`, in deadline
  // order, from the entry key `from` on (empty: the first), until `visit`
  // returns false; *any: whether there is any due entry from there on, due
  // yet or not (the sweep's reason to stay awake).
  ROCKSDB_NAMESPACE::Status ForEachDue(
      int64_t now_ms,
      const std::function<bool(int64_t deadline_ms, uint64_t version, const std::string& field)>&
          visit,
      bool* any, const std::string& from = std::string()) const;
  // The database and key whose meta record collection `version` belongs to
  // (its owner record); *found is false when there is none.
  ROCKSDB_NAMESPACE::Status OwnerOf(uint64_t version, int* db, std::string* key,
                                    bool* found) const;
  // Every member of collection `version` from `from` on, in member order,
  // passed to `visit` until it returns false.
  ROCKSDB_NAMESPACE::Status ForEachMember(
      uint64_t version,
      const std::function<bool(const std::string& member, const std::string& value)>& visit,
      const std::string& from = std::string()) const;
  // The same backwards: every member below `before` (all of them if it
  // is empty), from the highest down.
  ROCKSDB_NAMESPACE::Status ForEachMemberBackward(
      uint64_t version,
      const std::function<bool(const std::string& member, const std::string& value)>& visit,
      const std::string& before = std::string()) const;
  // The same over a sorted set's score index (entries: score + member).
  ROCKSDB_NAMESPACE::Status ForEachIndexEntry(
      uint64_t version,
      const std::function<bool(const std::string& entry)>& visit,
      const std::string& from = std::string()) const;
  // The same backwards: every entry below `before` (all of them if it is
  // empty), from the highest down.
  ROCKSDB_NAMESPACE::Status ForEachIndexEntryBackward(
      uint64_t version,
      const std::function<bool(const std::string& entry)>& visit,
      const std::string& before = std::string()) const;

  // What LockKeys holds for a writer without a group: a gate, shared, and
  // the stripes.
  struct KeyLocks {
    std::shared_lock<std::shared_mutex> gate;
    std::vector<std::unique_lock<std::mutex>> stripes;
  };
  // Locks the stripes of `keys` (in stripe order, under a gate held shared:
  // write_group.h) until the result dies; in a group's view, until the group
  // flushes (the result is then empty), and a stripe or gate taken by
  // another client makes the group flush first.
  KeyLocks LockKeys(const std::vector<std::string>& keys);

  // EXEC and scripts: takes the stripes of `keys` (every gate, exclusively,
  // if `whole_keyspace` or they are more than kGates stripes), waiting, after flushing what the group staged, and
  // keeps them in the group, flushes included, until EndTransaction: the
  // commands that run in between are atomic for every other client (their
  // writes reach the database in one DB::Write, or several only where a
  // command cannot be staged, FLUSHALL, with no other writer in between).
  // REQUIRES: a group's view; `keys` covers every key the commands touch.
  void BeginTransaction(const std::vector<std::string>& keys, bool whole_keyspace);
  void EndTransaction();
  // Drops the group's staged writes unwritten, for good
  // (WriteGroup::Abandon).
  void AbandonGroup(const std::string& error) {
    if (group_ != nullptr) group_->Abandon(error);
  }
  bool InTransaction() const { return group_ != nullptr && group_->in_transaction(); }

  // WATCH: who watches which key; every commit touches it (watched_keys.h).
  WatchedKeys& watched() const { return shared_->watched; }
  // Connections blocked on keys; every commit that stores a key wakes its
  // waiters (key_waiters.h).
  KeyWaiters& waiters() const { return shared_->waiters; }

  // Every live key from `start` on (inclusive), in key order, passed to
  // `visit` until it returns false; expired keys too if `include_expired`.
  ROCKSDB_NAMESPACE::Status ForEachKey(
      const std::function<bool(const std::string& key, const Value& value)>& visit,
      const std::string& start = std::string(), bool include_expired = false) const;

  // Deletes `key` if it is expired (under its lock; its members go with
  // compactions); sets *reclaimed when it did. For the background expiry
  // sweep.
  ROCKSDB_NAMESPACE::Status ReclaimIfExpired(const std::string& key, bool* reclaimed);

  // How many committed batches have set an expiry so far: the sweep idles
  // while this stands still and no key it saw had an expiry.
  uint64_t expiry_writes() const {
    return shared_->expiry_writes.load(std::memory_order_relaxed);
  }

  // FLUSHALL: removes every key of every database (the server records
  // stay).
  ROCKSDB_NAMESPACE::Status Clear();

  // The time expiries are read and set against: the clock, or the time
  // frozen on this thread by a FrozenTime (a script's run: Redis reads
  // every expiry inside a script as of the script's start).
  static int64_t NowMs();
  class FrozenTime {
   public:
    FrozenTime();  // freezes now, unless an outer one froze already
    ~FrozenTime();
    FrozenTime(const FrozenTime&) = delete;
    FrozenTime& operator=(const FrozenTime&) = delete;

   private:
    bool froze_;
  };

 private:
  // Every record under `prefix`, from prefix + `from` on: the rest of its
  // key and its value, until `visit` returns false. Backward: below
  // prefix + `before` (all under `prefix` if empty), from the highest down.
  ROCKSDB_NAMESPACE::Status ScanPrefix(
      const std::string& prefix, const std::string& from,
      const std::function<bool(const std::string&, const ROCKSDB_NAMESPACE::Slice&)>& visit) const;
  ROCKSDB_NAMESPACE::Status ScanPrefixBackward(
      const std::string& prefix, const std::string& before,
      const std::function<bool(const std::string&, const ROCKSDB_NAMESPACE::Slice&)>& visit) const;
  // Records by their RocksDB keys in one MultiGet, through the group's
  // staged writes if any; once the values read pass `value_bytes_limit`,
  // the rest come back Aborted.
  void MultiGet(size_t n, const ROCKSDB_NAMESPACE::Slice* records, uint64_t value_bytes_limit,
                ROCKSDB_NAMESPACE::PinnableSlice* found,
                ROCKSDB_NAMESPACE::Status* statuses) const;
  // The values of records prefix + name for each of `names` (one
  // MultiGet), nullopt for those absent.
  ROCKSDB_NAMESPACE::Status ReadUnder(const std::string& prefix,
                                      const std::vector<std::string>& names,
                                      std::vector<std::optional<std::string>>* values) const;
  // Records by their RocksDB keys, into vectors sized to them.
  void MultiGet(const std::vector<std::string>& records,
                std::vector<ROCKSDB_NAMESPACE::PinnableSlice>* found,
                std::vector<ROCKSDB_NAMESPACE::Status>* statuses) const;
  // ReadView's read, expired keys included (then *expired is set).
  ROCKSDB_NAMESPACE::Status ReadAnyView(const std::string& key,
                                        ROCKSDB_NAMESPACE::PinnableSlice* held,
                                        std::optional<storage_format::MetaView>* view,
                                        bool* expired) const;
  // One record, or one iterator, through the group's staged writes if any.
  ROCKSDB_NAMESPACE::Status Get(const std::string& record,
                                ROCKSDB_NAMESPACE::PinnableSlice* value) const;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> NewIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read) const;
  // The slot of database `db`, and of this view's.
  uint8_t SlotOf(int db) const { return shared_->slots[db].load(std::memory_order_acquire); }
  uint8_t slot() const { return SlotOf(db_); }
  std::string MetaKey(const std::string& key) const { return storage_format::MetaKey(slot(), key); }
  // Clear and ClearDatabase: deletes the records in [begin, end), the meta
  // records of `databases`, touching those databases' watched keys that
  // are stored (expired or not) and telling the listener.
  ROCKSDB_NAMESPACE::Status ClearRange(const std::vector<int>& databases,
                                       const ROCKSDB_NAMESPACE::Slice& begin,
                                       const ROCKSDB_NAMESPACE::Slice& end);

  static constexpr size_t kStripes = 1024;
  static constexpr size_t kGates = 16;
  struct Shared {
    Shared(ROCKSDB_NAMESPACE::DB* db, bool sync);
    ROCKSDB_NAMESPACE::DB* const db;
    ROCKSDB_NAMESPACE::WriteOptions write_options;
    std::unique_ptr<std::mutex[]> stripes;
    std::unique_ptr<std::shared_mutex[]> gates;
    std::atomic<size_t> views{0};  // hands each group's view its gate
    std::atomic<uint64_t> expiry_writes{0};
    VersionAllocator versions;
    WatchedKeys watched;
    KeyWaiters waiters;
    // slots[db]: database db's slot (storage_format.h); written only under
    // every gate, exclusively (SwapDatabases), at start, or on a replica
    // when an applied batch rewrites them (LoadDatabases).
    std::array<std::atomic<uint8_t>, kDatabases> slots;
    std::atomic<KeyWriteListener*> listener{nullptr};
  };
  // The listener, if one is set and listening.
  KeyWriteListener* Listening() const {
    KeyWriteListener* listener = shared_->listener.load(std::memory_order_acquire);
    return listener != nullptr && listener->listening() ? listener : nullptr;
  }
  // Touches the watched keys whose meta records `batch` writes, wakes the
  // waiters of those it stores, and records them all in `written` if set.
  void TouchWatched(const ROCKSDB_NAMESPACE::WriteBatch& batch,
                    std::vector<WrittenKey>* written = nullptr) const;
  size_t StripeOf(const std::string& key) const;
  // What Prefetch read; empty again at this view's next write. Each view
  // its own (InGroup copies it, empty).
  PrefetchedMeta prefetched_;

  ROCKSDB_NAMESPACE::DB* db() const { return shared_->db; }

  std::shared_ptr<Shared> shared_;
  WriteGroup* group_ = nullptr;
  size_t gate_ = 0;  // the gate this view's writers hold shared
  int db_ = 0;       // the database this view reads and writes
  std::vector<WrittenKey>* written_ = nullptr;  // RecordWrites's sink
  std::vector<ExpiredRead>* expired_reads_ = nullptr;  // RecordExpiredReads's sink
  void NoteExpiredRead(const std::string& key) const {
    if (expired_reads_ != nullptr && expired_reads_->size() < kMaxExpiredReads) {
      expired_reads_->push_back({db_, key, false, std::string()});
    }
  }
  uint64_t writer_ = 0;                          // set_writer's
};

}  // namespace teksdb::server
