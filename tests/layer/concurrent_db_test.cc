// Concurrency at the DB level: TeksTable under RocksDB's concurrent writers,
// readers, snapshots, iterators and flushes, as a plain factory and under the
// TeksDB layer (where versions are dropped while readers run).
//
// How. Writer threads write increasing counters (zero-padded decimal, so a
// larger string is newer), each to the keys it owns, with
// allow_concurrent_memtable_write (the default) so they insert in parallel:
//   - counter keys c0000..: key i is owned by writer i % kWriters;
//   - pair rows pA<r>/pB<r>: one WriteBatch writes both with the same value;
//   - fresh keys n<w>-<i>: each written once, so new records keep arriving
//     in the skip list while readers seek and scan.
// Reader threads check, while the writes go on:
//   1. monotonic reads: successive Gets and MultiGets of a key by one thread,
//      and successive iterators of one thread, never see an older value, and
//      a later iterator never sees fewer fresh keys;
//   2. stable snapshots: at a held snapshot, Gets and full scans give the
//      same answers every time;
//   3. iterators see keys strictly ascending forward and strictly descending
//      backward (sorted, no duplicates), the same set both ways, and pair
//      rows equal (one sequence for the whole scan; so do MultiGets).
// A flusher calls Flush (and once CompactRange) at fixed points of the
// writers' progress, racing writers and iterators; the write buffer is small
// enough that RocksDB also switches memtables by itself (checked). After all threads
// stop, every key holds the last value its owner wrote, every fresh key is
// there, and again after a reopen (WAL replay).
//
// Bounded by operation counts (TEKSDB_TEST_SCALE multiplies them), never by
// time; nothing about speed is asserted. Threads collect their errors and
// the main thread reports them.
//
// Runs under ThreadSanitizer and under AddressSanitizer + UBSan. Debian's
// librocksdb is not instrumented, so TSan cannot see RocksDB's own
// hand-offs between threads; tests/support/tsan.supp names exactly those.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Snapshot;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

constexpr int kWriters = 3;
constexpr int kCounterKeys = 96;
constexpr int kPairRows = 24;

using test::Scale;

std::string CounterKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "c%04d", i);
  return buf;
}
std::string PairKey(char side, int row) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "p%c%03d", side, row);
  return buf;
}
std::string FreshKey(int writer, int i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "n%d-%06d", writer, i);
  return buf;
}
bool IsCounterKey(const Slice& k) { return k.size() == 5 && k[0] == 'c'; }
bool IsPairKey(const Slice& k) { return k.size() == 5 && k[0] == 'p'; }
bool IsFreshKey(const Slice& k) { return k.size() > 0 && k[0] == 'n'; }

// "<12-digit counter>.<filler>": larger strings are newer.
std::string CounterValue(uint64_t counter, int writer, size_t filler) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%012" PRIu64 ".", counter);
  return std::string(buf) + std::string(filler, static_cast<char>('a' + writer));
}
uint64_t CounterOf(const Slice& value) {
  if (value.size() < 12) return 0;
  return std::strtoull(std::string(value.data(), 12).c_str(), nullptr, 10);
}

// Errors a thread found, reported by the main thread after the join.
class Errors {
 public:
  void Add(const std::string& e) {
    std::lock_guard<std::mutex> lock(mu_);
    count_++;
    if (errors_.size() < 20) errors_.push_back(e);
  }
  uint64_t count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }
  void Report() const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& e : errors_) ADD_FAILURE() << e;
    if (count_ > errors_.size()) ADD_FAILURE() << (count_ - errors_.size()) << " more errors";
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> errors_;
  uint64_t count_ = 0;
};

enum class Layer { kPlainFactory, kTeksDB };

struct Config {
  const char* name;
  Layer layer;
  TeksTableOptions teks;
};

void PrintTo(const Config& config, std::ostream* os) { *os << config.name; }

TeksTableOptions Variant(const char* id) {
  TeksTableOptions options;
  EXPECT_TRUE(TeksTableOptions::ForVariant(id, &options)) << id;
  return options;
}

