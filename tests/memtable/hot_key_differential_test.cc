// Differential test of keys with very many versions: TeksTable against
// RocksDB's stock SkipList memtable (the oracle), as a plain factory (every
// version kept) and under the TeksDB layer (versions no reader needs are
// dropped while the test runs).
//
// One writer thread applies the same operations to both databases: ~10^5
// Puts, Merges and Deletes of one hot key, fewer of a second, and some cold
// keys around them, all in one memtable. Every few thousand operations it
// takes a snapshot on both sides and later releases old ones at random, so
// under the layer chains are cut while readers work. Two reader threads
// meanwhile pick held snapshots and read at them on both sides: gets, and
// iterators positioned by Seek / SeekForPrev / SeekToFirst / SeekToLast,
// then walked forward, backward and with direction changes, comparing key
// and value at every step. The snapshot fixes what both sides must show,
// so the answers must match while writes and drops go on. At the end,
// full scans at the latest state in both directions.
//
// TEKSDB_TEST_SEED=<n> replays a run (the seed is printed on failure).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Snapshot;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteOptions;

constexpr int kOperations = 125000;
constexpr int kColdKeys = 64;
constexpr int kSnapshotEvery = 2500;
constexpr size_t kHeldSnapshots = 6;
constexpr int kSteps = 12;

using test::AppendOperator;
using test::StepBoth;

enum class Subject { kPlainFactory, kTeksDBLayer };
void PrintTo(Subject subject, std::ostream* os) {
  *os << (subject == Subject::kPlainFactory ? "plain factory" : "TeksDB layer");
}

// The oracle and the subject, written and read in step.
class Pair {
 public:
  explicit Pair(Subject subject) : oracle_dir_("teks_hot_oracle"), subject_dir_("teks_hot_subject") {
    Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 1 << 30;  // every version stays in one memtable
    options.merge_operator = std::make_shared<AppendOperator>();
    options.info_log_level = ROCKSDB_NAMESPACE::WARN_LEVEL;
    options.memtable_factory = std::make_shared<ROCKSDB_NAMESPACE::SkipListFactory>();
    EXPECT_TRUE(OpenDB(options, oracle_dir_.path(), &oracle_).ok());
    options.memtable_factory = NewTeksTableFactory();
    if (subject == Subject::kTeksDBLayer) {
      std::unique_ptr<TeksDB> layered;
      EXPECT_TRUE(TeksDB::Open(options, subject_dir_.path(), &layered).ok());
      subject_ = std::move(layered);
    } else {
      EXPECT_TRUE(OpenDB(options, subject_dir_.path(), &subject_).ok());
    }
  }
  DB* oracle() const { return oracle_.get(); }
  DB* subject() const { return subject_.get(); }

 private:
  test::TempDir oracle_dir_;
  test::TempDir subject_dir_;
  std::unique_ptr<DB> oracle_;
  std::unique_ptr<DB> subject_;
};

// A snapshot taken on both sides at the same point of the history; released
// on both when the last holder lets go.
struct SnapshotPair {
  SnapshotPair(const Pair* pair) : pair(pair) {
    oracle = pair->oracle()->GetSnapshot();
    subject = pair->subject()->GetSnapshot();
  }
  ~SnapshotPair() {
    pair->oracle()->ReleaseSnapshot(oracle);
    pair->subject()->ReleaseSnapshot(subject);
  }
  const Pair* pair;
  const Snapshot* oracle;
  const Snapshot* subject;
};

std::string ColdKey(int i) {
  char key[16];
  std::snprintf(key, sizeof(key), "k%03d", i);
  return key;
}

// Hot keys sort among the cold ones, so scans cross them both ways.
const std::string kHot = "k020hot";
const std::string kWarm = "k040warm";

std::string AnyKey(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return kHot;
    case 1: return kWarm;
    case 2: return kHot + "~";  // just after the hot key
    default: return ColdKey(static_cast<int>(rng() % (kColdKeys + 2)));
  }
}

std::string Describe(const Iterator* it) {
  if (!it->Valid()) return "(invalid, " + it->status().ToString() + ")";
  return it->key().ToString() + " = " + it->value().ToString().substr(0, 40);
}

// Positions both iterators the same way, then steps them alike, comparing.
void CompareWalk(Iterator* want, Iterator* got, std::mt19937_64& rng, std::string* trace) {
  const std::string target = AnyKey(rng);
  switch (rng() % 4) {
    case 0: want->Seek(target); got->Seek(target); *trace = "Seek(" + target + ")"; break;
    case 1: want->SeekForPrev(target); got->SeekForPrev(target); *trace = "SeekForPrev(" + target + ")"; break;
    case 2: want->SeekToFirst(); got->SeekToFirst(); *trace = "SeekToFirst"; break;
    default: want->SeekToLast(); got->SeekToLast(); *trace = "SeekToLast"; break;
  }
  const bool mostly_forward = rng() % 2 == 0;
  for (int step = 0; step < kSteps; ++step) {
    ASSERT_EQ(Describe(want), Describe(got)) << *trace;
    if (!want->Valid()) return;
    const bool forward = (rng() % 5 != 0) == mostly_forward;
    StepBoth(want, got, forward);
    *trace += forward ? " Next" : " Prev";
  }
  ASSERT_EQ(Describe(want), Describe(got)) << *trace;
}

