// TeksTable: a RocksDB memtable that weaves a concurrent cuckoo hash (point
// reads and writes in O(1)) and a skip list (ordered reads) over one pool of
// entries. This header is all an application needs to pick it from C++:
//
//   options.memtable_factory = teksdb::NewTeksTableFactory();
//
// Linking (or LD_PRELOAD-ing) libteksdb also registers the factory with
// RocksDB's ObjectRegistry, so option strings and OPTIONS files find it:
//
//   memtable_factory=teks                       everything on (the default)
//   memtable_factory=teks-acsp                  a paper variant (see below)
//   memtable_factory={id=teks;shortcut=false}   options by name
//   db_bench --memtablerep=teks  /  --memtablerep='id=teks;async=false'
//
// Options (booleans, "true"/"false"; the paper's ablation, Fig. 4):
//   async            link new keys into the skip list in the background
//                    (false: link synchronously on the write path)
//   concurrent_hash  insert new keys into the hash lock-free
//                    (false: one writer at a time)
//   shortcut         seek to a key present in the memtable through the hash
//   inplace          drop versions no reader can need; takes effect only
//                    under the TeksDB layer (teks_db.h), which proves it
//                    safe; a plain factory always keeps every version
//   max_wal_write_buffers  (an integer >= 1, default 4) under the layer,
//                    dropped versions' memory is reused until this many
//                    write buffers of WAL, then the memtable fills and is
//                    flushed; 1 turns reuse off (see TeksTableOptions)
//   linker_nice      (an integer 0-19, default 0) the background linker's
//                    nice value: above 0 it gives way to the threads that
//                    write and read on a busy CPU (see TeksTableOptions)
// Variant ids: teks-s (none of the above), teks-a (async), teks-ac
// (+concurrent_hash), teks-acsp (+shortcut), teks-acsp-in (= teks).
//
// Unknown option names and malformed values are rejected with
// Status::InvalidArgument naming them. DB::Open refuses, with a message,
// column families TeksTable cannot serve: user-defined timestamps, and
// comparators under which keys with different bytes can be equal.
// RocksDB does not consult the factory when a column family is created
// after open: the TeksDB layer checks those itself; with the plain factory,
// do not create such column families with TeksTable.
//
// What TeksTable does with RocksDB 7.8.3's optional MemTableRep and
// MemTableRepFactory virtuals (tests/layer/rocksdb_features_test.cc, end to end):
//   supported
//     InsertKey, InsertKeyConcurrently    concurrent memtable writes (the
//       and their void forms              default); exact (key, seq)
//                                         duplicates refused
//     InsertKeyWithHint[Concurrently]     accepted; the hint is unused (the
//                                         hash finds the key in O(1))
//     Get, Contains                       through the hash
//     GetDynamicPrefixIterator            the total-order iterator: prefix
//                                         seek, prefix_same_as_start and the
//                                         memtable prefix bloom filter work
//     UniqueRandomSample                  a uniform sample of entries
//                                         (versions), so MemPurge
//                                         (experimental_mempurge_threshold)
//                                         works; one pass over the memtable.
//                                         Under the layer, versions already
//                                         dropped are not in it, so the
//                                         decider sees less garbage than
//                                         the arena holds
//     ApproximateNumEntries(start, end)   an estimate of the keys in the
//                                         range (not versions), from the
//                                         skip list, for
//                                         GetApproximateMemTableStats and
//                                         GetApproximateSizes
//     IsMergeOperatorSupported,           true: merges, snapshots,
//       IsSnapshotSupported               WritePrepared transactions
//     IsInsertConcurrentlySupported,      true
//       CanHandleDuplicatedKey
//     inplace_update_support              works (MemTable::Update goes
//                                         through the iterator)
//     memtable_protection_bytes_per_key   works: checksums are kept with
//                                         every entry, updates included
//     MarkReadOnly                        records the memtable's key count,
//                                         so the factory's next memtable
//                                         starts with a hash that size
//     ApproximateMemoryUsage              heap bytes only: the hash's
//                                         tables are in the arena, so a
//                                         WriteBufferManager counts them
//   not needed (RocksDB's defaults are right)
//     MarkFlushed                         nothing to release: the hash and
//                                         skip list serve reads until the
//                                         rep is destroyed
//     Iterator::RandomSeek                a no-op; only reps' own sampling
//                                         uses it
//     CreateMemTableRep(..., cf_id)       one rep kind for every family
//   not supported (refused at DB::Open with InvalidArgument)
//     user-defined timestamps; comparators under which keys with
//     different bytes can be equal (see above)
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/memtablerep.h"
#include "rocksdb/types.h"

