// Worker: one teks_stress thread. Each operation is drawn at random
// (weights in worker.cc): writes (Put, Merge, Delete, SingleDelete,
// DeleteRange, WriteBatch, transactions), reads checked against the oracle
// (Get, MultiGet, iterators with Seek/SeekForPrev/Next/Prev), snapshots
// held across many operations and re-read, Flush/CompactRange/FlushWAL, and
// short-lived column families (created, written, read, dropped).
//
// Every write is one atomic DB write (a WriteBatch, or a transaction) that
// also puts the thread's op number in its progress key, under the locks of
// its keys, with the oracle's entries pushed before it (expected_state.h).
// SingleDelete's contract (at most one Put since the key's last
// SingleDelete) is kept by a region of keys (the top eighth of each family)
// written only by Put when absent and SingleDelete when present, and never
// by Merge, Delete or DeleteRange.
//
// Thread safety: a Worker is its thread's; it shares the DB, the oracle,
// the key locks and the stats.
#pragma once

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "expected_state.h"
#include "key_locks.h"
#include "stats.h"
#include "stress_db.h"

namespace teks_stress {

struct WorkloadConfig {
  bool sync = false;
  bool disable_wal = false;
  uint32_t snapshot_hold_ms = 2000;  // longest a snapshot is held
  uint32_t prepared_hold_ms = 100;   // longest a transaction stays prepared
};

// The progress key of `thread` and its value (epoch, op number).
std::string ProgressKey(uint32_t thread);
std::string ProgressValue(uint64_t epoch, uint32_t op);
bool ParseProgress(const ROCKSDB_NAMESPACE::Slice& value, uint64_t* epoch, uint32_t* op);
// Transaction names: the writing thread and its op number.
std::string TransactionName(uint32_t thread, uint32_t op);
bool ParseTransactionName(const std::string& name, uint32_t* thread, uint32_t* op);

// Checks a read of (cf, key) that must return `expected`; fails the run
// otherwise. `what` names the read.
void CheckRead(const char* what, uint32_t cf, uint32_t key,
               const ROCKSDB_NAMESPACE::Status& status, const ROCKSDB_NAMESPACE::Slice& value,
               const KeyState& expected);

class Worker {
 public:
  Worker(uint32_t id, uint64_t seed, const WorkloadConfig& config, StressDB* db,
         ExpectedState* expected, KeyLocks* locks, Stats* stats);
  ~Worker();
  void Run(const std::atomic<bool>& stop);

 private:
  enum class Kind { kPut, kMerge, kDelete, kSingleDelete, kRangeMember };
  struct Mutation {
    uint32_t cf;
    uint32_t key;
    Kind kind;
    KeyState before;
    KeyState after;
  };
  struct HeldSnapshot {
    const ROCKSDB_NAMESPACE::Snapshot* snapshot = nullptr;
    std::vector<std::pair<uint32_t, uint32_t>> keys;  // (cf, key)
    std::vector<KeyState> states;
    uint64_t release_at_ms = 0;
  };

  uint32_t Uniform(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  bool OneIn(uint32_t n) { return Uniform(n) == 0; }
  uint32_t RandomCf() { return Uniform(column_families_); }
  uint32_t NormalKey();        // hot-biased, below the single-delete region
  uint32_t SingleDeleteKey();  // in the single-delete region
  uint32_t AnyKey() { return OneIn(8) ? SingleDeleteKey() : NormalKey(); }

  // Writes.
  void AddMutation(std::vector<Mutation>* m, uint32_t cf, uint32_t key, Kind kind);
  void WriteOne(Kind kind, Op op);
  void WriteBatchOp();
  void DeleteRangeOp();
  void TransactionOp();
  // Writes `m` (locked, entries pushed) in a transaction named after
  // (thread, op): committed unless !commit_wanted; prepared first if
  // `prepare`, then held for a while if `hold_prepared`, then committed if
  // `commit_after_prepare` else rolled back. True if committed.
  bool RunTransaction(const std::vector<Mutation>& m, uint32_t op, bool commit_wanted,
                      bool prepare, bool hold_prepared, bool commit_after_prepare);
  // Locks, pushes the oracle entries, writes with a WriteBatch.
  void ApplyBatch(std::vector<Mutation>* mutations, uint32_t range_cf, uint32_t range_begin,
                  uint32_t range_end, Op op);
  void Lock(LockSet* set, const std::vector<Mutation>& mutations);
  void FinishMutations(std::vector<Mutation>* mutations, uint32_t op);
  void AddToBatch(ROCKSDB_NAMESPACE::WriteBatch* batch, const Mutation& m);

  // Reads.
  void GetOp();
  void UnlockedGetOp();
  void MultiGetOp();
  void IteratorOp();
  void SnapshotOp();
  void CheckSnapshot(const HeldSnapshot& held);
  void ReleaseSnapshot();
  void AdminOp();
  void ScratchFamilyOp();

  uint64_t NowMs() const;

  const uint32_t id_;
  std::mt19937_64 rng_;
  const WorkloadConfig config_;
  StressDB* const db_;
  ExpectedState* const expected_;
  KeyLocks* const locks_;
  Stats* const stats_;
  const uint32_t column_families_;
  const uint32_t keys_;
  const uint32_t single_delete_begin_;
  const uint32_t hot_keys_;
  const uint64_t epoch_;
  uint32_t op_;  // this thread's last op number in this epoch
  HeldSnapshot held_;
};

}  // namespace teks_stress