// The database under test, reopenable.
class Database {
 public:
  explicit Database(const Config& config) : config_(config), dir_("teks_concurrent_db") {
    options_.create_if_missing = true;
    options_.memtable_factory = NewTeksTableFactory(config.teks);
    // Small enough that RocksDB also switches memtables by itself mid-run
    // (the ~6 MB written fill it several times between explicit flushes).
    options_.write_buffer_size = 1 << 20;
    options_.listeners.push_back(automatic_flushes_);
    options_.max_write_buffer_number = 4;
    options_.info_log_level = ROCKSDB_NAMESPACE::WARN_LEVEL;
    EXPECT_TRUE(options_.allow_concurrent_memtable_write);
  }

  Status Open() {
    if (config_.layer == Layer::kTeksDB) {
      std::unique_ptr<TeksDB> layered;
      Status s = TeksDB::Open(options_, dir_.path(), &layered);
      db_ = std::move(layered);
      return s;
    }
    std::unique_ptr<DB> plain;
    Status s = OpenDB(options_, dir_.path(), &plain);
    db_ = std::move(plain);
    return s;
  }
  void Close() { db_.reset(); }
  // Snapshots and iterators go through this object: TeksDB's for the layer.
  DB* db() const { return db_.get(); }
  uint64_t automatic_flushes() const { return automatic_flushes_->count(); }

 private:
  const Config config_;
  test::TempDir dir_;
  const std::shared_ptr<test::AutomaticFlushCounter> automatic_flushes_ =
      std::make_shared<test::AutomaticFlushCounter>();
  Options options_;
  std::unique_ptr<DB> db_;
};

// What one writer wrote last, for the final verification.
struct WriterRecord {
  std::map<std::string, std::string> last;  // counter keys and pair keys
  std::vector<std::pair<std::string, std::string>> fresh;
};

