// ExpirySweeper implementation: the tick loop and one tick's walk.
#include "expiry_sweeper.h"

#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

namespace teksdb::server {

ExpirySweeper::ExpirySweeper(Keyspace* keyspace, Reclaimed reclaimed,
                             FieldReclaimed field_reclaimed)
    : keyspace_(keyspace), on_reclaimed_(std::move(reclaimed)),
      on_field_reclaimed_(std::move(field_reclaimed)),
      pass_expiry_writes_(keyspace->expiry_writes()),
      thread_([this] { Run(); }) {}

ExpirySweeper::~ExpirySweeper() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ExpirySweeper::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, std::chrono::milliseconds(kTickMs), [this] { return stop_ || tick_now_; });
    if (stop_) return;
    tick_now_ = false;
    lock.unlock();
    {
      std::lock_guard<std::mutex> tick(tick_mu_);
      if (!Held() && active_ && (!idle() || keyspace_->expiry_writes() != pass_expiry_writes_)) {
        idle_.store(false, std::memory_order_relaxed);
        Tick();
      }
    }
    lock.lock();
  }
}

void ExpirySweeper::Pause(bool paused) {
  std::lock_guard<std::mutex> tick(tick_mu_);
  std::unique_lock<std::shared_mutex> reclaims(reclaim_mu_);
  paused_ = paused;
}

ROCKSDB_NAMESPACE::Status ExpirySweeper::ReclaimRead(const Keyspace& view, int db,
                                                     const std::string& key) {
  std::shared_lock<std::shared_mutex> reclaims(reclaim_mu_);
  if (Held()) return ROCKSDB_NAMESPACE::Status::OK();
  return Reclaim(view.InDatabase(db), db, key);
}

ROCKSDB_NAMESPACE::Status ExpirySweeper::ReclaimReadField(const Keyspace& view, int db,
                                                          const std::string& key,
                                                          const std::string& field) {
  std::shared_lock<std::shared_mutex> reclaims(reclaim_mu_);
  if (Held()) return ROCKSDB_NAMESPACE::Status::OK();
  Keyspace in_db = view.InDatabase(db);
  bool reclaimed, key_deleted;
  const ROCKSDB_NAMESPACE::Status s =
      field_deadlines::ReclaimField(in_db, key, field, 0, 0, &reclaimed, &key_deleted);
  if (reclaimed) {
    reclaimed_fields_.fetch_add(1, std::memory_order_relaxed);
    if (on_field_reclaimed_) on_field_reclaimed_(db, key, key_deleted);
  }
  return s;
}

ROCKSDB_NAMESPACE::Status ExpirySweeper::ReclaimDueFields() {
  if (--ticks_to_due_restart_ <= 0) {
    due_from_.clear();
    ticks_to_due_restart_ = kFieldRestartTicks;
  }
  bool any;
  uint64_t reclaimed;
  const ROCKSDB_NAMESPACE::Status s = field_deadlines::ReclaimDue(
      *keyspace_, kBatchFields, on_field_reclaimed_,
      [this] { return clients_paused_.load(std::memory_order_relaxed); }, &any, &reclaimed,
      &due_from_);
  reclaimed_fields_.fetch_add(reclaimed, std::memory_order_relaxed);
  pass_saw_expiry_ |= any;
  return s;
}

ROCKSDB_NAMESPACE::Status ExpirySweeper::Reclaim(Keyspace view, int db, const std::string& key) {
  bool reclaimed = false;
  const ROCKSDB_NAMESPACE::Status s = view.ReclaimIfExpired(key, &reclaimed);
  if (reclaimed) {
    reclaimed_.fetch_add(1, std::memory_order_relaxed);
    if (on_reclaimed_) on_reclaimed_(db, key);
  }
  return s;
}

void ExpirySweeper::SetActive(bool active) {
  {
    std::lock_guard<std::mutex> tick(tick_mu_);
    active_ = active;
  }
  if (!active) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tick_now_ = true;
  }
  wake_.notify_all();
}

void ExpirySweeper::Tick() {
  const ROCKSDB_NAMESPACE::Status fields = ReclaimDueFields();
  if (!fields.ok()) {
    std::fprintf(stderr, "teksdb-server: expiry sweep of hash fields: %s\n",
                 fields.ToString().c_str());
  }
  // Up to kBatchKeys meta records, through as many databases as it takes.
  int seen = 0;
  while (seen < kBatchKeys) {
    const int64_t now = Keyspace::NowMs();
    std::vector<std::string> expired;
    std::string last;
    int seen_here = 0;
    Keyspace view = keyspace_->InDatabase(database_);
    ROCKSDB_NAMESPACE::Status s = view.ForEachKey(
        [&](const std::string& key, const Keyspace::Value& value) {
          last = key;
          pass_saw_expiry_ |= value.expire_ms != 0;
          if (value.expire_ms != 0 && value.expire_ms <= now) expired.push_back(key);
          return ++seen_here < kBatchKeys - seen;
        },
        position_, /*include_expired=*/true);
    for (size_t i = 0; s.ok() && i < expired.size(); ++i) {
      // Held by a client pause meanwhile: this batch again once it ends.
      if (clients_paused_.load(std::memory_order_relaxed)) return;
      s = Reclaim(view, database_, expired[i]);
    }
    if (!s.ok()) {
      // Try again next tick from the same place (a full disk, a closing DB).
      std::fprintf(stderr, "teksdb-server: expiry sweep: %s\n", s.ToString().c_str());
      return;
    }
    if (seen_here == kBatchKeys - seen) {
      position_ = last + '\0';  // the smallest key after `last`
      return;
    }
    seen += seen_here;
    position_.clear();
    if (++database_ == Keyspace::kDatabases) break;
  }
  database_ = 0;
  // The pass is over: start again from the first key, or sleep until an
  // expiry is written if this pass met none.
  // (One read of the counter: a write after it wakes the sweep.)
  const uint64_t writes = keyspace_->expiry_writes();
  idle_.store(!pass_saw_expiry_ && writes == pass_expiry_writes_, std::memory_order_relaxed);
  pass_saw_expiry_ = false;
  pass_expiry_writes_ = writes;
}

}  // namespace teksdb::server
