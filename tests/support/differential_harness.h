// The differential harness: TeksTable against RocksDB's stock SkipList memtable.
//
// What: the same random operations go to two databases that differ only in
// their memtable. The oracle uses rocksdb::SkipListFactory; the subject uses
// TeksTable, either as a plain factory (DB::Open) or under the TeksDB layer
// (TeksDB::Open), where TeksTable drops shadowed versions no reader needs.
// Every read is made on both and must give the same answer:
//   - Get and MultiGet (both APIs), at the latest state and at held
//     snapshots (taken through the DB object under test);
//   - iterators walked from Seek / SeekForPrev / SeekToFirst / SeekToLast
//     with random direction changes, some with bounds, comparing key and
//     value at every step;
//   - iterators held open across later writes (created on both sides at
//     the same moment), some refreshed;
//   - tailing iterators (ReadOptions::tailing), which must see writes made
//     after their creation, stepped between writes (a suite of their own);
//   - full scans after flushes, compactions and reopens (WAL replay).
// Writes: Put, Delete, SingleDelete (on keys set aside for it, where Put
// and SingleDelete alternate, as its contract requires), Merge (string
// append), DeleteRange, and WriteBatches that repeat keys and span column
// families. A small key space with a few hot keys makes versions pile up.
// Some configurations use a small write buffer so flushes happen by
// themselves mid-run, others a large one so versions stay in one memtable.
//
// The suites, one file each:
//   differential_test.cc                 random operations (DB or TeksDB)
//   differential_tailing_test.cc         tailing iterators between writes
//   differential_version_dropping_test.cc  directed checks of dropping
//   differential_write_prepared_test.cc  WritePrepared transactions, over the
//     plain factory and under TeksTransactionDB, reads inside transactions
//     and outside them while prepared writes sit in the memtable
// This header holds what they share: the configurations, a database pair
// (Side), the key space, read comparisons, the driver that keeps both
// sides in step, random writes that keep SingleDelete's contract, and
// operation mixes as tables of {operation, weight}.
//
// Reproducing a failure: every test traces its seed; TEKSDB_TEST_SEED=<n>
// with --gtest_filter=<that test> replays it (TEKSDB_TEST_SEED=random draws
// new ones); TEKSDB_TEST_SCALE=<k> multiplies the operation counts. On a
// mismatch the last operations are printed. Background flushes and compactions can place files differently
// from run to run; the answers must not differ.
//
// Thread safety: one test thread drives a pair; RocksDB's own threads
// flush and compact underneath.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/transaction_db.h"
#include "rocksdb/write_batch.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/rocksdb_version.h"
#include "teksdb/teks_transaction_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace differential {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Snapshot;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::Transaction;
using ROCKSDB_NAMESPACE::TransactionDB;
using ROCKSDB_NAMESPACE::TransactionDBOptions;
using ROCKSDB_NAMESPACE::TransactionOptions;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

// ---------------------------------------------------------------------------
// Knobs.

using test::ReplayHint;
using test::Scale;
using test::StepBoth;
using test::SeedFor;

// An associative string append: the result lists operands oldest first.
using test::AppendOperator;

// ---------------------------------------------------------------------------
// Configurations.

enum class Layer {
  kPlainFactory,    // DB::Open with options.memtable_factory = TeksTable
  kTeksDB,          // TeksDB::Open: version dropping active (if inplace)
  kTransactionDB,   // TransactionDB::Open, WRITE_PREPARED, plain factory
  kTeksTransactionDB,  // TeksTransactionDB::Open, WRITE_PREPARED, dropping active
};

struct Config {
  const char* name;
  Layer layer;
  TeksTableOptions teks;
  size_t write_buffer_size;
  bool avoid_flush_during_recovery;
  int key_count;
  uint64_t default_seed;
  // Both sides with RocksDB's checked reads on, as far as the release has
  // them (CheckedReads below).
  bool checked_reads = false;
};

// RocksDB's checks of memtable reads, on: per-entry checksums, and where the
// release has them, paranoid_memory_checks (9.6: GetAndValidate and the
// *AndValidate iterator steps), verify-on-seek (10.7) and the batched
// MultiGet of memtable_batch_lookup_optimization (11.1: MemTableRep::MultiGet).
inline void CheckedReads(ROCKSDB_NAMESPACE::Options* options) {
  options->memtable_protection_bytes_per_key = 8;
#if TEKSDB_ROCKSDB_HAS_VALIDATING_READS
  options->paranoid_memory_checks = true;
#endif
#ifdef TEKSDB_ROCKSDB_VERIFY_ON_SEEK_OPTION
  options->TEKSDB_ROCKSDB_VERIFY_ON_SEEK_OPTION = true;
#endif
#if TEKSDB_ROCKSDB_HAS_REP_MULTIGET
  options->memtable_batch_lookup_optimization = true;
#endif
}

inline TeksTableOptions Variant(const char* id) {
  TeksTableOptions options;
  EXPECT_TRUE(TeksTableOptions::ForVariant(id, &options)) << id;
  return options;
}

