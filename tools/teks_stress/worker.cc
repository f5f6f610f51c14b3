// Worker's operations (see worker.h). Weights, per 1000 operations:
//   writes   put 140, merge 60, delete 50, single_delete 40, write_batch 60;
//            transactional modes: transaction 120; others: delete_range 20
//            and write_batch 100 more
//   reads    get 240 under the key's lock and 50 without, multiget 60,
//            iterator 110, snapshot 60 (take, re-check or release the held one)
//   admin    10 in all: flush 4, compact_range 3, a scratch column family's
//            life 1 (not in the transactional modes), flush_wal 2 (with
//            manual_wal_flush; else a get)
#include "worker.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "rocksdb/utilities/transaction.h"

namespace teks_stress {

using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

std::string ProgressKey(uint32_t thread) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "t%02u", thread);
  return buf;
}

std::string ProgressValue(uint64_t epoch, uint32_t op) {
  std::string v(12, '\0');
  std::memcpy(&v[0], &epoch, 8);
  std::memcpy(&v[8], &op, 4);
  return v;
}

bool ParseProgress(const Slice& value, uint64_t* epoch, uint32_t* op) {
  if (value.size() != 12) return false;
  std::memcpy(epoch, value.data(), 8);
  std::memcpy(op, value.data() + 8, 4);
  return true;
}

std::string TransactionName(uint32_t thread, uint32_t op) {
  return "t" + std::to_string(thread) + "o" + std::to_string(op);
}

bool ParseTransactionName(const std::string& name, uint32_t* thread, uint32_t* op) {
  unsigned t = 0, o = 0;
  char tail = 0;
  if (std::sscanf(name.c_str(), "t%uo%u%c", &t, &o, &tail) != 2) return false;
  *thread = t;
  *op = o;
  return t < ExpectedState::kMaxThreads;
}

void CheckRead(const char* what, uint32_t cf, uint32_t key, const Status& status,
               const Slice& value, const KeyState& expected) {
  std::string got;
  if (status.IsNotFound()) {
    if (!expected.exists) return;
    got = "absent";
  } else if (!status.ok()) {
    got = "error " + status.ToString();
  } else {
    uint32_t base = 0;
    if (!ParseValue(value, cf, key, &base)) {
      got = "a value never written for this key (" + std::to_string(value.size()) + " bytes)";
    } else if (expected.exists && base == expected.value_base) {
      return;
    } else {
      got = "value base " + std::to_string(base);
    }
  }
  Fail(std::string(what) + ": cf " + std::to_string(cf) + " key " + std::to_string(key) +
       ": expected " + expected.ToString() + ", read " + got);
}

Worker::Worker(uint32_t id, uint64_t seed, const WorkloadConfig& config, StressDB* db,
               ExpectedState* expected, KeyLocks* locks, Stats* stats)
    : id_(id),
      rng_(seed),
      config_(config),
      db_(db),
      expected_(expected),
      locks_(locks),
      stats_(stats),
      column_families_(expected->column_families()),
      keys_(expected->keys_per_cf()),
      single_delete_begin_(keys_ - keys_ / 8),
      hot_keys_(std::max<uint32_t>(8, keys_ / 100)),
      epoch_(expected->header().epoch.load()),
      op_(0) {}

Worker::~Worker() { ReleaseSnapshot(); }

uint64_t Worker::NowMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t Worker::NormalKey() {
  // A quarter of the picks go to a few hot keys, which pile up versions
  // that readers at older snapshots still need.
  if (OneIn(4)) return Uniform(hot_keys_);
  return Uniform(single_delete_begin_);
}

uint32_t Worker::SingleDeleteKey() {
  return single_delete_begin_ + Uniform(keys_ - single_delete_begin_);
}

