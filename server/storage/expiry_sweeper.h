// ExpirySweeper: reclaims expired keys in the background, so a key with a
// TTL that nobody reads again does not keep its meta record and members on
// disk forever (reads already treat it as absent: keyspace.h).
//
// A thread walks the meta records in key order, database by database,
// kBatchKeys per tick (one tick every kTickMs), from where the last tick
// stopped, wrapping around after the last database; each expired key it meets is deleted by
// Keyspace::ReclaimIfExpired, under the key's lock, after checking again
// that it is still expired: one write of its meta record, whatever its
// size (its members, under a version no meta record names any more, go
// with the next compaction: stale_member_filter.h). So every expired key is reclaimed within one
// pass over the keyspace (keys / kBatchKeys ticks). A pass that met no key
// with an expiry, with no expiry written since it began, puts the sweep to
// sleep until the next expiry is written: a keyspace without TTLs costs
// nothing.
//
// Hash fields with deadlines (field_deadlines.h): each tick also takes up
// to kBatchFields due entries whose deadline passed, in deadline order,
// from where the last tick stopped (so a mass expiry does not walk its own
// deletes again each tick; from the first entry again every
// kFieldRestartTicks, for entries kept because their hash moved), and
// reclaims their fields; a pass that met no key with an expiry stays awake
// while any due entry is left.
//
// Why the sweep deletes expired meta records rather than the compaction
// filter: the sweep's write goes through the key's lock, so it is ordered
// against commands like any other change of the key, and it runs on a
// schedule, not only when a compaction happens to reach the key.
//
// Thread safety: the sweep runs on its own thread; it touches keys only
// through Keyspace, whose key locks order it against commands. Pause may
// be called from any thread.
// The destructor stops and joins it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include "field_deadlines.h"
#include "keyspace.h"

namespace teksdb::server {

class ExpirySweeper {
 public:
  static constexpr int kTickMs = 100;
  static constexpr int kBatchKeys = 1000;
  static constexpr size_t kBatchFields = 1000;
  static constexpr int kFieldRestartTicks = 50;

  // `reclaimed`, if set, is told each key the sweep deleted (on the
  // sweep's thread: keyspace notifications' "expired"); `fields_reclaimed`
  // each hash field reclaimed, the sweep's or a read's ("hexpired", and
  // "del" when its hash went with it).
  using Reclaimed = std::function<void(int db, const std::string& key)>;
  using FieldReclaimed = field_deadlines::Told;
  explicit ExpirySweeper(Keyspace* keyspace, Reclaimed reclaimed = nullptr,
                         FieldReclaimed field_reclaimed = nullptr);
  ~ExpirySweeper();
  ExpirySweeper(const ExpirySweeper&) = delete;
  ExpirySweeper& operator=(const ExpirySweeper&) = delete;

  // Keys reclaimed so far (INFO's expired_keys).
  uint64_t reclaimed() const { return reclaimed_.load(std::memory_order_relaxed); }
  // Hash fields reclaimed so far (INFO's expired_subkeys).
  uint64_t reclaimed_fields() const { return reclaimed_fields_.load(std::memory_order_relaxed); }
  // Fields a write command met past their deadline and rewrote: counted
  // as reclaimed.
  void CountReclaimedFields(uint64_t n) { reclaimed_fields_.fetch_add(n, std::memory_order_relaxed); }
  // CONFIG RESETSTAT: the counts from zero.
  void ResetReclaimed() {
    reclaimed_.store(0, std::memory_order_relaxed);
    reclaimed_fields_.store(0, std::memory_order_relaxed);
  }
  // Whether the sweep sleeps until the next expiry is written.
  bool idle() const { return idle_.load(std::memory_order_relaxed); }
  // Stops (or resumes) the sweep; returns once no tick is running, so that
  // nothing is written after Pause(true) returns (a replica writes only
  // what its primary ships, and follows its primary's deletes).
  void Pause(bool paused);
  // While clients' writes are paused (CLIENT PAUSE WRITE, FAILOVER:
  // client_pause.h) nothing expires, as in Redis: the sweep and the reads'
  // reclaims skip their deletes (one already under way completes). Returns
  // at once: its caller may hold key stripes a reclaim waits for.
  void HoldForClientPause(bool held) { clients_paused_.store(held, std::memory_order_relaxed); }
  // DEBUG SET-ACTIVE-EXPIRE: the sweep off (or on again, with a tick at
  // once) whatever the role, so that expired keys stay stored until then
  // (they still read as absent).
  void SetActive(bool active);

  // Lazy expiry: `key` of database `db`, which a command read as expired,
  // deleted through the command's `view` (under the key's lock, if still
  // expired: Keyspace::ReclaimIfExpired), counted and told as the sweep's
  // own are - unless the sweep is paused or held (a replica deletes only
  // what its primary ships). Whatever DEBUG SET-ACTIVE-EXPIRE says, as Redis.
  ROCKSDB_NAMESPACE::Status ReclaimRead(const Keyspace& view, int db, const std::string& key);
  // The same for a hash field a command read past its deadline
  // (field_deadlines.h's ReclaimField).
  ROCKSDB_NAMESPACE::Status ReclaimReadField(const Keyspace& view, int db, const std::string& key,
                                             const std::string& field);

 private:
  void Run();
  // One tick: up to kBatchKeys meta records from position_ on.
  void Tick();
  // Deletes `key` through `view` (of database `db`) if it is expired;
  // counts it and tells on_reclaimed_ if it did.
  ROCKSDB_NAMESPACE::Status Reclaim(Keyspace view, int db, const std::string& key);

  // The tick's step over hash fields: up to kBatchFields due ones.
  ROCKSDB_NAMESPACE::Status ReclaimDueFields();
  // Where the next step over due entries starts (field_deadlines.h's
  // ReclaimDue), and the ticks until it starts from the first again.
  std::string due_from_;
  int ticks_to_due_restart_ = kFieldRestartTicks;

  Keyspace* const keyspace_;
  const Reclaimed on_reclaimed_;
  const FieldReclaimed on_field_reclaimed_;
  std::atomic<uint64_t> reclaimed_{0};
  std::atomic<uint64_t> reclaimed_fields_{0};
  // Where the next tick starts (inclusive); empty: the first key.
  int database_ = 0;  // the database position_ is in
  std::string position_;
  // This pass: whether it met a key with an expiry, and the keyspace's
  // expiry_writes() when it began.
  bool pass_saw_expiry_ = false;
  uint64_t pass_expiry_writes_ = 0;
  std::atomic<bool> idle_{false};

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool tick_now_ = false;  // SetActive(true): the next tick without waiting
  std::mutex tick_mu_;   // held for each tick
  bool paused_ = false;  // guarded by tick_mu_ and, exclusively, reclaim_mu_
  std::atomic<bool> clients_paused_{false};  // HoldForClientPause
  // Paused or held: no delete now. REQUIRES: tick_mu_ or reclaim_mu_ held.
  bool Held() const { return paused_ || clients_paused_.load(std::memory_order_relaxed); }
  // Held shared by ReclaimRead across its check of paused_ and its write,
  // exclusively by Pause: nothing is written once Pause(true) returns.
  std::shared_mutex reclaim_mu_;
  bool active_ = true;  // guarded by tick_mu_
  std::thread thread_;
};

}  // namespace teksdb::server