inline TeksTableOptions Custom(bool async, bool concurrent_hash, bool shortcut, bool inplace) {
  TeksTableOptions options;
  options.async = async;
  options.concurrent_hash = concurrent_hash;
  options.shortcut = shortcut;
  options.inplace = inplace;
  return options;
}

constexpr size_t kKiB = 1024;
constexpr size_t kLargeBuffer = 64 * kKiB * kKiB;

inline std::string PrintConfigName(const ::testing::TestParamInfo<Config>& info) {
  return info.param.name;
}
inline void PrintTo(const Config& config, std::ostream* os) { *os << config.name; }

// ---------------------------------------------------------------------------
// One database of a differential pair.

class Side {
 public:
  Side(const Config& config, bool oracle)
      : layer_(OracleLayer(config.layer, oracle)),
        dir_(oracle ? "teks_diff_oracle" : "teks_diff_subject") {
    options_.create_if_missing = true;
    options_.create_missing_column_families = true;
    options_.write_buffer_size = config.write_buffer_size;
    options_.avoid_flush_during_recovery = config.avoid_flush_during_recovery;
    options_.merge_operator = std::make_shared<AppendOperator>();
    options_.memtable_factory =
        oracle ? std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory>(
                     std::make_shared<ROCKSDB_NAMESPACE::SkipListFactory>())
               : NewTeksTableFactory(config.teks);
    options_.info_log_level = ROCKSDB_NAMESPACE::WARN_LEVEL;
    options_.listeners.push_back(automatic_flushes_);
    if (config.checked_reads) CheckedReads(&options_);
    txn_db_options_.write_policy = ROCKSDB_NAMESPACE::TxnDBWritePolicy::WRITE_PREPARED;
    // A lock conflict fails at once (the same way on both sides), never waits.
    txn_db_options_.transaction_lock_timeout = 0;
    txn_db_options_.default_lock_timeout = 0;
  }
  ~Side() { Close(); }
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;

  // Opens (creating what is missing) with the default column family and
  // `cf_names`, in that order.
  void Open(const std::vector<std::string>& cf_names) {
    std::vector<ColumnFamilyDescriptor> cfs;
    cfs.emplace_back(ROCKSDB_NAMESPACE::kDefaultColumnFamilyName,
                     ColumnFamilyOptions(options_));
    for (const std::string& name : cf_names) {
      cfs.emplace_back(name, ColumnFamilyOptions(options_));
    }
    const DBOptions db_options(options_);
    switch (layer_) {
      case Layer::kPlainFactory: {
        ASSERT_OK(OpenDB(db_options, dir_.path(), cfs, &handles_, &plain_));
        break;
      }
      case Layer::kTeksDB:
        ASSERT_OK(TeksDB::Open(db_options, dir_.path(), cfs, &handles_, &layered_));
        break;
      case Layer::kTransactionDB: {
        TransactionDB* raw = nullptr;
        ASSERT_OK(TransactionDB::Open(db_options, txn_db_options_, dir_.path(), cfs,
                                      &handles_, &raw));
        txn_db_.reset(raw);
        break;
      }
      case Layer::kTeksTransactionDB: {
        std::unique_ptr<TeksTransactionDB> layered;
        ASSERT_OK(TeksTransactionDB::Open(db_options, txn_db_options_, dir_.path(), cfs,
                                          &handles_, &layered));
        txn_db_ = std::move(layered);
        break;
      }
    }
  }

  // Creates a column family through the DB object under test.
  void CreateColumnFamily(const std::string& name) {
    ColumnFamilyHandle* handle = nullptr;
    ASSERT_OK(db()->CreateColumnFamily(ColumnFamilyOptions(options_), name, &handle));
    handles_.push_back(handle);
  }

  void Close() {
    if (db() == nullptr) return;
    for (ColumnFamilyHandle* handle : handles_) {
      EXPECT_TRUE(db()->DestroyColumnFamilyHandle(handle).ok());
    }
    handles_.clear();
    plain_.reset();
    layered_.reset();
    txn_db_.reset();
  }

  DB* db() const {
    if (plain_ != nullptr) return plain_.get();
    if (layered_ != nullptr) return layered_.get();
    return txn_db_.get();
  }
  TransactionDB* txn_db() const { return txn_db_.get(); }
  ColumnFamilyHandle* cf(size_t i) const { return handles_.at(i); }
  size_t num_cfs() const { return handles_.size(); }
  uint64_t automatic_flushes() const { return automatic_flushes_->count(); }

 private:
  // The oracle runs stock RocksDB with the SkipList memtable: the TeksDB
  // layers' oracles are the plain DB and TransactionDB.
  static Layer OracleLayer(Layer layer, bool oracle) {
    if (!oracle) return layer;
    if (layer == Layer::kTeksDB) return Layer::kPlainFactory;
    if (layer == Layer::kTeksTransactionDB) return Layer::kTransactionDB;
    return layer;
  }