void Worker::Run(const std::atomic<bool>& stop) {
  const bool txn = IsTransactional(db_->config().mode);
  while (!stop.load(std::memory_order_relaxed)) {
    uint32_t r = Uniform(1000);
    if (r < 140) {
      WriteOne(Kind::kPut, kPut);
    } else if (r < 200) {
      WriteOne(Kind::kMerge, kMerge);
    } else if (r < 250) {
      WriteOne(Kind::kDelete, kDelete);
    } else if (r < 290) {
      WriteOne(Kind::kSingleDelete, kSingleDelete);
    } else if (r < 350) {
      WriteBatchOp();
    } else if (r < 370) {
      if (txn) {
        TransactionOp();
      } else {
        DeleteRangeOp();
      }
    } else if (r < 470) {
      if (txn) {
        TransactionOp();
      } else {
        WriteBatchOp();
      }
    } else if (r < 620) {
      GetOp();
    } else if (r < 670) {
      UnlockedGetOp();
    } else if (r < 730) {
      MultiGetOp();
    } else if (r < 840) {
      IteratorOp();
    } else if (r < 900) {
      SnapshotOp();
    } else if (r < 990) {
      GetOp();
    } else {
      AdminOp();
    }
  }
}

// ---- writes ---------------------------------------------------------------

void Worker::AddMutation(std::vector<Mutation>* m, uint32_t cf, uint32_t key, Kind kind) {
  for (const Mutation& existing : *m) {
    if (existing.cf == cf && existing.key == key) return;  // one write per key per batch
  }
  m->push_back(Mutation{cf, key, kind, KeyState(), KeyState()});
}

void Worker::Lock(LockSet* set, const std::vector<Mutation>& mutations) {
  for (const Mutation& m : mutations) set->Add(m.cf, m.key);
  set->Lock();
}

// Under the locks: each mutation's states, the single-delete region's
// discipline, and the oracle entries, pushed before the DB write.
void Worker::FinishMutations(std::vector<Mutation>* mutations, uint32_t op) {
  for (Mutation& m : *mutations) {
    m.before = expected_->Latest(m.cf, m.key);
    if (m.key >= single_delete_begin_) {
      m.kind = m.before.exists ? Kind::kSingleDelete : Kind::kPut;
    }
    m.after.thread = id_;
    m.after.op = op;
    m.after.exists = m.kind == Kind::kPut || m.kind == Kind::kMerge;
    m.after.value_base = m.after.exists
                             ? (m.before.value_base + 1 + Uniform(3)) & KeyState::kValueBaseMask
                             : 0;
    expected_->Push(m.cf, m.key, m.after);
  }
}

void Worker::AddToBatch(WriteBatch* batch, const Mutation& m) {
  const std::string key = KeyString(m.key);
  Status s;
  switch (m.kind) {
    case Kind::kPut:
      s = batch->Put(db_->data(m.cf), key, ValueString(m.cf, m.key, m.after.value_base));
      break;
    case Kind::kMerge:
      s = batch->Merge(db_->data(m.cf), key, ValueString(m.cf, m.key, m.after.value_base));
      break;
    case Kind::kDelete:
      s = batch->Delete(db_->data(m.cf), key);
      break;
    case Kind::kSingleDelete:
      s = batch->SingleDelete(db_->data(m.cf), key);
      break;
    case Kind::kRangeMember:
      break;  // the batch's DeleteRange covers it
  }
  if (!s.ok()) Fail("WriteBatch: " + s.ToString());
}

void Worker::ApplyBatch(std::vector<Mutation>* mutations, uint32_t range_cf,
                        uint32_t range_begin, uint32_t range_end, Op op) {
  LockSet set(locks_);
  Lock(&set, *mutations);
  const uint32_t n = ++op_;
  FinishMutations(mutations, n);
  const bool single_delete = std::any_of(mutations->begin(), mutations->end(), [](const Mutation& m) {
    return m.kind == Kind::kSingleDelete;
  });
  if (single_delete && db_->txn_db() != nullptr) {
    // RocksDB 7.8.3's TransactionDB::Write refuses SingleDelete outside the
    // default column family: write it through a transaction.
    RunTransaction(*mutations, n, true, false, false, true);
    stats_->Count(op);
    return;
  }
  WriteBatch batch;
  for (const Mutation& m : *mutations) AddToBatch(&batch, m);
  if (range_begin < range_end) {
    Status s = batch.DeleteRange(db_->data(range_cf), KeyString(range_begin),
                                 KeyString(range_end));
    if (!s.ok()) Fail("WriteBatch::DeleteRange: " + s.ToString());
  }
  Status s = batch.Put(db_->progress(), ProgressKey(id_), ProgressValue(epoch_, n));
  if (!s.ok()) Fail("WriteBatch: " + s.ToString());
  WriteOptions wo;
  wo.sync = config_.sync;
  wo.disableWAL = config_.disable_wal;
  s = db_->db()->Write(wo, &batch);
  if (!s.ok()) Fail(std::string(OpName(op)) + ": Write: " + s.ToString());
  expected_->Acknowledge(id_, n);
  stats_->Count(op);
}

