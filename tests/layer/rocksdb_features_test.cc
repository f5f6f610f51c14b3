// Tests of optional RocksDB features that depend on what a MemTableRep
// implements beyond the basics (the list is in include/teksdb/teks_table.h),
// end to end: MemPurge (UniqueRandomSample), memtable range statistics
// (ApproximateNumEntries), prefix seek (GetDynamicPrefixIterator),
// in-place updates, per-entry checksums and WriteBufferManager accounting,
// with the plain factory and under the TeksDB layer.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/write_buffer_manager.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Options;

// Small buffers, so a few thousand writes fill several; MemPurge replaces a
// flush when the sampled useful payload is under half a buffer.
Options MemPurgeOptions() {
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 10;
  options.experimental_mempurge_threshold = 0.5;
  options.disable_auto_compactions = true;
  return options;
}

// Waits for every scheduled flush (or MemPurge) to finish. (Not the
// "mem-table-flush-pending" property: a purged memtable waits in the
// immutable list, counted as pending, until the next flush takes it.)
void WaitForFlushes(DB* db) {
  ASSERT_TRUE(db->PauseBackgroundWork().ok());
  ASSERT_TRUE(db->ContinueBackgroundWork().ok());
}

uint64_t FilesAtLevel0(DB* db) {
  std::string files;
  EXPECT_TRUE(db->GetProperty("rocksdb.num-files-at-level0", &files));
  return std::stoull(files);
}

// What MemPurge's decider logged (db/flush_job.cc, 7.8.3): a garbage ratio
// when it sampled entries, "null payload measured" when the sample was empty.
std::string InfoLog(const std::string& dir) {
  std::ifstream in(dir + "/LOG");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void ExpectTheDeciderSampled(const std::string& dir) {
  const std::string log = InfoLog(dir);
  EXPECT_NE(log.find("found garbage ratio from sampling"), std::string::npos);
  EXPECT_EQ(log.find("null payload measured"), std::string::npos);
}

constexpr int kHotKeys = 20;
const std::string kValue(1000, 'v');

std::string HotKey(int i) { return "hot" + std::to_string(i % kHotKeys); }
std::string HotValue(int i) { return std::to_string(i) + kValue; }

// 2000 updates of 20 keys: eight buffers of mostly shadowed versions.
void UpdateHotKeys(DB* db, int from, int to) {
  for (int i = from; i < to; ++i) ASSERT_TRUE(db->Put({}, HotKey(i), HotValue(i)).ok());
}

void ExpectLatestHotValues(DB* db, int last) {
  for (int i = last - kHotKeys; i < last; ++i) {
    std::string value;
    ASSERT_TRUE(db->Get({}, HotKey(i), &value).ok());
    EXPECT_EQ(value, HotValue(i));
  }
}

// Opens `options` in `dir` as a plain DB with TeksTable, or under the layer.
std::unique_ptr<DB> OpenPlainOrLayered(Options options, const std::string& dir, bool layer) {
  options.create_if_missing = true;
  options.memtable_factory = NewTeksTableFactory();
  std::unique_ptr<DB> db;
  if (layer) {
    std::unique_ptr<TeksDB> teks;
    EXPECT_TRUE(TeksDB::Open(options, dir, &teks).ok());
    db = std::move(teks);
  } else {
    EXPECT_TRUE(OpenDB(options, dir, &db).ok());
  }
  return db;
}

TEST(MemPurgeTest, PurgesShadowedVersionsInMemoryWithThePlainFactory) {
  test::TempDir dir("teks-mempurge-plain");
  std::unique_ptr<DB> db = OpenPlainOrLayered(MemPurgeOptions(), dir.path(), false);
  ASSERT_NE(db, nullptr);
  UpdateHotKeys(db.get(), 0, 2000);
  WaitForFlushes(db.get());
  EXPECT_EQ(FilesAtLevel0(db.get()), 0u);  // every full buffer was purged, not flushed
  ExpectLatestHotValues(db.get(), 2000);
  ExpectTheDeciderSampled(dir.path());
}

TEST(MemPurgeTest, FlushesBuffersOfUsefulEntriesWithThePlainFactory) {
  test::TempDir dir("teks-mempurge-useful");
  std::unique_ptr<DB> db = OpenPlainOrLayered(MemPurgeOptions(), dir.path(), false);
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(db->Put({}, "key" + std::to_string(i), kValue).ok());
  }
  WaitForFlushes(db.get());
  EXPECT_GT(FilesAtLevel0(db.get()), 0u);
  std::string value;
  ASSERT_TRUE(db->Get({}, "key1234", &value).ok());
  EXPECT_EQ(value, kValue);
  ExpectTheDeciderSampled(dir.path());
}

