// TeksTableRep: the MemTableRep that weaves the cuckoo hash and the skip list
// over one pool of records (paper §4). The data paths:
//
//   put  -> record (Allocate) -> hash: new key?  -> link queue -> skip list
//                                      existing? -> copied into a version of
//                                                   its own -> that key's
//                                                   VersionChain (the record's
//                                                   memory serves the thread's
//                                                   next Allocate)
//   get  -> hash -> record -> first version <= the reader's sequence
//   seek -> hash (shortcut, if the key is here) or skip list (from the
//           nearest anchor, AnchorDirectory) -> versions
//
// Thread safety: as RocksDB's MemTableRep contract requires. Inserts may run
// concurrently with each other (allow_concurrent_memtable_write) and with
// any reads; reads take no locks. Iterators and Get may outlive
// MarkReadOnly()/MarkFlushed() and run until the rep is destroyed.
//
// Invariants:
//   - Every entry RocksDB inserts (exact duplicates refused) joins exactly
//     one VersionChain, that of its user key's one LIVE record, and stays
//     reachable there until dropped; Get never needs the skip list.
//   - Without a VersionDropPolicy every version is kept until destruction
//     (flush sees every entry it counted). With one, a version is unlinked
//     only when the policy proves no reader can need it, and its memory is
//     reused (VersionRecycler) only once no read that could have reached
//     it is still running: every read of versions or of the hash (Get,
//     MultiGet, Contains, InsertKey, an iterator for its life) holds
//     reader_epochs(). The same epochs let a hash table a resize replaced
//     serve new records (RetiredMemory).
//   - Every ordered read first makes the skip list complete up to every
//     record inserted before it (LinkQueue::WaitUntilLinked). While ordered
//     reads run, writers link their new keys themselves (LinkQueue::Add),
//     so that readers do not wait for the linker.
//
// Design notes: docs/DESIGN.md §2.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_set>

#include "cuckoo_index.h"
#include "entry_checks.h"
#include "link_queue.h"
#include "ordered_index.h"
#include "reader_epochs.h"
#include "retired_memory.h"
#include "rocksdb/memtablerep.h"
#include "teksdb/rocksdb_version.h"
#include "teksdb/teks_table.h"
#include "version_recycler.h"

namespace teksdb {

class BackgroundLinker;

// How many keys the last memtable of a factory held when it was sealed: the
// next one sizes its hash for as many, so that in steady state a hash is
// never resized (no retired tables kept in the arena). Shared by the
// factory and its reps; any thread may record or read it.
class KeyCountHint {
 public:
  void Record(size_t keys) { keys_.store(keys, std::memory_order_relaxed); }
  // 0 until a memtable was sealed.
  size_t Get() const { return keys_.load(std::memory_order_relaxed); }

 private:
  std::atomic<size_t> keys_{0};
};

// How many versions this thread's drop attempts have looked at, in every
// rep (VersionChain::DropShadowed). Drops cost amortized O(1) per update:
// tests check this count, which timing could not show reliably.
uint64_t VersionsVisitedByDropsOnThisThread();

class TeksTableRep : public ROCKSDB_NAMESPACE::MemTableRep {
 public:
  TeksTableRep(const KeyComparator& cmp, ROCKSDB_NAMESPACE::Allocator* allocator,
               const TeksTableOptions& options, size_t initial_hash_slots,
               std::shared_ptr<BackgroundLinker> linker,
               std::shared_ptr<VersionDropPolicy> drop_policy, size_t reuse_budget,
               std::shared_ptr<KeyCountHint> key_count_hint = nullptr);
  ~TeksTableRep() override;

  ROCKSDB_NAMESPACE::KeyHandle Allocate(const size_t len, char** buf) override;

  bool InsertKey(ROCKSDB_NAMESPACE::KeyHandle handle) override;
  bool InsertKeyConcurrently(ROCKSDB_NAMESPACE::KeyHandle handle) override {
    return InsertKey(handle);
  }
  bool InsertKeyWithHint(ROCKSDB_NAMESPACE::KeyHandle handle, void**) override {
    return InsertKey(handle);
  }
  bool InsertKeyWithHintConcurrently(ROCKSDB_NAMESPACE::KeyHandle handle,
                                     void**) override {
    return InsertKey(handle);
  }
  void Insert(ROCKSDB_NAMESPACE::KeyHandle handle) override { InsertKey(handle); }
  void InsertConcurrently(ROCKSDB_NAMESPACE::KeyHandle handle) override {
    InsertKey(handle);
  }