namespace ROCKSDB_NAMESPACE {
class ObjectLibrary;
}  // namespace ROCKSDB_NAMESPACE

namespace teksdb {

struct TeksTableOptions {
  bool async = true;
  bool concurrent_hash = true;
  bool shortcut = true;
  bool inplace = true;
  // Under the TeksDB layer (with inplace), the memory of dropped versions
  // is used again for new versions, so updates do not fill the memtable;
  // to bound the WAL such a memtable keeps alive (a restart replays it),
  // it stops reusing once it has reused max_wal_write_buffers - 1 write
  // buffers' worth, then fills and is flushed like any memtable: the WAL
  // written since the last flush stays within about this many write
  // buffers. 1: never reuse. An integer >= 1.
  uint32_t max_wal_write_buffers = 4;
  // The nice value of the thread that links new keys into the skip list in
  // the background (async), 0 to 19. Above 0, on a CPU that request
  // threads share, a request no longer waits behind a linking slice of
  // milliseconds (the scheduler runs the waking request thread first); the
  // linker then gets less of a busy CPU, its queue fills, and writers and
  // readers link what it left, a little on each request. Linux only (a
  // per-thread nice); elsewhere ignored.
  uint32_t linker_nice = 0;

  // The options of a paper variant id ("teks", "teks-s", ...); false if the
  // id names none.
  static bool ForVariant(const std::string& id, TeksTableOptions* out);
};

// Tells TeksTable which versions no reader can need. The TeksDB layer's
// interface to its memtables, implemented by its ReaderRegistry
// (reader_registry.h); no public function gives one to a factory: only the
// layer can prove drops safe, and it opens the DB with
// flush_verify_memtable_count=false, which drops need. A factory holding one
// refuses any other DB at open (InvalidArgument).
class VersionDropPolicy {
 public:
  virtual ~VersionDropPolicy() = default;
  // A sequence number S such that every current and future reader of the
  // memtables reads at a sequence >= S, and every write with a sequence
  // <= S is already in the memtable. A version shadowed by a newer non-merge
  // version with sequence <= S is then unreachable. Called on every update
  // of an existing key, from any thread: it should cost O(1) amortized, and
  // may update the policy's own bookkeeping (hence not const).
  virtual ROCKSDB_NAMESPACE::SequenceNumber OldestReadableSequence() = 0;
  // Whether some current or future reader may read at a sequence in
  // [lo, hi): true unless the policy knows that none does, and that every
  // write with a sequence < hi is already in the memtable. A version with
  // sequence lo, shadowed by the next newer version, a Put at hi, is then
  // unreachable although readers older than hi exist (RocksDB's "snapshot
  // stripes"). Called on updates of a key, for two adjacent Puts near the
  // newest end of its chain, from any thread: it should cost O(log
  // readers) at most. The default knows nothing.
  virtual bool MayReadBetween(ROCKSDB_NAMESPACE::SequenceNumber /*lo*/,
                              ROCKSDB_NAMESPACE::SequenceNumber /*hi*/) {
    return true;
  }
};

// The name TeksTable registers under and reports from Name().
constexpr const char* kTeksTableFactoryName = "TeksTableFactory";
constexpr const char* kTeksTableNickName = "teks";

// A TeksTable factory that keeps every version: always correct in any DB.
// The TeksDB layer (teks_db.h) gives its column families one that drops.
std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> NewTeksTableFactory(
    const TeksTableOptions& options = TeksTableOptions());

// The options of a factory made by NewTeksTableFactory or the registry, or
// nullptr if `factory` is not TeksTable's.
const TeksTableOptions* GetTeksTableOptions(
    const ROCKSDB_NAMESPACE::MemTableRepFactory& factory);

// Registers "teks", its variants and "TeksTableFactory" in `library`. Done
// for ObjectLibrary::Default() when libteksdb loads; exposed for programs
// that keep their own registries.
void RegisterTeksTable(ROCKSDB_NAMESPACE::ObjectLibrary& library);

}  // namespace teksdb