  const Layer layer_;
  test::TempDir dir_;
  const std::shared_ptr<test::AutomaticFlushCounter> automatic_flushes_ =
      std::make_shared<test::AutomaticFlushCounter>();
  Options options_;
  TransactionDBOptions txn_db_options_;
  std::unique_ptr<DB> plain_;
  std::unique_ptr<TeksDB> layered_;
  std::unique_ptr<TransactionDB> txn_db_;
  std::vector<ColumnFamilyHandle*> handles_;
};

// ---------------------------------------------------------------------------
// Keys, values and SingleDelete's contract.

class KeySpace {
 public:
  explicit KeySpace(int count) : count_(count) {}

  std::string Key(int i) const {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "key%04d", i);
    return buf;
  }

  // A fifth of the picks go to eight hot keys spread over the space, so
  // their versions pile up.
  std::string RandomKey(std::mt19937_64& rng) const {
    if (rng() % 5 == 0) return Key(static_cast<int>((rng() % 8) * count_ / 8));
    return Key(static_cast<int>(rng() % count_));
  }

  // Seek targets that hit keys, fall between them, or lie beyond the ends.
  std::string SeekTarget(std::mt19937_64& rng) const {
    switch (rng() % 8) {
      case 0:
        return RandomKey(rng) + "x";  // between two keys
      case 1: {
        const std::string k = RandomKey(rng);
        return k.substr(0, 3 + rng() % 4);  // a prefix of a key: before it
      }
      case 2: {
        static const char* const kEdges[] = {"", "a", "key", "kez", "z", "key9999"};
        return kEdges[rng() % 6];
      }
      default:
        return RandomKey(rng);
    }
  }

 private:
  const int count_;
};

// Values differ per write and vary in length, up to `max_filler` + a few.
inline std::string MakeValue(uint64_t op, std::mt19937_64& rng, size_t max_filler) {
  std::string v = "v" + std::to_string(op) + ".";
  const size_t filler = rng() % max_filler;
  for (size_t i = 0; i < filler; ++i) v.push_back(static_cast<char>('a' + rng() % 26));
  return v;
}

// SingleDelete's contract, kept by construction. RocksDB leaves undefined
// (and its flushes may fail with Corruption on) a key that mixes SingleDelete
// with Delete or Merge, or that was Put twice before a SingleDelete. So
// every fourth key is a "single-delete key", whose point writes alternate
// Put, SingleDelete, Put, ... (range deletes may still cover it); the other
// keys get Put, Delete and Merge, never SingleDelete.
class SingleDeleteContract {
 public:
  static bool IsSingleDeleteKey(const std::string& key) {
    return key.size() == 7 && key.compare(0, 3, "key") == 0 &&
           std::atoi(key.c_str() + 3) % 4 == 1;
  }
  // Whether the single-delete key holds its one Put (so its next point
  // write must be SingleDelete).
  bool HoldsPut(size_t cf, const std::string& key) const {
    return holds_put_.count({cf, key}) != 0;
  }
  void OnPut(size_t cf, const std::string& key) { holds_put_.insert({cf, key}); }
  void OnSingleDelete(size_t cf, const std::string& key) { holds_put_.erase({cf, key}); }

 private:
  std::set<std::pair<size_t, std::string>> holds_put_;
};

// ---------------------------------------------------------------------------
// Comparing reads.

struct ReadStats {
  uint64_t found = 0;
  uint64_t not_found = 0;
  uint64_t iterator_entries = 0;
};

inline void ExpectSameStatus(const Status& want, const Status& got, const std::string& what) {
  EXPECT_EQ(want.code(), got.code())
      << what << ": oracle " << want.ToString() << ", TeksTable " << got.ToString();
  EXPECT_EQ(want.subcode(), got.subcode())
      << what << ": oracle " << want.ToString() << ", TeksTable " << got.ToString();
}

// One point read's answers on both sides must agree; counts hits and misses.
inline void ExpectSameRead(const Status& want_s, const std::string& want_v, const Status& got_s,
                    const std::string& got_v, const std::string& what, ReadStats* stats) {
  ASSERT_TRUE(want_s.ok() || want_s.IsNotFound()) << what << ": " << want_s.ToString();
  ExpectSameStatus(want_s, got_s, what);
  if (want_s.ok() && got_s.ok()) {
    EXPECT_EQ(want_v, got_v) << what;
  }
  (want_s.ok() ? stats->found : stats->not_found)++;
}

// Both iterators must be at the same place: same validity, key and value.
inline void ExpectSamePosition(const Iterator& want, const Iterator& got, const std::string& what,
                        ReadStats* stats) {
  ASSERT_EQ(want.Valid(), got.Valid())
      << what << ": oracle " << (want.Valid() ? want.key().ToString() : "<end>")
      << ", TeksTable " << (got.Valid() ? got.key().ToString() : "<end>");
  if (want.Valid()) {
    ASSERT_EQ(want.key().ToString(), got.key().ToString()) << what;
    ASSERT_EQ(want.value().ToString(), got.value().ToString())
        << what << " at key " << want.key().ToString();
    stats->iterator_entries++;
  }
  ASSERT_TRUE(want.status().ok()) << what << ": " << want.status().ToString();
  ASSERT_TRUE(got.status().ok()) << what << ": " << got.status().ToString();
}

