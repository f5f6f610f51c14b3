// teks_stress's counters (operations by type, checks by kind) and its one
// way to fail: print what went wrong, the seed and the command that
// reproduces the run, and exit without closing the DB, so its files stay as
// they were for a post-mortem.
//
// Thread safety: counters are relaxed atomics; Fail may be called from any
// thread (the first caller prints, the others wait to be killed).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace teks_stress {

enum Op {
  kPut,
  kMerge,
  kDelete,
  kSingleDelete,
  kDeleteRange,
  kWriteBatch,
  kTxnCommit,
  kTxnRollback,
  kTxnPreparedHeld,  // commits or rollbacks after holding the prepared state
  kGet,
  kUnlockedGet,
  kMultiGet,
  kIterator,
  kSnapshotTaken,
  kSnapshotCheck,
  kFlush,
  kCompactRange,
  kFlushWal,
  kScratchFamily,  // a column family created, written, read back and dropped
  kNumOps
};

enum Check {
  kLatestReads,         // Get/MultiGet under the key's lock: exact
  kIteratorPositions,   // Seek/SeekForPrev/Next/Prev positions: exact
  kSnapshotReads,       // re-reads at a held snapshot: unchanged
  kUnlockedReads,       // reads racing writers: a value written for the key
  kTransactionReads,    // a transaction reads its own writes
  kNumChecks
};

const char* OpName(Op op);
const char* CheckName(Check check);

struct Stats {
  std::atomic<uint64_t> ops[kNumOps] = {};
  std::atomic<uint64_t> checks[kNumChecks] = {};
  void Count(Op op) { ops[op].fetch_add(1, std::memory_order_relaxed); }
  void Count(Check check, uint64_t n = 1) {
    checks[check].fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t TotalOps() const;
};

// Set once by main: what Fail prints.
void SetReproduction(uint64_t seed, const std::string& command);
[[noreturn]] void Fail(const std::string& what);

}  // namespace teks_stress
