// Keys chosen by an adversary, through a real DB (issue: hash flooding).
//
// Two attacks: keys that all collide under libstdc++'s unseeded std::hash
// (which TeksTable used to hash with), and, as if even the secret seed were
// defeated, every key forced to one hash value (CuckooIndex's test hook).
// Either way every key stays readable, in order and by Get, the memtable
// stays within 2x the skip list's bytes, and no exception leaves DB::Write.
#include <gtest/gtest.h>

#include <cstring>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

// libstdc++'s std::hash of bytes is MurmurHash64A: each 8-byte block k is
// mixed into d = shift_mix(k * m) * m and folded by h = (h ^ d) * m. Flipping
// bit 63 of two consecutive d flips bit 63 of h twice (m is odd), so the hash
// is unchanged; shift_mix (v ^ v >> 47) and * m are invertible, so the block
// giving a flipped d can be computed. 8 block pairs give 2^8 keys.
constexpr uint64_t kMurmurMul = 0xc6a4a7935bd1e995ULL;

uint64_t InverseOf(uint64_t odd) {
  uint64_t x = odd;  // Newton's iteration doubles the correct low bits
  for (int i = 0; i < 6; ++i) x *= 2 - odd * x;
  return x;
}
uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }  // its own inverse
uint64_t Mix(uint64_t k) { return ShiftMix(k * kMurmurMul) * kMurmurMul; }
uint64_t Unmix(uint64_t d) {
  const uint64_t inv = InverseOf(kMurmurMul);
  return ShiftMix(d * inv) * inv;
}

std::vector<std::string> StdHashCollisions(int pairs) {
  std::vector<uint64_t> base(2 * pairs);
  for (int i = 0; i < 2 * pairs; ++i) base[i] = 0x6b65790000000000ULL + i;  // "key..."
  std::vector<std::string> keys;
  for (uint32_t mask = 0; mask < (1u << pairs); ++mask) {
    std::string key(16 * pairs, '\0');
    for (int i = 0; i < 2 * pairs; ++i) {
      const bool flip = (mask >> (i / 2)) & 1;
      const uint64_t block = flip ? Unmix(Mix(base[i]) ^ (uint64_t{1} << 63)) : base[i];
      std::memcpy(&key[8 * i], &block, 8);
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

TEST(HostileKeysTest, TheCollisionConstructionReallyDefeatsStdHash) {
  const std::vector<std::string> keys = StdHashCollisions(8);
  ASSERT_EQ(keys.size(), 256u);
  const size_t h = std::hash<std::string_view>{}(keys[0]);
  for (const std::string& k : keys) EXPECT_EQ(std::hash<std::string_view>{}(k), h);
  EXPECT_NE(keys[0], keys[255]);
}

uint64_t ActiveMemtableBytes(DB* db) {
  uint64_t bytes = 0;
  EXPECT_TRUE(db->GetIntProperty("rocksdb.cur-size-active-mem-table", &bytes));
  return bytes;
}

// Writes `keys` (in one batch or one write each) into a fresh DB with the
// given memtable factory, checks every key by Get and by a full scan, and
// returns the active memtable's bytes.
uint64_t WriteAndCheck(std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> factory,
                       const std::vector<std::string>& keys, bool one_batch) {
  test::TempDir dir("teksdb-hostile");
  Options options;
  options.create_if_missing = true;
  options.memtable_factory = std::move(factory);
  std::unique_ptr<DB> db;
  {
    const Status s = OpenDB(options, dir.path(), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return 0;
  }
  WriteOptions write_options;
  write_options.disableWAL = true;
  if (one_batch) {
    WriteBatch batch;
    for (const std::string& k : keys) batch.Put(k, "v:" + k.substr(0, 4));
    EXPECT_TRUE(db->Write(write_options, &batch).ok());
  } else {
    for (const std::string& k : keys) {
      EXPECT_TRUE(db->Put(write_options, k, "v:" + k.substr(0, 4)).ok());
    }
  }
  const uint64_t bytes = ActiveMemtableBytes(db.get());
  std::string value;
  for (const std::string& k : keys) {
    EXPECT_TRUE(db->Get(ReadOptions(), k, &value).ok());
    EXPECT_EQ(value, "v:" + k.substr(0, 4));
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator(ReadOptions()));
  size_t scanned = 0;
  std::string previous;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++scanned) {
    EXPECT_TRUE(scanned == 0 || previous < it->key().ToString());
    previous = it->key().ToString();
  }
  EXPECT_TRUE(it->status().ok());
  EXPECT_EQ(scanned, std::set<std::string>(keys.begin(), keys.end()).size());
  for (const std::string& k : {keys.front(), keys.back()}) {
    it->Seek(k);
    EXPECT_TRUE(it->Valid() && it->key() == k);
  }
  return bytes;
}

void ExpectWithinTwiceTheSkipList(const std::vector<std::string>& keys, bool one_batch) {
  const uint64_t skip_list =
      WriteAndCheck(std::make_shared<ROCKSDB_NAMESPACE::SkipListFactory>(), keys, one_batch);
  for (const char* variant : {"teks", "teks-s"}) {
    TeksTableOptions options;
    ASSERT_TRUE(TeksTableOptions::ForVariant(variant, &options));
    const uint64_t teks = WriteAndCheck(NewTeksTableFactory(options), keys, one_batch);
    EXPECT_LE(teks, 2 * skip_list) << variant << ": " << teks << " bytes against the skip list's "
                                   << skip_list << " for " << keys.size() << " keys";
  }
}

TEST(HostileKeysTest, StdHashCollisionsCostWhatTheSkipListCosts) {
  const std::vector<std::string> keys = StdHashCollisions(8);
  ExpectWithinTwiceTheSkipList(keys, /*one_batch=*/true);
  ExpectWithinTwiceTheSkipList(keys, /*one_batch=*/false);
}

std::vector<std::string> NumberedKeys(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    char key[17];
    std::snprintf(key, sizeof(key), "%016d", i);
    keys.emplace_back(key);
  }
  return keys;
}

TEST(HostileKeysTest, KeysThatAllShareOneHashStayReadableAndBounded) {
  test::ScopedForcedHash one_hash;
  const std::vector<std::string> keys = NumberedKeys(100000);
  ExpectWithinTwiceTheSkipList(keys, /*one_batch=*/true);
  ExpectWithinTwiceTheSkipList(keys, /*one_batch=*/false);
}

TEST(HostileKeysTest, KeysThatAllShareOneHashWorkThroughTheLayerWithUpdates) {
  test::ScopedForcedHash one_hash;
  test::TempDir dir("teksdb-hostile-layer");
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<TeksDB> db;
  ASSERT_TRUE(TeksDB::Open(options, dir.path(), &db).ok());
  const std::vector<std::string> keys = NumberedKeys(20000);
  for (int round = 0; round < 3; ++round) {
    for (const std::string& k : keys) {
      ASSERT_TRUE(db->Put(WriteOptions(), k, k + std::to_string(round)).ok());
    }
  }
  std::string value;
  for (const std::string& k : keys) {
    ASSERT_TRUE(db->Get(ReadOptions(), k, &value).ok());
    ASSERT_EQ(value, k + "2");
  }
  ASSERT_TRUE(db->Flush({}).ok());
  for (const std::string& k : keys) {
    ASSERT_TRUE(db->Get(ReadOptions(), k, &value).ok());
    ASSERT_EQ(value, k + "2");
  }
}

}  // namespace
}  // namespace teksdb