// Walks two iterators in lockstep: a random positioning, then `steps` moves,
// each Next or Prev with random direction changes and occasional re-seeks.
inline void CompareWalk(Iterator* want, Iterator* got, const KeySpace& keys, std::mt19937_64& rng,
                 int steps, ReadStats* stats) {
  auto position = [&]() -> std::string {
    switch (rng() % 4) {
      case 0:
        want->SeekToFirst();
        got->SeekToFirst();
        return "SeekToFirst";
      case 1:
        want->SeekToLast();
        got->SeekToLast();
        return "SeekToLast";
      case 2: {
        const std::string t = keys.SeekTarget(rng);
        want->Seek(t);
        got->Seek(t);
        return "Seek(" + t + ")";
      }
      default: {
        const std::string t = keys.SeekTarget(rng);
        want->SeekForPrev(t);
        got->SeekForPrev(t);
        return "SeekForPrev(" + t + ")";
      }
    }
  };
  std::string path = position();
  ASSERT_NO_FATAL_FAILURE(ExpectSamePosition(*want, *got, path, stats));
  bool forward = rng() % 2 == 0;
  for (int i = 0; i < steps; ++i) {
    if (!want->Valid() || rng() % 16 == 0) {
      path += " " + position();
    } else {
      if (rng() % 5 == 0) forward = !forward;
      StepBoth(want, got, forward);
      path += forward ? " N" : " P";
    }
    if (path.size() > 600) path = "..." + path.substr(path.size() - 400);
    ASSERT_NO_FATAL_FAILURE(ExpectSamePosition(*want, *got, path, stats));
  }
}

// Scans both iterators end to end, forward or backward.
inline void CompareScan(Iterator* want, Iterator* got, bool forward, ReadStats* stats) {
  if (forward) {
    want->SeekToFirst();
    got->SeekToFirst();
  } else {
    want->SeekToLast();
    got->SeekToLast();
  }
  const std::string what = forward ? "forward scan" : "backward scan";
  for (int n = 0;; ++n) {
    ASSERT_NO_FATAL_FAILURE(
        ExpectSamePosition(*want, *got, what + " entry " + std::to_string(n), stats));
    if (!want->Valid()) break;
    StepBoth(want, got, forward);
  }
}

// A snapshot taken on both sides at the same moment (through the DB object
// under test, so the TeksDB layer registers it).
struct SnapshotPair {
  const Snapshot* want = nullptr;
  const Snapshot* got = nullptr;
};

// Iterators created on both sides at the same moment and kept for later.
struct HeldIterators {
  std::unique_ptr<Iterator> want;
  std::unique_ptr<Iterator> got;
  size_t cf = 0;
  const Snapshot* snapshot = nullptr;  // the oracle's, if at a snapshot
  uint64_t created_at_op = 0;
};

// Keeps the last operations for the failure report.
class History {
 public:
  void Add(std::string op) {
    ops_.push_back(std::move(op));
    if (ops_.size() > 40) ops_.pop_front();
  }
  std::string Dump() const {
    std::string out = "last operations, oldest first:\n";
    for (const std::string& op : ops_) out += "  " + op + "\n";
    return out;
  }

 private:
  std::deque<std::string> ops_;
};

// ---------------------------------------------------------------------------
// The differential driver shared by both suites: two sides, the column
// families they share, snapshots held on both, and the comparisons.

// Picks an index by weight.
// An operation mix: each operation with its relative weight. A run draws
// from it with probability weight / total (in table order, so a seed
// replays the same operations); a weight of 0 leaves an operation out.
template <typename Op>
struct Weighted {
  Op op;
  double weight;
};
template <typename Op>
using OperationMix = std::vector<Weighted<Op>>;

template <typename Op>
Op Pick(std::mt19937_64& rng, const OperationMix<Op>& mix) {
  std::vector<double> weights;
  for (const Weighted<Op>& w : mix) weights.push_back(w.weight);
  std::discrete_distribution<size_t> dist(weights.begin(), weights.end());
  return mix[dist(rng)].op;
}

class DifferentialDriver {
 public:
  DifferentialDriver(const Config& config, uint64_t seed)
      : config_(config),
        keys_(config.key_count),
        rng_(seed),
        oracle_(config, /*oracle=*/true),
        subject_(config, /*oracle=*/false) {}

  ~DifferentialDriver() { ReleaseReaders(); }