  bool Contains(const char* key) const override;
  void Get(const ROCKSDB_NAMESPACE::LookupKey& k, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override;

  // RocksDB's hooks for paranoid reads and batched lookups, as the release
  // built against declares them (rocksdb_version.h); each forwards to the
  // version-independent GetChecked or MultiGetChecked below.
#if TEKSDB_ROCKSDB_HAS_VALIDATING_READS
#if TEKSDB_ROCKSDB_VALIDATION_TAKES_CALLBACK
  ROCKSDB_NAMESPACE::Status GetAndValidate(const ROCKSDB_NAMESPACE::LookupKey& k, void* callback_args,
                        bool (*callback_func)(void* arg, const char* entry),
                        bool allow_data_in_errors, bool detect_key_out_of_order,
                        const EntryChecks::Validator& key_validation_callback) override {
    return GetChecked(k, callback_args, callback_func,
                      {allow_data_in_errors, detect_key_out_of_order, &key_validation_callback});
  }
#else
  ROCKSDB_NAMESPACE::Status GetAndValidate(const ROCKSDB_NAMESPACE::LookupKey& k, void* callback_args,
                        bool (*callback_func)(void* arg, const char* entry),
                        bool allow_data_in_errors) override {
    return GetChecked(k, callback_args, callback_func, {allow_data_in_errors, true, nullptr});
  }
#endif
#endif
#if TEKSDB_ROCKSDB_HAS_REP_MULTIGET
  ROCKSDB_NAMESPACE::Status MultiGet(size_t num_keys, const char* const* keys, void** callback_args,
                  bool (*callback_func)(void* arg, const char* entry), bool allow_data_in_errors,
                  bool detect_key_out_of_order,
                  const EntryChecks::Validator& key_validation_callback) override {
    return MultiGetChecked(num_keys, keys, callback_args, callback_func,
                           {allow_data_in_errors, detect_key_out_of_order, &key_validation_callback});
  }
#endif

  // Get, with `checks` on every version it visits: the first failed check
  // is returned (Corruption, or what RocksDB's entry check says) and the
  // callback sees nothing more.
  ROCKSDB_NAMESPACE::Status GetChecked(const ROCKSDB_NAMESPACE::LookupKey& k, void* callback_args,
                    bool (*callback_func)(void* arg, const char* entry),
                    const EntryChecks& checks);
  // Get for each of `num_keys` memtable keys (length-prefixed internal
  // keys, in any order), with callback_args[i] for keys[i]: what Get would
  // do for each, with `checks` as GetChecked. Batched for memory-level
  // parallelism: every key of a batch is hashed and its buckets fetched
  // before any is probed, then the matching records before they are read,
  // so the batch's cache misses overlap instead of following each other.
  ROCKSDB_NAMESPACE::Status MultiGetChecked(size_t num_keys, const char* const* keys, void** callback_args,
                         bool (*callback_func)(void* arg, const char* entry),
                         const EntryChecks& checks);
  size_t ApproximateMemoryUsage() override;

  // About how many keys (records, not versions) lie in [start_ikey,
  // end_ikey), estimated from the skip list's upper levels. For
  // DB::GetApproximateMemTableStats and GetApproximateSizes; it undercounts
  // entries where keys have several versions.
  uint64_t ApproximateNumEntries(const Slice& start_ikey, const Slice& end_ikey) override;

  // A uniform random sample of min(target_sample_size, reachable entries)
  // distinct entries: versions, not keys, as MemPurge's decider estimates
  // the share of shadowed versions from it. One pass over every record and
  // version (reservoir sampling), so O(entries). Versions already dropped
  // are unreachable and never sampled, which is why `num_entries` (all
  // entries ever added) is not used as the population size.
  // REQUIRES: no concurrent inserts (RocksDB samples immutable memtables).
  void UniqueRandomSample(const uint64_t num_entries, const uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override;

  Iterator* GetIterator(ROCKSDB_NAMESPACE::Arena* arena) override;

  // The memtable is full: tells the key-count hint how many keys it holds,
  // and stops anchor builds (no arena allocation after this).
  void MarkReadOnly() override;
  // Slots of the hash's current table.
  size_t HashCapacity() const { return cuckoo_index_.Capacity(); }

  void WaitUntilLinked();
  // The two indexes, for the iterator's seeks (TeksTableIterator::SeekRecord).
  const OrderedIndex& ordered_index() const { return ordered_index_; }
  const CuckooIndex& cuckoo_index() const { return cuckoo_index_; }
  // Whether seeks may take the shortcut through the hash (TeksTableOptions).
  bool shortcut_seeks() const { return options_.shortcut; }
  // What every read of versions or of the hash holds while it looks at
  // them.
  ReaderEpochs& reader_epochs() const { return epochs_; }
  // Bytes of dropped versions this rep has used again (VersionRecycler).
  size_t ReusedBytes() const { return recycler_ != nullptr ? recycler_->reused_bytes() : 0; }
  // Bytes of replaced hash tables this rep has used again (RetiredMemory).
  size_t ReusedHashBytes() const { return retired_memory_.reused_bytes(); }

 private:
  // Hashes `n` user keys into `hashes` and prefetches their buckets, then
  // their candidate records: a batch's cache misses overlap instead of
  // following each other.
  void HashAndPrefetch(size_t n, const Slice* user_keys, uint64_t* hashes) const;
  // Prefetches the keys a MultiGet through the TeksDB layer left for this
  // thread (multiget_hint.h), if this rep has not yet.
  void PrefetchHintedKeys() const;
  // Calls `callback_func` on `record`'s versions from the newest whose
  // packed tag is <= `lookup_tag`, older ones while it asks for them.
  static ROCKSDB_NAMESPACE::Status VisitVersions(const KeyRecord* record, uint64_t lookup_tag, void* callback_args,
                              bool (*callback_func)(void* arg, const char* entry),
                              const EntryChecks& checks);
  // Links `v` (an entry of `len` bytes) into `owner`'s chain, dropping what
  // it shadows under a drop policy (and retiring that for reuse, with a
  // recycler); false if its sequence is already there.
  bool AddVersion(KeyRecord* owner, Version* v, size_t len);
  // A version of its own (in reused memory when the recycler has some)
  // holding a copy of the `len` bytes of `entry`, with a jump link if
  // `jump_link`.
  Version* CopyIntoVersion(const char* entry, size_t len, bool jump_link);
  // Copies the entry of `record`, `len` bytes, into a version of its own
  // (CopyIntoVersion) and keeps the record's memory for this thread's next
  // Allocate.
  // REQUIRES: `record` was never published.
  Version* CopyAsUpdate(KeyRecord* record, size_t len, bool jump_link);
  // Makes a new key's record reachable by ordered reads (queued for the
  // linker, or linked): the hash calls it before the record turns LIVE, so
  // an iterator created after any write that found the record sees it.
  static void MakeOrdered(void* rep, KeyRecord* record);
  // `size` bytes for a record or a version: retired hash memory if some is
  // ready, else the arena's.
  char* AllocateEntryMemory(size_t size);

  // Tells this rep's spare record memory (Allocate) from other reps'; never
  // reused, unlike an address.
  const uint64_t id_;
  const TeksTableOptions options_;
  const std::shared_ptr<VersionDropPolicy> drop_policy_;
  const std::shared_ptr<KeyCountHint> key_count_hint_;
  // Mutable: readers (const) enter and leave it.
  mutable ReaderEpochs epochs_;
  RetiredMemory retired_memory_{&epochs_};
  // The skip list first: the hash links keys it cannot hold into it.
  OrderedIndex ordered_index_;
  CuckooIndex cuckoo_index_;
  // Null when options_.async is false: new keys are linked on the write path.
  std::unique_ptr<LinkQueue> link_queue_;
  // Null unless versions are dropped and max_wal_write_buffers allows reuse.
  std::unique_ptr<VersionRecycler> recycler_;
};

}  // namespace teksdb
