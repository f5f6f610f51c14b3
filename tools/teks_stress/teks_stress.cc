// teks_stress: many threads of random operations against a DB opened
// through TeksTable as a plain factory, the TeksDB layer, or
// TeksTransactionDB (WriteCommitted, WritePrepared), checked against an
// expected-state oracle that survives SIGKILL (expected_state.h). Modelled
// on RocksDB's db_stress; scripts/crash_test.sh kills it at random and
// restarts it. docs/RELIABILITY.md says what it promises to check.
//
//   teks_stress --db=/tmp/s/db --mode=layer --duration=60
//
// A run: open the DB (creating it and the oracle, --expected, if missing),
// verify it against the oracle (recovery.h), run --threads workers for
// --duration seconds printing progress, close cleanly and print a summary
// table. --duration=0 only verifies. On any disagreement it prints FAILED,
// the seed and its own command line, and exits 1 without closing the DB.
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gflags/gflags.h>

#include "expected_state.h"
#include "key_locks.h"
#include "recovery.h"
#include "stats.h"
#include "stress_db.h"
#include "worker.h"

DEFINE_string(db, "", "DB directory (required; created if missing)");
DEFINE_string(expected, "", "oracle file (default: --db followed by .expected)");
DEFINE_string(mode, "layer", "plain (TeksTable as a plain factory), layer (TeksDB), "
              "write_committed or write_prepared (TeksTransactionDB)");
DEFINE_string(memtable, "teks", "memtable factory: a TeksTable variant (teks, teks-s, teks-a, "
              "teks-ac, teks-acsp, teks-acsp-in) or, with --mode=plain, any RocksDB factory");
DEFINE_bool(teks_layer, true, "with a transactional --mode: false opens RocksDB's own "
            "TransactionDB with --memtable as a plain factory (a control run)");
DEFINE_int32(threads, 4, "worker threads (1-64)");
DEFINE_double(duration, 30, "seconds of random operations after the verification (0: verify only)");
DEFINE_uint32(keys, 4000, "keys per column family (the oracle's shape: keep it across runs)");
DEFINE_uint32(column_families, 3, "data column families (the oracle's shape: keep it across runs)");
DEFINE_uint64(seed, 0, "random seed (0: from the clock); printed, and in the reproduce line");
DEFINE_bool(sync, false, "WriteOptions::sync on every write");
DEFINE_bool(disable_wal, false, "WriteOptions::disableWAL on every non-transactional write");
DEFINE_bool(manual_wal_flush, false, "DBOptions::manual_wal_flush (the WAL buffer is flushed "
            "by FlushWAL operations; a kill may lose its tail)");
DEFINE_uint64(write_buffer_size, 256 << 10, "memtable bytes per column family");
DEFINE_int32(max_write_buffer_number, 3, "memtables per column family");
DEFINE_string(compression, "lz4", "none, snappy, zlib, lz4 or zstd");
DEFINE_uint32(snapshot_hold_ms, 2000, "longest a worker holds a snapshot");
DEFINE_uint32(prepared_hold_ms, 100, "longest a transaction is held prepared");
DEFINE_double(progress_interval, 5, "seconds between progress lines");

namespace teks_stress {
namespace {

std::string CommandLine(int argc, char** argv, uint64_t seed) {
  std::string cmd;
  bool seeded = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--seed=", 0) == 0) {
      a = "--seed=" + std::to_string(seed);
      seeded = true;
    }
    cmd += (i ? " " : "") + a;
  }
  if (!seeded) cmd += " --seed=" + std::to_string(seed);
  return cmd;
}

[[noreturn]] void Usage(const std::string& what) {
  std::fprintf(stderr, "teks_stress: %s (see --help)\n", what.c_str());
  std::exit(2);
}