void Worker::WriteOne(Kind kind, Op op) {
  std::vector<Mutation> m;
  const uint32_t key = kind == Kind::kSingleDelete ? SingleDeleteKey() : NormalKey();
  AddMutation(&m, RandomCf(), key, kind);
  ApplyBatch(&m, 0, 0, 0, op);
}

void Worker::WriteBatchOp() {
  std::vector<Mutation> m;
  const uint32_t n = 2 + Uniform(7);
  for (uint32_t i = 0; i < n; ++i) {
    static const Kind kKinds[] = {Kind::kPut, Kind::kPut, Kind::kMerge, Kind::kDelete};
    AddMutation(&m, RandomCf(), AnyKey(), kKinds[Uniform(4)]);
  }
  ApplyBatch(&m, 0, 0, 0, kWriteBatch);
}

void Worker::DeleteRangeOp() {
  const uint32_t cf = RandomCf();
  const uint32_t width = 1 + Uniform(48);
  const uint32_t begin = Uniform(single_delete_begin_);
  const uint32_t end = std::min(begin + width, single_delete_begin_);
  std::vector<Mutation> m;
  for (uint32_t k = begin; k < end; ++k) AddMutation(&m, cf, k, Kind::kRangeMember);
  ApplyBatch(&m, cf, begin, end, kDeleteRange);
}

// A transaction of 1-6 writes: committed directly, or prepared (sometimes
// held prepared for a while, so that kills find transactions prepared)
// then committed, or rolled back before or after Prepare.
void Worker::TransactionOp() {
  std::vector<Mutation> m;
  const uint32_t n = 1 + Uniform(6);
  for (uint32_t i = 0; i < n; ++i) {
    // Not the single-delete region: WritePrepared rolls a SingleDelete back
    // by writing the old value again, a second Put the contract forbids.
    static const Kind kKinds[] = {Kind::kPut, Kind::kPut, Kind::kMerge, Kind::kDelete};
    AddMutation(&m, RandomCf(), NormalKey(), kKinds[Uniform(4)]);
  }
  LockSet set(locks_);
  Lock(&set, m);
  const uint32_t op = ++op_;
  FinishMutations(&m, op);
  const uint32_t r = Uniform(100);
  // < 10: rolled back before Prepare; < 25: committed without Prepare;
  // else prepared, then (< 30) held, and (< 35) rolled back or committed.
  const bool commit = RunTransaction(m, op, r >= 10, r >= 25, r >= 25 && r < 30, r >= 35 || r < 25);
  stats_->Count(commit ? kTxnCommit : kTxnRollback);
}

