// StaleMemberFilter: the compaction filter that removes the records of
// collection versions no meta record names any more (storage_format.h):
// members, score-index entries and owner records left behind when a
// collection was deleted, expired and swept, or replaced, each of which
// wrote only the key's meta record.
//
// A version is live when its owner record names a key whose meta record
// holds that version. Both are read from one snapshot, so a write that
// moves a version between keys (RENAME: the new meta, the old one's
// deletion and the owner record in one batch) is seen whole or not at all.
// A dead version stays dead: versions are never handed out twice
// (version_allocator.h), and no write gives a key a version that no key
// holds. So one snapshot, taken when the compaction starts (after every
// record it reads was written), serves the whole compaction: a verdict of
// dead from it is right for ever, one of live at worst keeps records a
// compaction longer, and no verdict takes the DB mutex. Everything else (meta and server records, records
// it cannot parse, any read error) is kept.
//
// Readers stay correct while members vanish: a read that meets fewer
// members than it expected checks that its key still holds the version it
// read (Collection::Settled); if not, it reads again.
//
// The filter holds no DB until Attach (compactions that run before it
// keep everything). One filter serves one (sub)compaction, on one thread:
// it remembers the last version it judged, so a run of one version's
// records costs one lookup.
//
// Thread safety: the factory's counters are atomics; Attach before any
// compaction may drop (after DB::Open), Detach before DB::Close returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "rocksdb/compaction_filter.h"
#include "rocksdb/db.h"

namespace teksdb::server {

class StaleMemberFilterFactory : public ROCKSDB_NAMESPACE::CompactionFilterFactory {
 public:
  void Attach(ROCKSDB_NAMESPACE::DB* db) { db_.store(db, std::memory_order_release); }
  void Detach() { db_.store(nullptr, std::memory_order_release); }

  // Records removed since start.
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

  std::unique_ptr<ROCKSDB_NAMESPACE::CompactionFilter> CreateCompactionFilter(
      const ROCKSDB_NAMESPACE::CompactionFilter::Context& context) override;
  const char* Name() const override { return "teksdb.StaleMemberFilterFactory"; }

 private:
  friend class StaleMemberFilter;
  std::atomic<ROCKSDB_NAMESPACE::DB*> db_{nullptr};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace teksdb::server