// Under the layer a held snapshot keeps the versions after it (no drop is
// safe), so the buffers fill with shadowed versions MemPurge removes,
// keeping the one the snapshot reads.
TEST(MemPurgeTest, PurgesUnderTheLayerAndKeepsWhatASnapshotReads) {
  test::TempDir dir("teks-mempurge-layer");
  std::unique_ptr<TeksDB> db;
  ASSERT_TRUE(TeksDB::Open(MemPurgeOptions(), dir.path(), &db).ok());
  UpdateHotKeys(db.get(), 0, kHotKeys);
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
  UpdateHotKeys(db.get(), kHotKeys, 2000);
  WaitForFlushes(db.get());
  EXPECT_EQ(FilesAtLevel0(db.get()), 0u);
  ExpectLatestHotValues(db.get(), 2000);
  ROCKSDB_NAMESPACE::ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  for (int i = 0; i < kHotKeys; ++i) {
    std::string value;
    ASSERT_TRUE(db->Get(at_snapshot, HotKey(i), &value).ok());
    EXPECT_EQ(value, HotValue(i));
  }
  db->ReleaseSnapshot(snapshot);
  // Without the snapshot, updates drop versions as they go; whatever the
  // decider picks then, reads stay right.
  UpdateHotKeys(db.get(), 2000, 4000);
  WaitForFlushes(db.get());
  ExpectLatestHotValues(db.get(), 4000);
  ExpectTheDeciderSampled(dir.path());
}

// DB::GetApproximateMemTableStats counts a range's entries through
// MemTableRep::ApproximateNumEntries.
TEST(MemTableStatsTest, ApproximateMemTableStatsCountTheKeysInARange) {
  test::TempDir dir("teks-memtable-stats");
  std::unique_ptr<DB> db = OpenPlainOrLayered(Options(), dir.path(), false);
  ASSERT_NE(db, nullptr);
  char key[16];
  for (int i = 0; i < 4000; ++i) {
    std::snprintf(key, sizeof(key), "key%05d", i);
    ASSERT_TRUE(db->Put({}, key, "v").ok());
  }
  const ROCKSDB_NAMESPACE::Range range("key01000", "key03000");
  uint64_t count = 0, size = 0;
  db->GetApproximateMemTableStats(range, &count, &size);
  EXPECT_GT(count, 1000u);
  EXPECT_LT(count, 4000u);
  EXPECT_GT(size, 0u);
}

// A prefix extractor makes RocksDB ask for GetDynamicPrefixIterator, which
// TeksTable answers with its total-order iterator (allowed: a prefix seek
// may show more keys than the prefix's). The memtable's prefix bloom filter
// is RocksDB's own, beside the rep.
TEST(PrefixSeekTest, PrefixIteratorsAndTheMemtableBloomFilterWork) {
  for (bool layer : {false, true}) {
    SCOPED_TRACE(layer ? "layer" : "plain factory");
    test::TempDir dir("teks-prefix");
    Options options;
    options.prefix_extractor.reset(ROCKSDB_NAMESPACE::NewFixedPrefixTransform(3));
    options.memtable_prefix_bloom_size_ratio = 0.1;
    std::unique_ptr<DB> db = OpenPlainOrLayered(options, dir.path(), layer);
    ASSERT_NE(db, nullptr);
    for (const char* k : {"aaa1", "aaa2", "bbb1", "bbb2", "bbb3", "ccc1"}) {
      ASSERT_TRUE(db->Put({}, k, k).ok());
    }
    ROCKSDB_NAMESPACE::ReadOptions prefix_only;
    prefix_only.prefix_same_as_start = true;
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator(prefix_only));
    std::string seen;
    for (it->Seek("bbb"); it->Valid(); it->Next()) seen += it->key().ToString() + " ";
    EXPECT_EQ(seen, "bbb1 bbb2 bbb3 ");
    it.reset();
    std::string value;
    EXPECT_TRUE(db->Get({}, "ddd1", &value).IsNotFound());
    ASSERT_TRUE(db->Get({}, "ccc1", &value).ok());
    EXPECT_EQ(value, "ccc1");
  }
}