bool Worker::RunTransaction(const std::vector<Mutation>& m, uint32_t op, bool commit_wanted,
                            bool prepare, bool hold_prepared, bool commit_after_prepare) {
  WriteOptions wo;
  wo.sync = config_.sync;
  wo.disableWAL = false;  // 2PC needs the WAL
  std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> txn(db_->txn_db()->BeginTransaction(wo));
  Status s = txn->SetName(TransactionName(id_, op));
  for (const Mutation& mu : m) {
    if (!s.ok()) break;
    const std::string key = KeyString(mu.key);
    switch (mu.kind) {
      case Kind::kPut:
        s = txn->Put(db_->data(mu.cf), key, ValueString(mu.cf, mu.key, mu.after.value_base));
        break;
      case Kind::kMerge:
        s = txn->Merge(db_->data(mu.cf), key, ValueString(mu.cf, mu.key, mu.after.value_base));
        break;
      case Kind::kDelete:
        s = txn->Delete(db_->data(mu.cf), key);
        break;
      case Kind::kSingleDelete:
        s = txn->SingleDelete(db_->data(mu.cf), key);
        break;
      case Kind::kRangeMember:
        Fail("a transaction cannot DeleteRange");
    }
  }
  if (s.ok()) s = txn->Put(db_->progress(), ProgressKey(id_), ProgressValue(epoch_, op));
  if (!s.ok()) Fail("transaction write: " + s.ToString());
  // The transaction reads its own writes.
  for (const Mutation& mu : m) {
    PinnableSlice value;
    Status g = txn->Get(ReadOptions(), db_->data(mu.cf), KeyString(mu.key), &value);
    CheckRead("Transaction::Get of its own write", mu.cf, mu.key, g, value, mu.after);
  }
  stats_->Count(kTransactionReads, m.size());

  bool commit = commit_wanted;
  if (commit_wanted && prepare) {
    if (!(s = txn->Prepare()).ok()) Fail("Transaction::Prepare: " + s.ToString());
    expected_->SetPrepared(id_, op);
    if (hold_prepared) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + Uniform(config_.prepared_hold_ms)));
      stats_->Count(kTxnPreparedHeld);
    }
    commit = commit_after_prepare;
  }
  if (commit) {
    if (!(s = txn->Commit()).ok()) Fail("Transaction::Commit: " + s.ToString());
    expected_->Acknowledge(id_, op);
    expected_->SetPrepared(id_, 0);  // after: a kill before finds it committed
    return true;
  }
  expected_->SetPrepared(id_, 0);  // before: a rolled-back prepare is not to be found
  if (!(s = txn->Rollback()).ok()) Fail("Transaction::Rollback: " + s.ToString());
  // The keys hold their old states again. The op's progress is not in the
  // DB, but the thread's next write's will be, so record that with op's
  // number.
  for (const Mutation& mu : m) {
    KeyState restored = mu.before;
    restored.thread = id_;
    restored.op = op;
    expected_->Push(mu.cf, mu.key, restored);
  }
  return false;
}

// ---- reads ----------------------------------------------------------------

void Worker::GetOp() {
  const uint32_t cf = RandomCf();
  const uint32_t key = AnyKey();
  LockSet set(locks_);
  set.Add(cf, key);
  set.Lock();
  PinnableSlice value;
  Status s = db_->db()->Get(ReadOptions(), db_->data(cf), KeyString(key), &value);
  CheckRead("Get", cf, key, s, value, expected_->Latest(cf, key));
  stats_->Count(kGet);
  stats_->Count(kLatestReads);
}

void Worker::UnlockedGetOp() {
  const uint32_t cf = RandomCf();
  const uint32_t key = AnyKey();
  PinnableSlice value;
  Status s = db_->db()->Get(ReadOptions(), db_->data(cf), KeyString(key), &value);
  uint32_t base = 0;
  if (!s.IsNotFound() && !(s.ok() && ParseValue(value, cf, key, &base))) {
    Fail("Get racing writers: cf " + std::to_string(cf) + " key " + std::to_string(key) +
         ": " + (s.ok() ? "a value never written for this key" : s.ToString()));
  }
  stats_->Count(kUnlockedGet);
  stats_->Count(kUnlockedReads);
}

void Worker::MultiGetOp() {
  const uint32_t n = 2 + Uniform(9);
  std::vector<std::pair<uint32_t, uint32_t>> keys;
  LockSet set(locks_);
  for (uint32_t i = 0; i < n; ++i) {
    keys.emplace_back(RandomCf(), AnyKey());
    set.Add(keys.back().first, keys.back().second);
  }
  set.Lock();
  std::vector<std::string> key_strings;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
  for (const auto& [cf, key] : keys) {
    key_strings.push_back(KeyString(key));
    handles.push_back(db_->data(cf));
  }
  std::vector<Slice> slices(key_strings.begin(), key_strings.end());
  std::vector<std::string> values;
  std::vector<Status> statuses = db_->db()->MultiGet(ReadOptions(), handles, slices, &values);
  for (size_t i = 0; i < keys.size(); ++i) {
    CheckRead("MultiGet", keys[i].first, keys[i].second, statuses[i], values[i],
              expected_->Latest(keys[i].first, keys[i].second));
  }
  stats_->Count(kMultiGet);
  stats_->Count(kLatestReads, keys.size());
}