void PrintSummary(const Stats& stats, const RecoveryReport& recovery, double seconds,
                  const ExpectedState::Header& header) {
  std::printf("\n%-38s %14s\n", "operation", "count");
  for (int op = 0; op < kNumOps; ++op) {
    std::printf("%-38s %14" PRIu64 "\n", OpName(static_cast<Op>(op)),
                stats.ops[op].load());
  }
  const uint64_t total = stats.TotalOps();
  std::printf("%-38s %14" PRIu64 "  (%.0f ops/s over %.1f s)\n", "total", total,
              seconds > 0 ? total / seconds : 0.0, seconds);
  std::printf("\n%-38s %14s\n", "check", "count");
  std::printf("%-38s %14" PRIu64 "\n", "keys verified at reopen", recovery.keys_verified);
  std::printf("%-38s %14" PRIu64 "\n", "  of them present", recovery.keys_present);
  std::printf("%-38s %14" PRIu64 "\n", "  beyond the oracle's history", recovery.keys_beyond_history);
  std::printf("%-38s %14" PRIu64 "\n", "scan entries checked at reopen", recovery.scanned_entries);
  std::printf("%-38s %14" PRIu64 "\n", "prepared txns recovered, committed",
              recovery.prepared_committed);
  std::printf("%-38s %14" PRIu64 "\n", "prepared txns recovered, rolled back",
              recovery.prepared_rolled_back);
  std::printf("%-38s %14" PRIu64 "\n", "unpromised writes lost in the kill", recovery.writes_lost);
  for (int c = 0; c < kNumChecks; ++c) {
    std::printf("%-38s %14" PRIu64 "\n", CheckName(static_cast<Check>(c)), stats.checks[c].load());
  }
  std::printf("\ntotals over this oracle's runs: reopens %" PRIu64 ", operations %" PRIu64
              ", keys verified %" PRIu64 "\n",
              header.reopens.load(), header.operations.load(), header.keys_verified.load());
}