class ConcurrentDBTest : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    db_.reset(new Database(GetParam()));
    const Status s = db_->Open();
    ASSERT_TRUE(s.ok()) << s.ToString();
    writes_per_writer_ = 6000 * Scale();
  }

  // Writer `w`: counter keys, pair rows and fresh keys it owns, with values
  // from its own increasing counter.
  void Writer(int w, WriterRecord* record) {
    std::mt19937_64 rng(1000 + w);
    std::vector<int> keys, rows;
    for (int i = w; i < kCounterKeys; i += kWriters) keys.push_back(i);
    for (int r = w; r < kPairRows; r += kWriters) rows.push_back(r);
    uint64_t counter = 0;
    for (int op = 0; op < writes_per_writer_; ++op) {
      // Counters of different writers interleave, but each key has one
      // writer, so its values only grow.
      counter += 1 + rng() % 3;
      const std::string value = CounterValue(counter, w, 100 + rng() % 500);
      Status s;
      const unsigned choice = rng() % 10;
      if (choice < 6) {
        const std::string key = CounterKey(keys[rng() % keys.size()]);
        s = db_->db()->Put(WriteOptions(), key, value);
        if (s.ok()) record->last[key] = value;
      } else if (choice < 8) {
        const int row = rows[rng() % rows.size()];
        WriteBatch batch;
        s = batch.Put(PairKey('A', row), value);
        if (s.ok()) s = batch.Put(PairKey('B', row), value);
        if (s.ok()) s = db_->db()->Write(WriteOptions(), &batch);
        if (s.ok()) {
          record->last[PairKey('A', row)] = value;
          record->last[PairKey('B', row)] = value;
        }
      } else {
        const std::string key = FreshKey(w, static_cast<int>(record->fresh.size()));
        s = db_->db()->Put(WriteOptions(), key, value);
        if (s.ok()) record->fresh.emplace_back(key, value);
      }
      if (!s.ok()) errors_.Add("writer " + std::to_string(w) + ": " + s.ToString());
      progress_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  bool WritersDone() const {
    return progress_.load(std::memory_order_relaxed) >=
           static_cast<uint64_t>(kWriters) * writes_per_writer_;
  }

  // Readers run at least `min_ops` operations and at most `max_ops`, and
  // stop early (after `min_ops`) once the writers are done.
  bool KeepReading(int i, int min_ops, int max_ops) const {
    return i < max_ops && (i < min_ops || !WritersDone());
  }

  // Check 1: point reads (Get, MultiGet) of one thread never go back in
  // time; a MultiGet reads pair rows at one sequence.
  void PointReader(uint64_t seed, uint64_t* reads) {
    std::mt19937_64 rng(seed);
    std::map<std::string, uint64_t> seen;
    auto check = [&](const std::string& key, const Status& s, const Slice& value) {
      if (s.IsNotFound()) {
        if (seen.count(key) != 0) errors_.Add(key + " vanished after being read");
        return;
      }
      if (!s.ok()) {
        errors_.Add("read " + key + ": " + s.ToString());
        return;
      }
      const uint64_t c = CounterOf(value);
      auto it = seen.find(key);
      if (it != seen.end() && c < it->second) {
        errors_.Add("non-monotonic read of " + key + ": " + std::to_string(it->second) +
                    " then " + std::to_string(c));
      }
      seen[key] = std::max(c, it != seen.end() ? it->second : 0);
      (*reads)++;
    };
    for (int i = 0; KeepReading(i, 2000, 20000 * Scale()); ++i) {
      if (rng() % 4 != 0) {
        const std::string key = CounterKey(static_cast<int>(rng() % kCounterKeys));
        PinnableSlice value;
        const Status s = db_->db()->Get(ReadOptions(), db_->db()->DefaultColumnFamily(), key,
                                        &value);
        check(key, s, value);
        continue;
      }
      // A MultiGet of a few counter keys and one pair row.
      const int row = static_cast<int>(rng() % kPairRows);
      std::vector<std::string> keys = {PairKey('A', row), PairKey('B', row)};
      for (int k = 0; k < 6; ++k) keys.push_back(CounterKey(static_cast<int>(rng() % kCounterKeys)));
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      std::vector<Slice> slices(keys.begin(), keys.end());
      std::vector<PinnableSlice> values(keys.size());
      std::vector<Status> statuses(keys.size());
      db_->db()->MultiGet(ReadOptions(), db_->db()->DefaultColumnFamily(), keys.size(),
                          slices.data(), values.data(), statuses.data());
      std::string pair_a, pair_b;
      for (size_t k = 0; k < keys.size(); ++k) {
        check(keys[k], statuses[k], values[k]);
        if (keys[k] == PairKey('A', row)) pair_a = statuses[k].ok() ? values[k].ToString() : "";
        if (keys[k] == PairKey('B', row)) pair_b = statuses[k].ok() ? values[k].ToString() : "";
      }
      if (pair_a != pair_b) {
        errors_.Add("MultiGet saw a torn pair row " + std::to_string(row) + ": " +
                    pair_a.substr(0, 12) + " vs " + pair_b.substr(0, 12));
      }
    }
  }

  // Scans the whole DB at `ro` forward, checking strict order; returns the
  // entries.
  std::vector<std::pair<std::string, std::string>> Scan(const ReadOptions& ro,
                                                        const std::string& who) {
    std::vector<std::pair<std::string, std::string>> entries;
    std::unique_ptr<Iterator> it(db_->db()->NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (!entries.empty() && it->key().compare(entries.back().first) <= 0) {
        errors_.Add(who + ": forward scan not strictly ascending: " + entries.back().first +
                    " then " + it->key().ToString());
      }
      entries.emplace_back(it->key().ToString(), it->value().ToString());
    }
    if (!it->status().ok()) errors_.Add(who + ": " + it->status().ToString());
    return entries;
  }

  // Pair rows must be equal in a consistent view.
  void CheckPairs(const std::vector<std::pair<std::string, std::string>>& entries,
                  const std::string& who) {
    std::map<std::string, std::string> a, b;
    for (const auto& e : entries) {
      if (!IsPairKey(e.first)) continue;
      (e.first[1] == 'A' ? a : b)[e.first.substr(2)] = e.second;
    }
    if (a != b) errors_.Add(who + ": pair rows differ within one view");
  }

  // Check 2: a held snapshot answers the same every time.
  void SnapshotReader(uint64_t seed, uint64_t* snapshots) {
    std::mt19937_64 rng(seed);
    for (int i = 0; KeepReading(i, 6, 40 * Scale()); ++i) {
      const Snapshot* snapshot = db_->db()->GetSnapshot();
      ReadOptions ro;
      ro.snapshot = snapshot;
      std::vector<std::string> keys;
      for (int k = 0; k < 16; ++k) keys.push_back(CounterKey(static_cast<int>(rng() % kCounterKeys)));
      for (int k = 0; k < 4; ++k) {
        keys.push_back(PairKey(k % 2 == 0 ? 'A' : 'B', static_cast<int>(rng() % kPairRows)));
      }
      keys.push_back(FreshKey(static_cast<int>(rng() % kWriters), static_cast<int>(rng() % 200)));
      auto read_all = [&]() {
        std::vector<std::string> answers;
        for (const std::string& key : keys) {
          std::string value;
          const Status s = db_->db()->Get(ro, key, &value);
          answers.push_back(s.ok() ? value : s.ToString());
        }
        return answers;
      };
      const std::string who = "snapshot@" + std::to_string(snapshot->GetSequenceNumber());
      const std::vector<std::string> first_reads = read_all();
      const auto first_scan = Scan(ro, who);
      CheckPairs(first_scan, who);
      for (int again = 0; again < 3; ++again) {
        std::this_thread::yield();
        if (read_all() != first_reads) errors_.Add(who + ": Get answers changed");
        if (Scan(ro, who) != first_scan) errors_.Add(who + ": scan changed");
      }
      db_->db()->ReleaseSnapshot(snapshot);
      (*snapshots)++;
    }
  }

  // Check 3: iterators at the latest state are sorted and duplicate-free
  // both ways, see one consistent view, and never go back in time.
  void IteratorReader(uint64_t seed, uint64_t* iterators) {
    std::mt19937_64 rng(seed);
    std::map<std::string, uint64_t> seen;
    size_t fresh_seen = 0;
    for (int i = 0; KeepReading(i, 10, 200 * Scale()); ++i) {
      const std::string who = "iterator " + std::to_string(i);
      std::unique_ptr<Iterator> it(db_->db()->NewIterator(ReadOptions()));
      std::vector<std::pair<std::string, std::string>> forward;
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        if (!forward.empty() && it->key().compare(forward.back().first) <= 0) {
          errors_.Add(who + ": not strictly ascending: " + forward.back().first + " then " +
                      it->key().ToString());
        }
        forward.emplace_back(it->key().ToString(), it->value().ToString());
      }
      // The same iterator backward: the same entries, reversed.
      std::vector<std::pair<std::string, std::string>> backward;
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        if (!backward.empty() && it->key().compare(backward.back().first) >= 0) {
          errors_.Add(who + ": not strictly descending: " + backward.back().first + " then " +
                      it->key().ToString());
        }
        backward.emplace_back(it->key().ToString(), it->value().ToString());
      }
      std::reverse(backward.begin(), backward.end());
      if (backward != forward) {
        errors_.Add(who + ": backward scan (" + std::to_string(backward.size()) +
                    " entries) differs from forward scan (" + std::to_string(forward.size()) +
                    ")");
      }
      // Seeks land on the first key at or after the target.
      for (int s = 0; s < 8; ++s) {
        const std::string target = CounterKey(static_cast<int>(rng() % kCounterKeys));
        it->Seek(target);
        auto expected = std::lower_bound(
            forward.begin(), forward.end(), target,
            [](const std::pair<std::string, std::string>& e, const std::string& t) {
              return e.first < t;
            });
        const bool valid = it->Valid();
        if (valid != (expected != forward.end()) ||
            (valid && it->key().ToString() != expected->first)) {
          errors_.Add(who + ": Seek(" + target + ") landed on " +
                      (valid ? it->key().ToString() : "<end>"));
        }
      }
      if (!it->status().ok()) errors_.Add(who + ": " + it->status().ToString());
      CheckPairs(forward, who);
      size_t fresh = 0;
      for (const auto& e : forward) {
        if (IsFreshKey(e.first)) {
          fresh++;
          continue;
        }
        if (!IsCounterKey(e.first)) continue;
        const uint64_t c = CounterOf(e.second);
        uint64_t& last = seen[e.first];
        if (c < last) {
          errors_.Add(who + ": " + e.first + " went back from " + std::to_string(last) +
                      " to " + std::to_string(c));
        }
        last = std::max(last, c);
      }
      if (fresh < fresh_seen) {
        errors_.Add(who + ": saw " + std::to_string(fresh) + " fresh keys after " +
                    std::to_string(fresh_seen));
      }
      fresh_seen = std::max(fresh_seen, fresh);
      (*iterators)++;
    }
  }

  // Flushes at fixed points of the writers' progress, and compacts once.
  void Flusher(uint64_t* flushes) {
    const uint64_t total = static_cast<uint64_t>(kWriters) * writes_per_writer_;
    for (int step = 1; step <= 3; ++step) {
      while (progress_.load(std::memory_order_relaxed) < total * step / 4) {
        std::this_thread::yield();
      }
      const Status s = db_->db()->Flush(FlushOptions());
      if (!s.ok()) errors_.Add("Flush: " + s.ToString());
      (*flushes)++;
      if (step == 2) {
        const Status c =
            db_->db()->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(), nullptr, nullptr);
        if (!c.ok()) errors_.Add("CompactRange: " + c.ToString());
      }
    }
  }

  // Every key holds the last value its owner wrote; every fresh key is there.
  void VerifyFinalState(const std::vector<WriterRecord>& records, const std::string& when) {
    SCOPED_TRACE(when);
    size_t fresh_total = 0;
    for (const WriterRecord& record : records) {
      for (const auto& kv : record.last) {
        std::string value;
        const Status s = db_->db()->Get(ReadOptions(), kv.first, &value);
        ASSERT_TRUE(s.ok()) << kv.first << ": " << s.ToString();
        EXPECT_EQ(value, kv.second) << kv.first;
      }
      for (const auto& kv : record.fresh) {
        std::string value;
        const Status s = db_->db()->Get(ReadOptions(), kv.first, &value);
        ASSERT_TRUE(s.ok()) << kv.first << ": " << s.ToString();
        EXPECT_EQ(value, kv.second) << kv.first;
      }
      fresh_total += record.fresh.size();
    }
    // A scan sees exactly the keys written, each once.
    size_t counter = 0, pairs = 0, fresh = 0;
    std::unique_ptr<Iterator> it(db_->db()->NewIterator(ReadOptions()));
    std::string prev;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ASSERT_TRUE(prev.empty() || it->key().compare(prev) > 0) << prev << " then "
                                                               << it->key().ToString();
      prev = it->key().ToString();
      if (IsCounterKey(it->key())) counter++;
      if (IsPairKey(it->key())) pairs++;
      if (IsFreshKey(it->key())) fresh++;
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    size_t written = 0;
    for (const WriterRecord& record : records) written += record.last.size();
    EXPECT_EQ(counter + pairs, written);
    EXPECT_EQ(fresh, fresh_total);
  }

  std::unique_ptr<Database> db_;
  int writes_per_writer_ = 0;
  std::atomic<uint64_t> progress_{0};
  Errors errors_;
};