// memtable_protection_bytes_per_key: RocksDB writes a checksum after each
// entry's value, inside the bytes Allocate reserved, and checks it on reads.
// An update's entry is copied into a version of its own, checksum included.
TEST(ProtectionBytesTest, ChecksummedEntriesReadBackThroughUpdates) {
  for (bool layer : {false, true}) {
    SCOPED_TRACE(layer ? "layer" : "plain factory");
    test::TempDir dir("teks-protection");
    Options options;
    options.memtable_protection_bytes_per_key = 8;
    std::unique_ptr<DB> db = OpenPlainOrLayered(options, dir.path(), layer);
    ASSERT_NE(db, nullptr);
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(db->Put({}, "k" + std::to_string(i % 7), "v" + std::to_string(i)).ok());
    }
    const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
    for (int i = 300; i < 600; ++i) {
      ASSERT_TRUE(db->Put({}, "k" + std::to_string(i % 7), "v" + std::to_string(i)).ok());
    }
    // The last i <= `last` with i % 7 == k.
    auto last_write = [](int last, int k) { return "v" + std::to_string(last - (last - k) % 7); };
    std::string value;
    for (int k = 0; k < 7; ++k) {
      ASSERT_TRUE(db->Get({}, "k" + std::to_string(k), &value).ok());
      EXPECT_EQ(value, last_write(599, k));
      ROCKSDB_NAMESPACE::ReadOptions at_snapshot;
      at_snapshot.snapshot = snapshot;
      ASSERT_TRUE(db->Get(at_snapshot, "k" + std::to_string(k), &value).ok());
      EXPECT_EQ(value, last_write(299, k));
    }
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
    int keys = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) ++keys;
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(keys, 7);
    it.reset();
    db->ReleaseSnapshot(snapshot);
    ASSERT_TRUE(db->Flush({}).ok());
    ASSERT_TRUE(db->Get({}, "k3", &value).ok());
    EXPECT_EQ(value, last_write(599, 3));
  }
}

// A WriteBufferManager sees the memory of RocksDB's arena only, so the hash
// index must live there for its limits to hold: with small entries the hash
// is a fifth of a TeksTable memtable.
TEST(WriteBufferManagerTest, ChargesTheHashIndexToo) {
  for (bool layer : {false, true}) {
    SCOPED_TRACE(layer ? "layer" : "plain factory");
    test::TempDir dir("teks-wbm");
    Options options;
    options.write_buffer_size = 256 << 20;  // no flush during the test
    options.arena_block_size = 64 << 10;    // fine-grained arena accounting
    auto manager = std::make_shared<ROCKSDB_NAMESPACE::WriteBufferManager>(1 << 30);
    options.write_buffer_manager = manager;
    std::unique_ptr<DB> db = OpenPlainOrLayered(options, dir.path(), layer);
    ASSERT_NE(db, nullptr);
    ROCKSDB_NAMESPACE::WriteOptions no_wal;
    no_wal.disableWAL = true;
    for (int i = 0; i < 300000; ++i) {
      ASSERT_TRUE(db->Put(no_wal, "key" + std::to_string(i), "v").ok());
    }
    uint64_t memtable_bytes = 0;
    ASSERT_TRUE(db->GetIntProperty("rocksdb.cur-size-all-mem-tables", &memtable_bytes));
    // The manager counts the arena's blocks; the property counts the bytes
    // used in them plus what the rep still holds on the heap (table
    // objects, the link queue: well under 1%). Outside the arena, the hash
    // alone would be ~25% here.
    EXPECT_GE(manager->memory_usage(), memtable_bytes - memtable_bytes / 100);
    EXPECT_LE(manager->memory_usage(), memtable_bytes + memtable_bytes / 10);
  }
}

// inplace_update_support: MemTable::Update finds the newest version through
// the rep's iterator and overwrites a value that fits in place.
TEST(InplaceUpdateTest, UpdatesInPlaceAndAddsWhatDoesNotFit) {
  for (bool layer : {false, true}) {
    SCOPED_TRACE(layer ? "layer" : "plain factory");
    test::TempDir dir("teks-inplace");
    Options options;
    options.inplace_update_support = true;
    options.allow_concurrent_memtable_write = false;
    std::unique_ptr<DB> db = OpenPlainOrLayered(options, dir.path(), layer);
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Put({}, "k", "a long first value").ok());
    ASSERT_TRUE(db->Put({}, "k", "short").ok());
    std::string value;
    ASSERT_TRUE(db->Get({}, "k", &value).ok());
    EXPECT_EQ(value, "short");
    uint64_t entries = 0;
    ASSERT_TRUE(db->GetIntProperty("rocksdb.num-entries-active-mem-table", &entries));
    EXPECT_EQ(entries, 1u);  // updated in place
    ASSERT_TRUE(db->Put({}, "k", "a value longer than the first one").ok());
    ASSERT_TRUE(db->Get({}, "k", &value).ok());
    EXPECT_EQ(value, "a value longer than the first one");
    ASSERT_TRUE(db->Flush({}).ok());
    ASSERT_TRUE(db->Get({}, "k", &value).ok());
    EXPECT_EQ(value, "a value longer than the first one");
  }
}

}  // namespace
}  // namespace teksdb
