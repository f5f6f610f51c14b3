// Hot keys through the TeksDB layer: updates of one key cost amortized O(1)
// drop work whatever keeps old versions alive (a held snapshot, a Delete in
// the chain, hundreds of open iterators, WAL replay before the registry is
// attached), and reads still get the right versions. Work is counted
// (VersionsVisitedByDropsOnThisThread), never timed. These tests also run
// in the release build (ctest label "release"), where speed regressions
// show.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/debug.h"
#include "teks_table_rep.h"
#include "teksdb/teks_db.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::WriteOptions;

constexpr int kUpdates = 100000;
// Versions a drop attempt may visit per update, amortized (the cut's walk,
// then the pairs snapshot stripes look at). Quadratic work would be
// kUpdates / 2 per update.
constexpr uint64_t kVisitsPerUpdate = 8;

std::unique_ptr<TeksDB> OpenTeksDB(const std::string& path) {
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<TeksDB> db;
  EXPECT_TRUE(TeksDB::Open(options, path, &db).ok());
  return db;
}

WriteOptions NoWAL() {
  WriteOptions options;
  options.disableWAL = true;
  return options;
}

// Updates "hot" `n` times on this thread (RocksDB inserts a lone writer's
// batch on the writer's thread); returns the versions drop attempts
// visited meanwhile.
uint64_t UpdateHotKey(TeksDB* db, int n, const WriteOptions& options = NoWAL()) {
  const uint64_t before = VersionsVisitedByDropsOnThisThread();
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(db->Put(options, "hot", "v" + std::to_string(i)).ok());
  }
  return VersionsVisitedByDropsOnThisThread() - before;
}

size_t VersionsInMemtable(TeksDB* db) {
  std::vector<ROCKSDB_NAMESPACE::KeyVersion> versions;
  EXPECT_TRUE(
      ROCKSDB_NAMESPACE::GetAllKeyVersions(db->GetBaseDB(), "hot", "hot", 1 << 30, &versions)
          .ok());
  return versions.size();
}

std::string Latest(TeksDB* db) {
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
  it->Seek("hot");
  return it->Valid() && it->key() == "hot" ? it->value().ToString() : "(none)";
}

TEST(DropCostTest, UpdatesUnderAHeldSnapshotDoConstantDropWork) {
  test::TempDir dir("teksdb-cost-snapshot");
  auto db = OpenTeksDB(dir.path());
  ASSERT_TRUE(db->Put(NoWAL(), "hot", "old").ok());
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
  EXPECT_LE(UpdateHotKey(db.get(), kUpdates), kVisitsPerUpdate * kUpdates);
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string value;
  ASSERT_TRUE(db->Get(at_snapshot, "hot", &value).ok());
  EXPECT_EQ(value, "old");
  EXPECT_EQ(Latest(db.get()), "v" + std::to_string(kUpdates - 1));
  // Kept: what the snapshot reads and the newest few (snapshot stripes).
  EXPECT_LE(VersionsInMemtable(db.get()), 4u);
  db->ReleaseSnapshot(snapshot);
  // The snapshot gone, the next updates drop what it kept.
  EXPECT_LE(UpdateHotKey(db.get(), 2), kUpdates + 10u);
  EXPECT_LE(VersionsInMemtable(db.get()), 2u);
}

TEST(DropCostTest, UpdatesAboveADeleteDoConstantDropWork) {
  test::TempDir dir("teksdb-cost-delete");
  auto db = OpenTeksDB(dir.path());
  ASSERT_TRUE(db->Put(NoWAL(), "hot", "before").ok());
  ASSERT_TRUE(db->Delete(NoWAL(), "hot").ok());
  const uint64_t visited = UpdateHotKey(db.get(), kUpdates);
  EXPECT_GE(visited, uint64_t{kUpdates});  // every update did attempt
  EXPECT_LE(visited, kVisitsPerUpdate * kUpdates);
  EXPECT_EQ(Latest(db.get()), "v" + std::to_string(kUpdates - 1));
  std::string value;
  ASSERT_TRUE(db->Get({}, "hot", &value).ok());
  EXPECT_EQ(value, "v" + std::to_string(kUpdates - 1));
}

TEST(DropCostTest, UpdatesWithThreeHundredOpenIteratorsDoConstantDropWork) {
  test::TempDir dir("teksdb-cost-iterators");
  auto db = OpenTeksDB(dir.path());
  std::vector<std::unique_ptr<ROCKSDB_NAMESPACE::Iterator>> iterators;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(db->Put(NoWAL(), "hot", "at" + std::to_string(i)).ok());
    iterators.emplace_back(db->NewIterator({}));
  }
  EXPECT_LE(UpdateHotKey(db.get(), kUpdates), kVisitsPerUpdate * kUpdates);
  for (int i = 0; i < 300; i += 37) {
    iterators[i]->Seek("hot");
    ASSERT_TRUE(iterators[i]->Valid());
    EXPECT_EQ(iterators[i]->value().ToString(), "at" + std::to_string(i));
  }
  // Drops were only held back, not turned off: once the iterators are
  // gone, updates drop again.
  iterators.clear();
  UpdateHotKey(db.get(), 2);
  EXPECT_LE(VersionsInMemtable(db.get()), 2u);
}

TEST(DropCostTest, WalReplayBeforeTheRegistryIsAttachedDoesConstantDropWork) {
  test::TempDir dir("teksdb-cost-replay");
  {
    auto db = OpenTeksDB(dir.path());
    const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();  // keep every version
    UpdateHotKey(db.get(), kUpdates, WriteOptions());
    db->ReleaseSnapshot(snapshot);
  }
  const uint64_t before = VersionsVisitedByDropsOnThisThread();
  auto db = OpenTeksDB(dir.path());  // replays kUpdates versions of one key
  ASSERT_NE(db, nullptr);
  EXPECT_LE(VersionsVisitedByDropsOnThisThread() - before, kVisitsPerUpdate * kUpdates);
  EXPECT_EQ(Latest(db.get()), "v" + std::to_string(kUpdates - 1));
}

}  // namespace
}  // namespace teksdb