TEST_P(ConcurrentDBTest, ReadersSeeConsistentMonotonicStateWhileWritersAndFlushesRun) {
  std::vector<WriterRecord> records(kWriters);
  uint64_t point_reads = 0, snapshots = 0, iterators = 0, flushes = 0;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([this, w, &records] { Writer(w, &records[w]); });
  }
  threads.emplace_back([this, &point_reads] { PointReader(11, &point_reads); });
  threads.emplace_back([this, &snapshots] { SnapshotReader(12, &snapshots); });
  threads.emplace_back([this, &iterators] { IteratorReader(13, &iterators); });
  threads.emplace_back([this, &flushes] { Flusher(&flushes); });
  for (std::thread& t : threads) t.join();

  errors_.Report();
  EXPECT_EQ(errors_.count(), 0u);
  EXPECT_GT(point_reads, 0u);
  EXPECT_GT(snapshots, 0u);
  EXPECT_GT(iterators, 0u);
  EXPECT_EQ(flushes, 3u);
  EXPECT_GT(db_->automatic_flushes(), 0u);

  ASSERT_NO_FATAL_FAILURE(VerifyFinalState(records, "after the threads stopped"));
  db_->Close();
  const Status s = db_->Open();
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NO_FATAL_FAILURE(VerifyFinalState(records, "after a reopen"));
}

INSTANTIATE_TEST_SUITE_P(
    Memtables, ConcurrentDBTest,
    ::testing::Values(Config{"PlainDefault", Layer::kPlainFactory, TeksTableOptions()},
                      Config{"PlainTeksS", Layer::kPlainFactory, Variant("teks-s")},
                      Config{"LayerDefault", Layer::kTeksDB, TeksTableOptions()}),
    [](const ::testing::TestParamInfo<Config>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace teksdb