void CompareAt(const Pair& pair, const SnapshotPair* snapshot, std::mt19937_64& rng) {
  ReadOptions want_options, got_options;
  want_options.snapshot = snapshot != nullptr ? snapshot->oracle : nullptr;
  got_options.snapshot = snapshot != nullptr ? snapshot->subject : nullptr;
  for (const std::string& key : {kHot, kWarm, ColdKey(static_cast<int>(rng() % kColdKeys))}) {
    std::string want_value, got_value;
    const Status want = pair.oracle()->Get(want_options, key, &want_value);
    const Status got = pair.subject()->Get(got_options, key, &got_value);
    ASSERT_EQ(want.ToString(), got.ToString()) << "Get(" << key << ")";
    ASSERT_EQ(want_value, got_value) << "Get(" << key << ")";
  }
  std::unique_ptr<Iterator> want(pair.oracle()->NewIterator(want_options));
  std::unique_ptr<Iterator> got(pair.subject()->NewIterator(got_options));
  std::string trace;
  for (int walk = 0; walk < 3; ++walk) CompareWalk(want.get(), got.get(), rng, &trace);
}

class HotKeyDifferentialTest : public ::testing::TestWithParam<Subject> {};

TEST_P(HotKeyDifferentialTest, ReadsAtHeldSnapshotsMatchTheSkipListWhileVersionsPileUp) {
  const uint64_t seed = test::SeedFor(std::random_device{}());
  SCOPED_TRACE(test::ReplayHint(seed));
  Pair pair(GetParam());
  ASSERT_NE(pair.subject(), nullptr);
  WriteOptions write_options;
  write_options.disableWAL = true;
  for (int i = 0; i < kColdKeys; ++i) {
    ASSERT_TRUE(pair.oracle()->Put(write_options, ColdKey(i), "cold").ok());
    ASSERT_TRUE(pair.subject()->Put(write_options, ColdKey(i), "cold").ok());
  }

  std::mutex mu;
  std::vector<std::shared_ptr<SnapshotPair>> held;
  std::atomic<bool> writing{true};
  std::atomic<uint64_t> compared{0};
  std::thread writer([&] {
    std::mt19937_64 rng(seed);
    for (int op = 0; op < kOperations; ++op) {
      const int r = static_cast<int>(rng() % 100);
      const std::string key = r < 85 ? kHot : r < 95 ? kWarm : ColdKey(static_cast<int>(rng() % kColdKeys));
      const std::string value = "v" + std::to_string(op);
      const int kind = static_cast<int>(rng() % 100);
      for (DB* db : {pair.oracle(), pair.subject()}) {
        Status s;
        if (kind < 80) {
          s = db->Put(write_options, key, value);
        } else if (kind < 95) {
          s = db->Merge(write_options, key, value);
        } else {
          s = db->Delete(write_options, key);
        }
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      if (op % kSnapshotEvery == 0) {
        auto snapshot = std::make_shared<SnapshotPair>(&pair);
        std::lock_guard<std::mutex> lock(mu);
        held.push_back(std::move(snapshot));
        if (held.size() > kHeldSnapshots) held.erase(held.begin() + static_cast<long>(rng() % held.size()));
      }
    }
    writing.store(false);
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937_64 rng(seed + 1 + static_cast<uint64_t>(r));
      while (writing.load()) {
        std::shared_ptr<SnapshotPair> snapshot;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!held.empty()) snapshot = held[rng() % held.size()];
        }
        if (snapshot == nullptr) {
          std::this_thread::yield();
          continue;
        }
        CompareAt(pair, snapshot.get(), rng);
        if (::testing::Test::HasFatalFailure()) return;
        compared.fetch_add(1);
      }
    });
  }
  writer.join();
  for (std::thread& reader : readers) reader.join();
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  EXPECT_GT(compared.load(), 0u);

  // After the writes: at every snapshot still held, and at the latest state.
  std::mt19937_64 rng(seed + 3);
  for (const auto& snapshot : held) {
    for (int i = 0; i < 20; ++i) CompareAt(pair, snapshot.get(), rng);
  }
  held.clear();
  for (int i = 0; i < 20; ++i) CompareAt(pair, nullptr, rng);
  std::unique_ptr<Iterator> want(pair.oracle()->NewIterator(ReadOptions()));
  std::unique_ptr<Iterator> got(pair.subject()->NewIterator(ReadOptions()));
  for (want->SeekToFirst(), got->SeekToFirst(); want->Valid(); want->Next(), got->Next()) {
    ASSERT_EQ(Describe(want.get()), Describe(got.get()));
  }
  ASSERT_FALSE(got->Valid());
  for (want->SeekToLast(), got->SeekToLast(); want->Valid(); want->Prev(), got->Prev()) {
    ASSERT_EQ(Describe(want.get()), Describe(got.get()));
  }
  ASSERT_FALSE(got->Valid());
}

INSTANTIATE_TEST_SUITE_P(Subjects, HotKeyDifferentialTest,
                         ::testing::Values(Subject::kPlainFactory, Subject::kTeksDBLayer),
                         [](const ::testing::TestParamInfo<Subject>& info) {
                           return info.param == Subject::kPlainFactory ? "PlainFactory"
                                                                       : "TeksDBLayer";
                         });

}  // namespace
}  // namespace teksdb
