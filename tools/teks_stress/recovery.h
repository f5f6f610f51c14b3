// Recovery: teks_stress's check of a reopened DB against the oracle, run at
// every start before any thread writes. In order:
//   1. transactions recovered prepared (transactional modes): each write in
//      them must be one the oracle recorded for that (thread, op); each is
//      then committed or rolled back at random, and a commit's writes
//      become the keys' verified states;
//   2. each thread's progress key P_t is read (0 if from an older epoch);
//      where the last run promised it (see Promise), P_t must reach the
//      thread's last acknowledged op, and a transaction the thread had
//      prepared must have been recovered prepared (step 1) or committed;
//   3. every key must hold the newest entry of its history that is in the
//      DB (op <= P_thread, or verified at the previous reopen), by Get
//      (under Promise::kPerKey: any entry of its history); a key whose
//      every entry is out, in a full history, was lost further back than
//      the oracle remembers and is only checked to hold a value written for
//      it. Every family's forward and backward scans must then list exactly
//      the existing keys with those values;
//   4. every key's history is reset to what the DB holds, and the epoch is
//      bumped, so the next run's progress keys are told apart.
// A kill during recovery leaves an oracle the next recovery accepts (each
// step is idempotent: verified states are always in).
//
// Thread safety: single-threaded, before the workers start.
#pragma once

#include <cstdint>
#include <random>

#include "expected_state.h"
#include "stress_db.h"

namespace teks_stress {

// What the last run promised about its writes across a kill, stored in the
// oracle's header (Header::promise).
enum class Promise : uint64_t {
  // WAL on, flushed to the OS before each acknowledgment, or closed
  // cleanly: every acknowledged write survives, and the DB is each thread's
  // writes up to its progress key (no hole).
  kAcknowledged = 0,
  // WAL on with manual_wal_flush: the unflushed tail of the WAL may be
  // lost, so acknowledged writes may be missing, but only as a tail: the DB
  // is still each thread's writes up to its progress key.
  kPrefix = 1,
  // WAL off: what was not flushed is lost, family by family (RocksDB
  // 7.8.3's atomic_flush, which would keep families in step, trips its own
  // assertion under concurrent flushes), so each key is only checked to
  // hold one of the states its history records.
  kPerKey = 2,
};

struct RecoveryReport {
  uint64_t keys_verified = 0;
  uint64_t keys_present = 0;
  uint64_t keys_beyond_history = 0;  // lost further back than the history reaches
  uint64_t writes_lost = 0;          // acknowledged, not in the DB (only without a promise)
  uint64_t prepared_committed = 0;
  uint64_t prepared_rolled_back = 0;
  uint64_t scanned_entries = 0;
};

// Fails the run (stats.h) on any disagreement.
RecoveryReport Recover(StressDB* db, ExpectedState* expected, std::mt19937_64* rng);

}  // namespace teks_stress