// Locks a run of 1-4 stripes of one family and checks an iterator's
// positions inside it exactly: after Seek, SeekForPrev, SeekToFirst,
// SeekToLast and each Next/Prev, the iterator is at the oracle's next
// existing key with its value, or out of the run.
void Worker::IteratorOp() {
  const uint32_t cf = RandomCf();
  const uint32_t stripes = (keys_ + KeyLocks::kStripe - 1) / KeyLocks::kStripe;
  const uint32_t first = Uniform(stripes);
  const uint32_t width = 1 + Uniform(4);
  const uint32_t lo = first * KeyLocks::kStripe;
  const uint32_t hi = std::min(keys_, (first + width) * KeyLocks::kStripe);
  LockSet set(locks_);
  for (uint32_t k = lo; k < hi; k += KeyLocks::kStripe) set.Add(cf, k);
  set.Lock();

  std::vector<uint32_t> present;  // existing keys of [lo, hi), ascending
  std::vector<KeyState> states;
  for (uint32_t k = lo; k < hi; ++k) {
    KeyState st = expected_->Latest(cf, k);
    if (st.exists) {
      present.push_back(k);
      states.push_back(st);
    }
  }
  ReadOptions ro;
  const bool bounded = OneIn(2);
  const std::string lower = KeyString(lo), upper = KeyString(hi);
  Slice lower_slice(lower), upper_slice(upper);
  if (bounded) {
    ro.iterate_lower_bound = &lower_slice;
    ro.iterate_upper_bound = &upper_slice;
  }
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = OneIn(2) ? db_->db()->GetSnapshot() : nullptr;
  ro.snapshot = snapshot;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db_->db()->NewIterator(ro, db_->data(cf)));

  // Expected position: an index into `present`, or -1 (before lo) or
  // present.size() (at or past hi).
  const long out_high = static_cast<long>(present.size());
  long pos = 0;
  const uint32_t target = lo + Uniform(hi - lo);
  const char* how = "";
  const bool can_first = bounded || lo == 0;
  const bool can_last = bounded || hi == keys_;
  switch (Uniform(4)) {
    case 0:
      how = "Seek";
      it->Seek(KeyString(target));
      pos = std::lower_bound(present.begin(), present.end(), target) - present.begin();
      break;
    case 1:
      how = "SeekForPrev";
      it->SeekForPrev(KeyString(target));
      pos = static_cast<long>(std::upper_bound(present.begin(), present.end(), target) -
                              present.begin()) - 1;
      break;
    case 2:
      if (can_first) {
        how = "SeekToFirst";
        it->SeekToFirst();
        pos = 0;
      } else {
        how = "Seek";
        it->Seek(lower);
        pos = 0;
      }
      break;
    default:
      if (can_last) {
        how = "SeekToLast";
        it->SeekToLast();
      } else {
        how = "SeekForPrev";
        it->SeekForPrev(KeyString(hi - 1));
      }
      pos = out_high - 1;
      break;
  }
  uint64_t checked = 0;
  for (int step = 0;; ++step) {
    if (!it->status().ok()) Fail(std::string("iterator after ") + how + ": " + it->status().ToString());
    const std::string where = std::string(how) + " then " + std::to_string(step) +
                              " steps, cf " + std::to_string(cf) + " keys [" +
                              std::to_string(lo) + ", " + std::to_string(hi) + ")";
    if (pos >= 0 && pos < out_high) {
      uint32_t key = 0;
      if (!it->Valid() || !ParseKey(it->key(), &key) || key != present[pos]) {
        Fail("iterator " + where + ": expected key " + std::to_string(present[pos]) + ", at " +
             (!it->Valid() ? std::string("the end")
                           : ParseKey(it->key(), &key) ? "key " + std::to_string(key)
                                                       : "a key never written"));
      }
      CheckRead("iterator value", cf, key, Status::OK(), it->value(), states[pos]);
    } else if (it->Valid()) {
      uint32_t key = 0;
      const bool parsed = ParseKey(it->key(), &key);
      const bool outside = parsed && (pos < 0 ? key < lo : key >= hi);
      if (!outside || bounded) {
        Fail("iterator " + where + ": expected no key in range" +
             (bounded ? " (bounded: invalid)" : "") + ", at " +
             (parsed ? "key " + std::to_string(key) : "a key never written"));
      }
    }
    ++checked;
    if (pos < 0 || pos >= out_high || step >= 8) break;
    if (OneIn(2)) {
      it->Next();
      ++pos;
    } else {
      it->Prev();
      --pos;
    }
  }
  it.reset();
  if (snapshot != nullptr) db_->db()->ReleaseSnapshot(snapshot);
  stats_->Count(kIterator);
  stats_->Count(kIteratorPositions, checked);
}