  // First open: only the default column family, then the others are
  // created through the DB objects (TeksDB::CreateColumnFamily for the
  // layer). Later opens name them all.
  void OpenFresh() {
    ASSERT_NO_FATAL_FAILURE(oracle_.Open({}));
    ASSERT_NO_FATAL_FAILURE(subject_.Open({}));
    for (const std::string& name : cf_names_) {
      ASSERT_NO_FATAL_FAILURE(oracle_.CreateColumnFamily(name));
      ASSERT_NO_FATAL_FAILURE(subject_.CreateColumnFamily(name));
    }
  }

  // Closes both (after releasing every reader) and opens them again: the
  // memtables come back from the WAL.
  void Reopen() {
    ReleaseReaders();
    oracle_.Close();
    subject_.Close();
    ASSERT_NO_FATAL_FAILURE(oracle_.Open(cf_names_));
    ASSERT_NO_FATAL_FAILURE(subject_.Open(cf_names_));
  }

  void ReleaseReaders() {
    held_iterators_.clear();
    for (const SnapshotPair& s : snapshots_) {
      oracle_.db()->ReleaseSnapshot(s.want);
      subject_.db()->ReleaseSnapshot(s.got);
    }
    snapshots_.clear();
  }

  size_t num_cfs() const { return cf_names_.size() + 1; }
  size_t RandomCf() { return rng_() % num_cfs(); }

  // Read options for a random held snapshot (or the latest state).
  std::pair<ReadOptions, ReadOptions> RandomReadOptions(std::string* label) {
    std::pair<ReadOptions, ReadOptions> ro;
    if (!snapshots_.empty() && rng_() % 2 == 0) {
      const size_t i = rng_() % snapshots_.size();
      ro.first.snapshot = snapshots_[i].want;
      ro.second.snapshot = snapshots_[i].got;
      *label = "snapshot#" + std::to_string(i) + "@" +
               std::to_string(snapshots_[i].want->GetSequenceNumber());
    } else {
      *label = "latest";
    }
    return ro;
  }

  // A random read compared on both sides, or a snapshot taken or released
  // for later reads. Returns whether it read.
  bool RandomRead(History* history) {
    enum ReadOp { kGet, kMultiGet, kWalk, kTakeSnapshot, kReleaseSnapshot };
    static const OperationMix<ReadOp> kMix = {
        {kGet, 14}, {kMultiGet, 5}, {kWalk, 7}, {kTakeSnapshot, 2}, {kReleaseSnapshot, 1.5}};
    switch (Pick(rng(), kMix)) {
      case kGet:
        CompareGet(history);
        return true;
      case kMultiGet:
        CompareMultiGet(history);
        return true;
      case kWalk:
        CompareFreshWalk(history);
        return true;
      case kTakeSnapshot:
        if (snapshots().size() >= 4) ReleaseRandomSnapshot();
        history->Add("Take snapshot");
        TakeSnapshot();
        return false;
      case kReleaseSnapshot:
        history->Add("Release a snapshot");
        ReleaseRandomSnapshot();
        return false;
    }
    return false;
  }

  void TakeSnapshot() {
    SnapshotPair s{oracle_.db()->GetSnapshot(), subject_.db()->GetSnapshot()};
    ASSERT_NE(s.want, nullptr);
    ASSERT_NE(s.got, nullptr);
    ASSERT_EQ(s.want->GetSequenceNumber(), s.got->GetSequenceNumber());
    snapshots_.push_back(s);
  }

