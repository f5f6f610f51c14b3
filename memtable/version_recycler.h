// VersionRecycler: the memory of versions a TeksTableRep cut from their
// chains, used again for new versions once no reader can be looking at it
// (the paper's proactive reclamation, Fig. 8a).
//
// Under the TeksDB layer a version shadowed for every reader is cut, or
// spliced out between two readers' snapshots (VersionChain::InsertAndDrop). Its bytes stay in the arena, so an
// update-heavy memtable fills (and flushes) as fast as a skip list would.
// The recycler takes every cut version that owns its allocation
// (Version::OwnAllocationSize: updates, not a record's first version), lets
// it wait two epochs (reader_epochs.h), and hands its memory to the next
// update of the same allocation size (exact: equal-sized values, the usual
// case, always match). The arena then grows only with new keys, and
// RocksDB, which decides flushes by the arena's size, flushes later.
//
// Bounding the WAL. A memtable that absorbs updates without growing keeps
// its WAL alive and growing, and a restart replays all of it. So a rep
// reuses at most `reuse_budget` bytes (TeksTableOptions::max_wal_write_buffers
// - 1 write buffers); then it fills like any memtable and is flushed: the
// WAL since the last flush stays within about max_wal_write_buffers write
// buffers.
//
// What is never reused: versions that share their memory (a record's first
// version), and merge operands, which a Get keeps pointers to after the
// rep's read returns (RocksDB's MergeContext) while it merges them with
// older memtables and files.
//
// Thread safety: any number of writers call Retire and Take at once. Each
// thread keeps its own bins (thread-local, one per rep for the last few reps
// it wrote to: a bin given to another rep leaves its memory in the old
// rep's arena, unused), so a version's memory is reused by the thread that
// cut it. A bin publishes what it cut (ReaderEpochs::PublishCuts) every few
// dozen cuts, and before it looks for ready memory that is not there;
// publication starts the two epochs. Readers only enter and leave the rep's
// epochs.
// Waiting and ready memory per bin are capped (kMaxWaiting, kMaxReady); what
// does not fit stays in the arena unused, as without recycling (for ready
// memory: an entry of another size makes room, so that newly cut memory
// always gets in).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "reader_epochs.h"
#include "version_chain.h"

namespace teksdb {

class VersionRecycler {
 public:
  // `rep_id` tells this rep's bins from others' (never reused, unlike an
  // address); `reuse_budget` is the most bytes it hands out; `epochs` is
  // what the rep's readers hold.
  VersionRecycler(uint64_t rep_id, size_t reuse_budget, ReaderEpochs* epochs)
      : epochs_(*epochs),
        rep_id_(rep_id),
        reuse_budget_(reuse_budget),
        report_every_(std::clamp(reuse_budget / 64, size_t{1}, kMaxReportEvery)) {}

  // Takes the versions of a part VersionChain::InsertAndDrop just cut (the
  // newest, linked to the others by older()) that own their allocation.
  // REQUIRES: nothing links to them any more; called after the cut.
  void Retire(Version* cut_part);
  // Takes one version VersionChain::InsertAndDrop just spliced out of the
  // middle of its chain (its older() still leads into the chain).
  // REQUIRES: nothing links to it any more.
  void RetireSpliced(Version* spliced);

  // Memory for a version of `size` bytes (Version::AllocationSize) that no
  // reader can be looking at, or nullptr: nothing of that size is ready, or
  // the budget is spent.
  char* Take(size_t size);

  // Bytes handed out by Take, but for the last few each thread took (less
  // than report_every_, at most a 64th of the budget).
  size_t reused_bytes() const { return reused_bytes_->load(std::memory_order_relaxed); }

  static constexpr size_t kMaxWaiting = size_t{1} << 16;
  static constexpr size_t kMaxReady = size_t{1} << 16;
  static constexpr size_t kMaxReportEvery = size_t{64} << 10;

 private:
  bool BudgetSpent() const { return reused_bytes() >= reuse_budget_; }
  // Retires `first` and the versions older() leads to from it, up to `stop`.
  void RetireUntil(Version* first, const Version* stop);

  ReaderEpochs& epochs_;
  const uint64_t rep_id_;
  const size_t reuse_budget_;
  // Each thread adds what it took to reused_bytes_ in steps this large.
  const size_t report_every_;
  // Shared with the bins, which add to it when they are given to another
  // rep or their thread ends, possibly after this rep is gone.
  const std::shared_ptr<std::atomic<size_t>> reused_bytes_ =
      std::make_shared<std::atomic<size_t>>(0);
};

}  // namespace teksdb