// Takes a snapshot (if none is held) with the exact states of a sample of
// keys, or re-reads the sample at it; past its time, releases it after a
// last check. Hot keys dominate the sample: other threads keep writing
// them, which is when a memtable could drop what the snapshot needs.
void Worker::SnapshotOp() {
  if (held_.snapshot != nullptr) {
    CheckSnapshot(held_);
    if (NowMs() >= held_.release_at_ms) ReleaseSnapshot();
    return;
  }
  const uint32_t n = 4 + Uniform(9);
  LockSet set(locks_);
  for (uint32_t i = 0; i < n; ++i) {
    held_.keys.emplace_back(RandomCf(), OneIn(2) ? Uniform(hot_keys_) : AnyKey());
    set.Add(held_.keys.back().first, held_.keys.back().second);
  }
  set.Lock();
  held_.snapshot = db_->db()->GetSnapshot();
  for (const auto& [cf, key] : held_.keys) held_.states.push_back(expected_->Latest(cf, key));
  held_.release_at_ms = NowMs() + 1 + Uniform(config_.snapshot_hold_ms);
  stats_->Count(kSnapshotTaken);
  CheckSnapshot(held_);
}

void Worker::CheckSnapshot(const HeldSnapshot& held) {
  ReadOptions ro;
  ro.snapshot = held.snapshot;
  std::vector<std::string> key_strings;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
  for (size_t i = 0; i < held.keys.size(); ++i) {
    const auto [cf, key] = held.keys[i];
    PinnableSlice value;
    Status s = db_->db()->Get(ro, db_->data(cf), KeyString(key), &value);
    CheckRead("Get at a held snapshot", cf, key, s, value, held.states[i]);
    key_strings.push_back(KeyString(key));
    handles.push_back(db_->data(cf));
  }
  std::vector<Slice> slices(key_strings.begin(), key_strings.end());
  std::vector<std::string> values;
  std::vector<Status> statuses = db_->db()->MultiGet(ro, handles, slices, &values);
  for (size_t i = 0; i < held.keys.size(); ++i) {
    CheckRead("MultiGet at a held snapshot", held.keys[i].first, held.keys[i].second,
              statuses[i], values[i], held.states[i]);
  }
  // Seek to one sampled key at the snapshot: there if it existed, past it if not.
  const size_t i = Uniform(static_cast<uint32_t>(held.keys.size()));
  const auto [cf, key] = held.keys[i];
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db_->db()->NewIterator(ro, db_->data(cf)));
  it->Seek(KeyString(key));
  uint32_t at = 0;
  const bool valid = it->Valid() && ParseKey(it->key(), &at);
  if (held.states[i].exists) {
    if (!valid || at != key) {
      Fail("Seek at a held snapshot: cf " + std::to_string(cf) + " key " + std::to_string(key) +
           " (" + held.states[i].ToString() + ") not found, iterator at " +
           (valid ? "key " + std::to_string(at) : "the end"));
    }
    CheckRead("iterator value at a held snapshot", cf, key, Status::OK(), it->value(),
              held.states[i]);
  } else if (valid && at == key) {
    Fail("Seek at a held snapshot: cf " + std::to_string(cf) + " key " + std::to_string(key) +
         " was absent at the snapshot, iterator finds it");
  }
  if (!it->status().ok()) Fail("iterator at a held snapshot: " + it->status().ToString());
  stats_->Count(kSnapshotCheck);
  stats_->Count(kSnapshotReads, 2 * held.keys.size() + 1);
}