  // Iterators read through their snapshot until destroyed, so the held
  // iterators at this snapshot go first.
  void ReleaseRandomSnapshot() {
    if (snapshots_.empty()) return;
    const size_t i = rng_() % snapshots_.size();
    held_iterators_.erase(
        std::remove_if(held_iterators_.begin(), held_iterators_.end(),
                       [&](const HeldIterators& h) { return h.snapshot == snapshots_[i].want; }),
        held_iterators_.end());
    oracle_.db()->ReleaseSnapshot(snapshots_[i].want);
    subject_.db()->ReleaseSnapshot(snapshots_[i].got);
    snapshots_.erase(snapshots_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  // Get of one key on both sides.
  void CompareGet(History* history) {
    const size_t cf = RandomCf();
    const std::string key = keys_.RandomKey(rng_);
    std::string label;
    auto ro = RandomReadOptions(&label);
    history->Add("Get cf" + std::to_string(cf) + " " + key + " " + label);
    PinnableSlice want_v, got_v;
    const Status want_s = oracle_.db()->Get(ro.first, oracle_.cf(cf), key, &want_v);
    const Status got_s = subject_.db()->Get(ro.second, subject_.cf(cf), key, &got_v);
    ExpectSameRead(want_s, want_v.ToString(), got_s, got_v.ToString(),
                   "Get(cf" + std::to_string(cf) + ", " + key + ") at " + label, &stats_);
  }

  // MultiGet of several keys: across column families with the vector API,
  // or within one with the batched API.
  void CompareMultiGet(History* history) {
    std::string label;
    auto ro = RandomReadOptions(&label);
    const size_t n = 2 + rng_() % 12;
    std::vector<std::string> key_strings;
    for (size_t i = 0; i < n; ++i) key_strings.push_back(keys_.RandomKey(rng_));
    const std::vector<Slice> key_slices(key_strings.begin(), key_strings.end());
    if (rng_() % 2 == 0) {
      std::vector<size_t> cfs;
      std::vector<ColumnFamilyHandle*> want_cfs, got_cfs;
      for (size_t i = 0; i < n; ++i) {
        cfs.push_back(RandomCf());
        want_cfs.push_back(oracle_.cf(cfs.back()));
        got_cfs.push_back(subject_.cf(cfs.back()));
      }
      history->Add("MultiGet(vector) of " + std::to_string(n) + " keys at " + label);
      std::vector<std::string> want_v, got_v;
      const std::vector<Status> want_s =
          oracle_.db()->MultiGet(ro.first, want_cfs, key_slices, &want_v);
      const std::vector<Status> got_s =
          subject_.db()->MultiGet(ro.second, got_cfs, key_slices, &got_v);
      ASSERT_EQ(want_s.size(), n);
      ASSERT_EQ(got_s.size(), n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_NO_FATAL_FAILURE(ExpectSameRead(
            want_s[i], want_v[i], got_s[i], got_v[i],
            "MultiGet(cf" + std::to_string(cfs[i]) + ", " + key_strings[i] + ") at " + label,
            &stats_));
      }
    } else {
      const size_t cf = RandomCf();
      history->Add("MultiGet(batched) cf" + std::to_string(cf) + " of " + std::to_string(n) +
                   " keys at " + label);
      std::vector<PinnableSlice> want_v(n), got_v(n);
      std::vector<Status> want_s(n), got_s(n);
      oracle_.db()->MultiGet(ro.first, oracle_.cf(cf), n, key_slices.data(), want_v.data(),
                             want_s.data());
      subject_.db()->MultiGet(ro.second, subject_.cf(cf), n, key_slices.data(), got_v.data(),
                              got_s.data());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_NO_FATAL_FAILURE(ExpectSameRead(
            want_s[i], want_v[i].ToString(), got_s[i], got_v[i].ToString(),
            "MultiGet(cf" + std::to_string(cf) + ", " + key_strings[i] + ") at " + label,
            &stats_));
      }
    }
  }

  // A fresh pair of iterators, sometimes bounded, walked at random.
  void CompareFreshWalk(History* history) {
    const size_t cf = RandomCf();
    std::string label;
    auto ro = RandomReadOptions(&label);
    std::string lower = keys_.SeekTarget(rng_), upper = keys_.SeekTarget(rng_);
    if (upper < lower) std::swap(lower, upper);
    const Slice lower_slice(lower), upper_slice(upper);
    const unsigned bounds = rng_() % 8;  // 1: lower, 2: upper, 3: both
    if (bounds == 1 || bounds == 3) {
      ro.first.iterate_lower_bound = &lower_slice;
      ro.second.iterate_lower_bound = &lower_slice;
    }
    if (bounds == 2 || bounds == 3) {
      ro.first.iterate_upper_bound = &upper_slice;
      ro.second.iterate_upper_bound = &upper_slice;
    }
    history->Add("Walk cf" + std::to_string(cf) + " at " + label +
                 (bounds == 1 || bounds == 3 ? " lower=" + lower : "") +
                 (bounds == 2 || bounds == 3 ? " upper=" + upper : ""));
    std::unique_ptr<Iterator> want(oracle_.db()->NewIterator(ro.first, oracle_.cf(cf)));
    std::unique_ptr<Iterator> got(subject_.db()->NewIterator(ro.second, subject_.cf(cf)));
    ASSERT_NO_FATAL_FAILURE(
        CompareWalk(want.get(), got.get(), keys_, rng_, 10 + rng_() % 40, &stats_));
  }

  void HoldIterators(uint64_t op, History* history) {
    HeldIterators held;
    held.cf = RandomCf();
    std::string label;
    auto ro = RandomReadOptions(&label);
    held.snapshot = ro.first.snapshot;
    held.created_at_op = op;
    held.want.reset(oracle_.db()->NewIterator(ro.first, oracle_.cf(held.cf)));
    held.got.reset(subject_.db()->NewIterator(ro.second, subject_.cf(held.cf)));
    history->Add("Hold iterators #" + std::to_string(op) + " cf" + std::to_string(held.cf) +
                 " at " + label);
    held_iterators_.push_back(std::move(held));
  }

  // Walks (or scans) a held pair after the writes since its creation, then
  // drops it. Iterators on the latest state are sometimes refreshed first.
  void UseHeldIterators(History* history) {
    if (held_iterators_.empty()) return;
    const size_t i = rng_() % held_iterators_.size();
    HeldIterators held = std::move(held_iterators_[i]);
    held_iterators_.erase(held_iterators_.begin() + static_cast<std::ptrdiff_t>(i));
    const bool refresh = held.snapshot == nullptr && rng_() % 3 == 0;
    const bool scan = rng_() % 4 == 0;
    history->Add("Use held iterators #" + std::to_string(held.created_at_op) +
                 (refresh ? " refreshed" : "") + (scan ? " scan" : " walk"));
    if (refresh) {
      ASSERT_OK(held.want->Refresh());
      ASSERT_OK(held.got->Refresh());
    }
    if (scan) {
      ASSERT_NO_FATAL_FAILURE(
          CompareScan(held.want.get(), held.got.get(), rng_() % 2 == 0, &stats_));
    } else {
      ASSERT_NO_FATAL_FAILURE(CompareWalk(held.want.get(), held.got.get(), keys_, rng_,
                                          10 + rng_() % 60, &stats_));
    }
  }

  // Full scans, both directions, of every column family at the latest state,
  // and a Get of every key.
  void CompareEverything(const std::string& when, History* history) {
    history->Add("Compare everything " + when);
    for (size_t cf = 0; cf < num_cfs(); ++cf) {
      SCOPED_TRACE(when + ", cf" + std::to_string(cf));
      for (bool forward : {true, false}) {
        std::unique_ptr<Iterator> want(oracle_.db()->NewIterator(ReadOptions(), oracle_.cf(cf)));
        std::unique_ptr<Iterator> got(
            subject_.db()->NewIterator(ReadOptions(), subject_.cf(cf)));
        ASSERT_NO_FATAL_FAILURE(CompareScan(want.get(), got.get(), forward, &stats_));
      }
      for (int k = 0; k < config_.key_count; ++k) {
        const std::string key = keys_.Key(k);
        std::string want_v, got_v;
        const Status want_s = oracle_.db()->Get(ReadOptions(), oracle_.cf(cf), key, &want_v);
        const Status got_s = subject_.db()->Get(ReadOptions(), subject_.cf(cf), key, &got_v);
        ASSERT_NO_FATAL_FAILURE(ExpectSameRead(want_s, want_v, got_s, got_v,
                                               "Get(" + key + ")", &stats_));
      }
    }
  }

  void Flush(History* history) {
    const bool all = rng_() % 3 == 0;
    const size_t cf = RandomCf();
    history->Add(all ? "Flush all" : "Flush cf" + std::to_string(cf));
    for (size_t c = 0; c < num_cfs(); ++c) {
      if (!all && c != cf) continue;
      ASSERT_OK(oracle_.db()->Flush(FlushOptions(), oracle_.cf(c)));
      ASSERT_OK(subject_.db()->Flush(FlushOptions(), subject_.cf(c)));
    }
  }

  void CompactRange(History* history) {
    const size_t cf = RandomCf();
    std::string begin = keys_.SeekTarget(rng_), end = keys_.SeekTarget(rng_);
    if (end < begin) std::swap(begin, end);
    const bool whole = rng_() % 2 == 0;
    const Slice b(begin), e(end);
    history->Add("CompactRange cf" + std::to_string(cf) +
                 (whole ? " whole" : " [" + begin + ", " + end + "]"));
    ROCKSDB_NAMESPACE::CompactRangeOptions options;
    ASSERT_OK(oracle_.db()->CompactRange(options, oracle_.cf(cf), whole ? nullptr : &b,
                                         whole ? nullptr : &e));
    ASSERT_OK(subject_.db()->CompactRange(options, subject_.cf(cf), whole ? nullptr : &b,
                                          whole ? nullptr : &e));
  }

  const Config& config() const { return config_; }
  bool small_buffer() const { return config_.write_buffer_size < kLargeBuffer; }
  // Larger values with small buffers, so that they fill up mid-run.
  size_t max_value_filler() const { return small_buffer() ? 2400 : 160; }
  const KeySpace& keys() const { return keys_; }
  std::mt19937_64& rng() { return rng_; }
  Side& oracle() { return oracle_; }
  Side& subject() { return subject_; }
  std::vector<SnapshotPair>& snapshots() { return snapshots_; }
  size_t num_held_iterators() const { return held_iterators_.size(); }
  const ReadStats& stats() const { return stats_; }
  ReadStats* mutable_stats() { return &stats_; }

 private:
  const Config config_;
  const KeySpace keys_;
  std::mt19937_64 rng_;
  const std::vector<std::string> cf_names_ = {"blue", "green"};
  Side oracle_;
  Side subject_;
  std::vector<SnapshotPair> snapshots_;
  std::vector<HeldIterators> held_iterators_;
  ReadStats stats_;
};

// One write, described independently of the side it goes to.
struct WriteOp {
  enum Kind { kPut, kDelete, kSingleDelete, kMerge, kDeleteRange } kind = kPut;
  size_t cf = 0;
  std::string key;
  std::string arg;  // the value, the merge operand, or the range's end

