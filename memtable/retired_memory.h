// RetiredMemory: arena memory a TeksTableRep no longer uses, handed out
// again for new records and versions once no reader can be looking at it.
//
// When the cuckoo hash outgrows its table, the old table is replaced by one
// half as large again (CuckooIndex::Resize), but lookups that loaded the old one
// may still be scanning it. Its bytes sit in the memtable's arena, which
// frees nothing before the memtable goes, so they were kept unused: at
// small values as much as 12 bytes per key (docs/BENCHMARKS.md §18). Here
// a retired block waits two epochs of the rep's ReaderEpochs (every read
// of the hash, writers' included, holds one), then serves the rep's next
// allocations by bumping a pointer through it. The arena grows that much
// less, so RocksDB, which decides flushes by the arena's size, fits that
// many more entries in the memtable.
//
// Bytes lost: at most kMaxDroppedRemainder at the end of each block (an
// allocation larger than what is left takes the next block only then).
//
// Thread safety: Retire and Take may run on any threads at once; both take
// `mu_`, Take only by try_lock (a writer that finds another taking
// allocates from the arena instead of waiting). Take's first check is one
// load, so a rep with nothing retired (a presized hash: the steady state)
// pays nothing more.
//
// Memory ordering: as the version recycler's (reader_epochs.h). Retire
// tags a block with PublishCuts, called after the table that replaced it
// was published; memory is handed out only once the epoch is two past
// that tag.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include "reader_epochs.h"

namespace teksdb {

class RetiredMemory {
 public:
  explicit RetiredMemory(ReaderEpochs* epochs) : epochs_(epochs) {}

  // Takes [memory, memory + bytes), which readers that entered an epoch
  // before this call may still read, and nothing reaches from now on.
  // REQUIRES: `memory` is 8-byte aligned; what replaced it is published.
  void Retire(char* memory, size_t bytes);

  // `bytes` of retired memory (8-byte aligned) that no reader can be looking
  // at, or nullptr.
  char* Take(size_t bytes);

  // Bytes handed out by Take so far.
  size_t reused_bytes() const { return reused_bytes_.load(std::memory_order_relaxed); }

 private:
  struct Block {
    char* begin;
    char* end;
    uint64_t epoch;  // PublishCuts' tag
  };
  // Takes that find the next block still waiting between two tries to move
  // the epoch on (a try reads every stripe of the epoch counters).
  static constexpr uint32_t kWaitsPerAdvance = 64;
  // The most of a block's end left unused when the next allocation does
  // not fit it (more: that allocation comes from the arena instead).
  static constexpr size_t kMaxDroppedRemainder = 1024;
  // With no block left to take, less than this is given up for good (so
  // that Take stops locking for it).
  static constexpr size_t kMinKeptRemainder = 64;

  // REQUIRES: mu_ held. Bytes left of the block Take bumps through.
  size_t Rest() const { return static_cast<size_t>(end_ - next_); }
  // REQUIRES: mu_ held. Makes the oldest waiting block the one Take bumps
  // through if no reader can be looking at it; returns whether it did.
  bool PromoteOldest();

  ReaderEpochs* const epochs_;
  // Whether anything is waiting or left to hand out (a check without mu_).
  std::atomic<bool> holds_any_{false};
  std::atomic<size_t> reused_bytes_{0};
  std::mutex mu_;
  // Guarded by mu_: blocks oldest first, and the rest of the one in use.
  std::deque<Block> waiting_;
  char* next_ = nullptr;
  char* end_ = nullptr;
  uint32_t waits_ = 0;
};

}  // namespace teksdb