void Worker::ReleaseSnapshot() {
  if (held_.snapshot == nullptr) return;
  db_->db()->ReleaseSnapshot(held_.snapshot);
  held_ = HeldSnapshot();
}

void Worker::AdminOp() {
  const uint32_t r = Uniform(10);
  auto* cf = db_->data(RandomCf());
  Status s;
  if (r < 4) {
    ROCKSDB_NAMESPACE::FlushOptions fo;
    fo.wait = OneIn(2);
    s = db_->db()->Flush(fo, cf);
    // A flush that would not wait is refused while writes are stopped.
    if (!fo.wait && s.IsTryAgain()) s = Status::OK();
    stats_->Count(kFlush);
  } else if (r < 7) {
    const uint32_t a = Uniform(keys_), b = Uniform(keys_);
    const std::string begin = KeyString(std::min(a, b)), end = KeyString(std::max(a, b));
    Slice bs(begin), es(end);
    const bool whole = OneIn(4);
    s = db_->db()->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(), cf,
                                whole ? nullptr : &bs, whole ? nullptr : &es);
    stats_->Count(kCompactRange);
  } else if (r < 8 && db_->txn_db() == nullptr) {
    // Not beside transactions: RocksDB 7.8.3's PointLockManager deletes
    // every thread's cached lock maps when a family is dropped, under a
    // thread still searching its own (a segfault the crash test found).
    ScratchFamilyOp();
  } else if (db_->config().manual_wal_flush) {
    s = db_->db()->FlushWAL(/*sync=*/false);
    stats_->Count(kFlushWal);
  } else {
    GetOp();
  }
  if (!s.ok()) Fail("admin operation: " + s.ToString());
}

// A column family's life: created (through the layer, which must give it a
// TeksTable of its own), written, read back exactly, scanned, dropped.
// Outside the oracle: it is gone before any kill can matter (a kill while
// it lives leaves it for the next Open to drop).
void Worker::ScratchFamilyOp() {
  ROCKSDB_NAMESPACE::ColumnFamilyOptions options(db_->db()->GetOptions(db_->data(0)));
  const std::string name = std::string(kScratchPrefix) + std::to_string(id_) + "-" +
                           std::to_string(rng_() % 1000000);
  ROCKSDB_NAMESPACE::ColumnFamilyHandle* handle = nullptr;
  Status s = db_->db()->CreateColumnFamily(options, name, &handle);
  if (!s.ok()) Fail("CreateColumnFamily " + name + ": " + s.ToString());
  const uint32_t n = 1 + Uniform(64);
  WriteOptions wo;
  wo.disableWAL = config_.disable_wal;
  for (uint32_t k = 0; k < n && s.ok(); ++k) {
    s = db_->db()->Put(wo, handle, KeyString(k), ValueString(0, k, k));
  }
  if (!s.ok()) Fail("Put in " + name + ": " + s.ToString());
  KeyState want;
  want.exists = true;
  for (uint32_t k = 0; k < n; ++k) {
    PinnableSlice value;
    want.value_base = k;
    CheckRead("Get in a scratch column family", 0, k, db_->db()->Get(ReadOptions(), handle,
                                                                     KeyString(k), &value),
              value, want);
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db_->db()->NewIterator(ReadOptions(), handle));
  uint32_t seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    uint32_t k = 0;
    if (!ParseKey(it->key(), &k) || k != seen) Fail("scan of " + name + " out of order");
    ++seen;
  }
  if (!it->status().ok() || seen != n) {
    Fail("scan of " + name + " saw " + std::to_string(seen) + " of " + std::to_string(n) +
         " keys: " + it->status().ToString());
  }
  it.reset();
  s = db_->db()->DropColumnFamily(handle);
  if (s.ok()) s = db_->db()->DestroyColumnFamilyHandle(handle);
  if (!s.ok()) Fail("DropColumnFamily " + name + ": " + s.ToString());
  stats_->Count(kScratchFamily);
  stats_->Count(kLatestReads, n);
}

}  // namespace teks_stress