  std::string Describe() const {
    static const char* const kNames[] = {"Put", "Delete", "SingleDelete", "Merge",
                                         "DeleteRange"};
    std::string d = std::string(kNames[kind]) + "(cf" + std::to_string(cf) + "," + key;
    if (kind != kDelete && kind != kSingleDelete) d += "," + arg.substr(0, 12);
    return d + ")";
  }

  Status AddTo(WriteBatch* batch, ColumnFamilyHandle* handle) const {
    switch (kind) {
      case kPut:
        return batch->Put(handle, key, arg);
      case kDelete:
        return batch->Delete(handle, key);
      case kSingleDelete:
        return batch->SingleDelete(handle, key);
      case kMerge:
        return batch->Merge(handle, key, arg);
      case kDeleteRange:
        return batch->DeleteRange(handle, key, arg);
    }
    return Status::InvalidArgument("unknown write kind");
  }

  // Through the DB's own single-write API (TransactionDB locks the key).
  Status ApplyTo(DB* db, ColumnFamilyHandle* handle) const {
    const WriteOptions options;
    switch (kind) {
      case kPut:
        return db->Put(options, handle, key, arg);
      case kDelete:
        return db->Delete(options, handle, key);
      case kSingleDelete:
        return db->SingleDelete(options, handle, key);
      case kMerge:
        return db->Merge(options, handle, key, arg);
      case kDeleteRange:
        return db->DeleteRange(options, handle, key, arg);
    }
    return Status::InvalidArgument("unknown write kind");
  }
};

// Draws random writes that keep SingleDelete's contract.
class RandomWriter {
 public:
  // TransactionDB refuses range deletes in plain writes, and SingleDelete in
  // batches outside the default column family: `range_deletes` false leaves
  // the former out; WriteOutside() handles the latter.
  RandomWriter(DifferentialDriver* driver, SingleDeleteContract* contract, bool range_deletes)
      : d_(driver), contract_(contract), range_deletes_(range_deletes) {}