int Main(int argc, char** argv) {
  const std::string usage = "teks_stress --db=DIR [--mode=...] [--duration=S] (see --help)";
  gflags::SetUsageMessage(usage);
  gflags::ParseCommandLineFlags(&argc, &argv, /*remove_flags=*/false);
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') Usage(std::string("unexpected argument '") + argv[i] + "'");
  }
  if (FLAGS_db.empty()) Usage("--db is required");
  StressDBConfig config;
  config.path = FLAGS_db;
  if (!ParseMode(FLAGS_mode, &config.mode)) Usage("unknown --mode '" + FLAGS_mode + "'");
  if (FLAGS_threads < 1 || FLAGS_threads > ExpectedState::kMaxThreads) {
    Usage("--threads must be 1-" + std::to_string(ExpectedState::kMaxThreads));
  }
  if (FLAGS_keys < 64 || FLAGS_keys > (1u << 24)) Usage("--keys must be 64-16777216");
  if (FLAGS_column_families < 1 || FLAGS_column_families > 16) Usage("--column_families must be 1-16");
  if (FLAGS_duration < 0) Usage("--duration must be >= 0");
  if (FLAGS_write_buffer_size < (64 << 10)) Usage("--write_buffer_size must be >= 65536");
  if (FLAGS_snapshot_hold_ms < 1 || FLAGS_prepared_hold_ms < 1) Usage("hold times must be >= 1 ms");
  if (FLAGS_disable_wal && IsTransactional(config.mode)) {
    Usage("--disable_wal cannot be used with transactions (two-phase commit needs the WAL)");
  }
  if (FLAGS_manual_wal_flush && FLAGS_sync) Usage("--manual_wal_flush and --sync exclude each other");
  if (!FLAGS_teks_layer && !IsTransactional(config.mode)) {
    Usage("--teks_layer=false applies to the transactional modes (for the others, --mode=plain)");
  }
  config.teks_layer = FLAGS_teks_layer;
  config.memtable = FLAGS_memtable;
  config.column_families = FLAGS_column_families;
  config.write_buffer_size = FLAGS_write_buffer_size;
  config.max_write_buffer_number = FLAGS_max_write_buffer_number;
  config.compression = FLAGS_compression;
  config.disable_wal = FLAGS_disable_wal;
  config.manual_wal_flush = FLAGS_manual_wal_flush;

  std::random_device entropy;
  const uint64_t seed =
      FLAGS_seed != 0 ? FLAGS_seed : (uint64_t{entropy()} << 32 | entropy()) % 1000000000000ull;
  SetReproduction(seed, CommandLine(argc, argv, seed));
  std::printf("teks_stress: seed %" PRIu64 ", mode %s, memtable %s, threads %d, keys %u x %u, "
              "sync %d, disable_wal %d, manual_wal_flush %d, write_buffer_size %" PRIu64
              ", compression %s\n",
              seed, ModeName(config.mode), config.memtable.c_str(), FLAGS_threads,
              FLAGS_column_families, FLAGS_keys, FLAGS_sync, FLAGS_disable_wal,
              FLAGS_manual_wal_flush, FLAGS_write_buffer_size, config.compression.c_str());
  std::fflush(stdout);

  ExpectedState expected;
  bool created = false;
  std::string error;
  const std::string oracle_path = FLAGS_expected.empty() ? FLAGS_db + ".expected" : FLAGS_expected;
  std::error_code ec;
  const bool db_exists = std::filesystem::exists(std::filesystem::path(FLAGS_db) / "CURRENT");
  for (const std::string& p : {FLAGS_db, oracle_path}) {
    const std::filesystem::path parent = std::filesystem::path(p).parent_path();
    if (!parent.empty() && !std::filesystem::create_directories(parent, ec) && ec) {
      std::fprintf(stderr, "teks_stress: cannot create %s: %s\n", parent.c_str(),
                   ec.message().c_str());
      return 2;
    }
  }
  if (db_exists && !std::filesystem::exists(oracle_path)) {
    std::fprintf(stderr, "teks_stress: %s holds a DB but %s (its oracle) is missing\n",
                 FLAGS_db.c_str(), oracle_path.c_str());
    return 2;
  }
  if (!expected.Open(oracle_path, FLAGS_column_families, FLAGS_keys, &created, &error)) {
    std::fprintf(stderr, "teks_stress: %s\n", error.c_str());
    return 2;
  }
  std::unique_ptr<StressDB> db;
  ROCKSDB_NAMESPACE::Status s = StressDB::Open(config, &db);
  if (s.IsInvalidArgument()) {
    std::fprintf(stderr, "teks_stress: %s\n", s.ToString().c_str());
    return 2;
  }
  if (!s.ok()) Fail("open: " + s.ToString());

  std::mt19937_64 rng(seed);
  std::printf("phase: verifying (%s oracle %s)\n", created ? "new" : "existing",
              oracle_path.c_str());
  std::fflush(stdout);
  const RecoveryReport recovery = Recover(db.get(), &expected, &rng);
  ExpectedState::Header& header = expected.header();
  header.reopens.fetch_add(1);
  std::printf("phase: verified %" PRIu64 " keys (%" PRIu64 " present, %" PRIu64
              " beyond history), %" PRIu64 " unpromised writes lost, prepared txns: %" PRIu64
              " committed %" PRIu64 " rolled back\n",
              recovery.keys_verified, recovery.keys_present, recovery.keys_beyond_history,
              recovery.writes_lost, recovery.prepared_committed, recovery.prepared_rolled_back);
  // From here a kill may lose only what this run's options allow.
  header.promise.store(static_cast<uint64_t>(FLAGS_disable_wal          ? Promise::kPerKey
                                             : FLAGS_manual_wal_flush ? Promise::kPrefix
                                                                      : Promise::kAcknowledged));

  Stats stats;
  uint64_t last_ops = 0;  // operations already added to the header's total
  const auto started = std::chrono::steady_clock::now();
  if (FLAGS_duration > 0) {
    std::printf("phase: running %d threads for %.0f s\n", FLAGS_threads, FLAGS_duration);
    std::fflush(stdout);
    KeyLocks locks(FLAGS_column_families, FLAGS_keys);
    WorkloadConfig workload;
    workload.sync = FLAGS_sync;
    workload.disable_wal = FLAGS_disable_wal;
    workload.snapshot_hold_ms = FLAGS_snapshot_hold_ms;
    workload.prepared_hold_ms = FLAGS_prepared_hold_ms;
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < FLAGS_threads; ++t) {
      const uint64_t thread_seed = rng();
      threads.emplace_back([&, t, thread_seed] {
        Worker worker(t, thread_seed, workload, db.get(), &expected, &locks, &stats);
        worker.Run(stop);
      });
    }
    const auto deadline = started + std::chrono::duration<double>(FLAGS_duration);
    auto next_report = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(FLAGS_progress_interval));
    auto last_time = started;
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) break;
      if (now >= next_report && now > started) {
        const uint64_t ops = stats.TotalOps();
        const double interval = std::chrono::duration<double>(now - last_time).count();
        std::printf("[teks_stress] %6.0f s: %12" PRIu64 " ops, %9.0f ops/s, %6.0f s left\n",
                    std::chrono::duration<double>(now - started).count(), ops,
                    interval > 0 ? (ops - last_ops) / interval : 0.0,
                    std::chrono::duration<double>(deadline - now).count());
        std::fflush(stdout);
        // Kept current for a kill: the crash test's totals read it.
        header.operations.fetch_add(ops - last_ops);
        last_ops = ops;
        last_time = now;
        next_report = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(FLAGS_progress_interval));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    stop.store(true);
    for (std::thread& t : threads) t.join();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  header.operations.fetch_add(stats.TotalOps() - last_ops);
  s = db->Close();
  if (!s.ok()) Fail("close: " + s.ToString());
  // Closed cleanly: every acknowledged write must be there at the next open.
  header.promise.store(static_cast<uint64_t>(Promise::kAcknowledged));
  PrintSummary(stats, recovery, seconds, header);
  std::printf("teks_stress: PASSED\n");
  return 0;
}

}  // namespace
}  // namespace teks_stress

int main(int argc, char** argv) { return teks_stress::Main(argc, argv); }
