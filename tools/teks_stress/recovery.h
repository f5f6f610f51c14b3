// Recovery: teks_stress's check of a reopened DB against the oracle, run at
// every start before any thread writes. In order:
//   1. transactions recovered prepared (transactional modes): each write in
//      them must be one the oracle recorded for that (thread, op); each is
//      then committed or rolled back at random, and a commit's writes
//      become the keys' verified states;
//   2. each thread's progress key P_t is read (0 if from an older epoch);
//      where the last run promised durability (see Promise), P_t must reach
//      the thread's last acknowledged op;
//   3. every key must hold the newest entry of its history that is in the
//      DB (op <= P_thread, or verified at the previous reopen), by Get, and
//      every family's forward and backward scans must list exactly the
//      existing keys with those values;
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

// What the last run promised about acknowledged writes across a kill,
// stored in the oracle's header (Header::promise).
enum class Promise : uint64_t {
  kNone = 0,         // WAL off, or manual_wal_flush: a tail may be lost
  kAcknowledged = 1  // WAL on and flushed to the OS before the ack, or closed cleanly
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