  // The next write, on `key` if given; updates the contract as if applied.
  WriteOp Next(uint64_t op, std::string key = std::string()) {
    std::mt19937_64& rng = d_->rng();
    WriteOp w;
    w.cf = d_->RandomCf();
    w.key = key.empty() ? d_->keys().RandomKey(rng) : std::move(key);
    if (SingleDeleteContract::IsSingleDeleteKey(w.key)) {
      // Put and SingleDelete alternate; now and then a range delete.
      if (range_deletes_ && rng() % 8 == 0) return RangeDelete(w);
      if (contract_->HoldsPut(w.cf, w.key)) {
        w.kind = WriteOp::kSingleDelete;
        contract_->OnSingleDelete(w.cf, w.key);
      } else {
        w.kind = WriteOp::kPut;
        w.arg = MakeValue(op, rng, d_->max_value_filler());
        contract_->OnPut(w.cf, w.key);
      }
      return w;
    }
    const OperationMix<WriteOp::Kind> mix = {{WriteOp::kPut, 50},
                                             {WriteOp::kDelete, 12},
                                             {WriteOp::kMerge, 18},
                                             {WriteOp::kDeleteRange, range_deletes_ ? 3.0 : 0.0}};
    w.kind = Pick(rng, mix);
    switch (w.kind) {
      case WriteOp::kPut:
        w.arg = MakeValue(op, rng, d_->max_value_filler());
        break;
      case WriteOp::kMerge:
        w.arg = "m" + std::to_string(op);
        break;
      case WriteOp::kDeleteRange:
        return RangeDelete(w);
      default:
        break;
    }
    return w;
  }

  // One write, or a batch of up to 12 that repeats keys (within and across
  // column families).
  std::vector<WriteOp> NextGroup(uint64_t op, bool batch) {
    std::vector<WriteOp> group;
    const size_t n = batch ? 2 + d_->rng()() % 11 : 1;
    for (size_t i = 0; i < n; ++i) {
      const bool repeat = !group.empty() && d_->rng()() % 2 == 0;
      group.push_back(Next(op, repeat ? group[d_->rng()() % group.size()].key : ""));
    }
    return group;
  }

  // Applies a group to both sides as one WriteBatch each.
  void WriteBoth(const std::vector<WriteOp>& group, History* history) {
    WriteBatch want, got;
    std::string desc = group.size() > 1 ? "WriteBatch:" : "Write:";
    for (const WriteOp& w : group) {
      ASSERT_OK(w.AddTo(&want, d_->oracle().cf(w.cf)));
      ASSERT_OK(w.AddTo(&got, d_->subject().cf(w.cf)));
      desc += " " + w.Describe();
    }
    history->Add(desc);
    ASSERT_OK(d_->oracle().db()->Write(WriteOptions(), &want));
    ASSERT_OK(d_->subject().db()->Write(WriteOptions(), &got));
  }

 private:
  // A range from the key to a seek target after it (possibly empty).
  WriteOp RangeDelete(WriteOp w) {
    w.kind = WriteOp::kDeleteRange;
    w.arg = d_->keys().SeekTarget(d_->rng());
    if (w.arg < w.key) w.arg = w.key + "~";
    return w;
  }

  DifferentialDriver* d_;
  SingleDeleteContract* contract_;
  const bool range_deletes_;
};

}  // namespace differential
}  // namespace teksdb
