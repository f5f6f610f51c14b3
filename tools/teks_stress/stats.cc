// Counter names and Fail (see stats.h).
#include "stats.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace teks_stress {

namespace {
uint64_t g_seed = 0;
std::string g_command;
std::mutex g_fail_mu;
}  // namespace

const char* OpName(Op op) {
  static const char* const kNames[kNumOps] = {
      "put", "merge", "delete", "single_delete", "delete_range", "write_batch",
      "txn_commit", "txn_rollback", "txn_held_prepared", "get", "get_unlocked",
      "multiget", "iterator", "snapshot_taken", "snapshot_check", "flush",
      "compact_range", "flush_wal", "column_family_lifecycle"};
  return kNames[op];
}

const char* CheckName(Check check) {
  static const char* const kNames[kNumChecks] = {
      "latest reads (exact)", "iterator positions (exact)", "snapshot re-reads (unchanged)",
      "unlocked reads (well-formed)", "transaction own reads"};
  return kNames[check];
}

uint64_t Stats::TotalOps() const {
  uint64_t total = 0;
  for (const auto& n : ops) total += n.load(std::memory_order_relaxed);
  return total;
}

void SetReproduction(uint64_t seed, const std::string& command) {
  g_seed = seed;
  g_command = command;
}

void Fail(const std::string& what) {
  std::unique_lock<std::mutex> lock(g_fail_mu, std::try_to_lock);
  if (!lock.owns_lock()) {
    // Another thread is reporting and will exit the process.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  std::fflush(stdout);
  std::fprintf(stderr, "teks_stress: FAILED: %s\n", what.c_str());
  std::fprintf(stderr, "teks_stress: seed %llu; reproduce with:\n  %s\n",
               static_cast<unsigned long long>(g_seed), g_command.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace teks_stress
