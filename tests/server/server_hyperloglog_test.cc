// hyperloglog (server/common/hyperloglog.h): the bytes and counts Redis
// 7.0.15 gives for the same PFADDs and PFMERGEs (taken from redis-server:
// the strings' FNV-1a hashes, the small ones whole), sparse and dense
// counting alike, the sparse limit, and damaged strings refused without a
// crash (random damage too, under ASan in CI).
#include "hyperloglog.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace teksdb::server::hyperloglog {
namespace {

constexpr size_t kDefaultSparseMax = 3000;

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
  return h;
}

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string Numbered(const std::string& prefix, int n, std::string hll = New()) {
  for (int i = 0; i < n; ++i) Add(&hll, prefix + std::to_string(i), kDefaultSparseMax);
  MarkStale(&hll);  // as PFADD leaves a string it changed
  return hll;
}

// PFCOUNT's effect on one key: the count, stored in the cache.
uint64_t CountAndCache(std::string* hll) {
  uint64_t count = 0;
  if (!CachedCount(*hll, &count)) {
    EXPECT_TRUE(Count(*hll, &count));
    StoreCount(hll, count);
  }
  return count;
}

TEST(HyperLogLogTest, BytesAndCountsAreRedisOwn) {
  std::string empty = New();
  MarkStale(&empty);
  EXPECT_EQ(empty, FromHex("48594c4c0100000000000000000000807fff"));
  std::string abc = New();
  for (const char* e : {"a", "b", "c"}) EXPECT_EQ(Add(&abc, e, kDefaultSparseMax), 1);
  MarkStale(&abc);
  EXPECT_EQ(abc, FromHex("48594c4c01000000000000000000008060f38050b1844bfb80425a"));
  EXPECT_EQ(CountAndCache(&abc), 3u);
  EXPECT_EQ(Fnv1a(abc), 0x7e703c73d1c9aad2ULL);

  std::string e200 = Numbered("e", 200);
  EXPECT_TRUE(IsSparse(e200));
  EXPECT_EQ(e200.size(), 513u);
  EXPECT_EQ(Fnv1a(e200), 0xf158567683abd43dULL);
  EXPECT_EQ(CountAndCache(&e200), 200u);
  EXPECT_EQ(Fnv1a(e200), 0xcf220b3b377acfd5ULL);

  std::string x5000 = Numbered("x", 5000);
  EXPECT_FALSE(IsSparse(x5000));
  EXPECT_EQ(x5000.size(), kDenseSize);
  EXPECT_EQ(Fnv1a(x5000), 0x9e0154a407051be6ULL);
  EXPECT_EQ(CountAndCache(&x5000), 4970u);
  EXPECT_EQ(Fnv1a(x5000), 0x128b81c26a20f259ULL);

  std::string binary = New();
  for (int i = 0; i < 256; ++i) {
    const char bytes[] = {static_cast<char>(i), static_cast<char>(255 - i), 7};
    Add(&binary, std::string(bytes, 3), kDefaultSparseMax);
  }
  Add(&binary, "", kDefaultSparseMax);
  MarkStale(&binary);
  EXPECT_EQ(binary.size(), 619u);
  EXPECT_EQ(Fnv1a(binary), 0x595ed42f006a978fULL);
  EXPECT_EQ(CountAndCache(&binary), 257u);

  // PFCOUNT of several keys: the union's estimate.
  std::vector<uint8_t> registers(kRegisters, 0);
  for (const std::string* hll : {&abc, &e200, &x5000, &binary}) {
    ASSERT_TRUE(MergeInto(*hll, registers.data()));
  }
  EXPECT_EQ(CountRegisters(registers.data()), 5423u);
}

// PFMERGE's way: the registers' maximum raised into the destination, made
// dense first when a source is dense.
std::string Merged(const std::vector<const std::string*>& sources) {
  std::vector<uint8_t> registers(kRegisters, 0);
  bool dense = false;
  for (const std::string* s : sources) {
    EXPECT_TRUE(MergeInto(*s, registers.data()));
    dense |= !IsSparse(*s);
  }
  std::string hll = New();
  if (dense) {
    EXPECT_TRUE(ToDense(&hll));
  }
  for (int i = 0; i < kRegisters; ++i) {
    if (registers[i] != 0) Raise(&hll, i, registers[i], kDefaultSparseMax);
  }
  MarkStale(&hll);
  return hll;
}

TEST(HyperLogLogTest, MergesAreRedisOwn) {
  std::string abc = Numbered("", 0);
  for (const char* e : {"a", "b", "c"}) Add(&abc, e, kDefaultSparseMax);
  const std::string e200 = Numbered("e", 200);
  const std::string x5000 = Numbered("x", 5000);
  std::string sparse = Merged({&abc, &e200});
  EXPECT_EQ(Fnv1a(sparse), 0xcf432ad37cbbc3c7ULL);
  EXPECT_EQ(CountAndCache(&sparse), 203u);
  std::string dense = Merged({&e200, &x5000});
  EXPECT_EQ(Fnv1a(dense), 0xd5721f1f1791625cULL);
  EXPECT_EQ(CountAndCache(&dense), 5166u);
}

TEST(HyperLogLogTest, SparseAndDenseCountAlikeAndSparseStaysUnderItsLimit) {
  std::mt19937_64 random(testing::UnitTest::GetInstance()->random_seed());
  for (int round = 0; round < 200; ++round) {
    std::string sparse = New();
    std::string dense = New();
    ASSERT_TRUE(ToDense(&dense));
    const int n = static_cast<int>(random() % 3000);
    for (int i = 0; i < n; ++i) {
      const std::string e = std::to_string(random());
      const int a = Add(&sparse, e, kDefaultSparseMax);
      const int b = Add(&dense, e, kDefaultSparseMax);
      ASSERT_GE(a, 0);
      ASSERT_EQ(a, b) << "element " << i << " of round " << round;
      if (IsSparse(sparse)) {
        ASSERT_LE(sparse.size(), kDefaultSparseMax);
      }
    }
    uint64_t from_sparse, from_dense;
    ASSERT_TRUE(Count(sparse, &from_sparse));
    ASSERT_TRUE(Count(dense, &from_dense));
    EXPECT_EQ(from_sparse, from_dense) << n << " elements";
    ASSERT_TRUE(ToDense(&sparse));
    EXPECT_EQ(sparse.substr(kHeaderSize), dense.substr(kHeaderSize));
  }
}

TEST(HyperLogLogTest, DamagedStringsAreRefusedNeverReadPast) {
  std::string abc = New();
  for (const char* e : {"a", "b", "c"}) Add(&abc, e, kDefaultSparseMax);
  uint64_t count;
  EXPECT_FALSE(Count(abc + "hello", &count));  // runs past the registers
  EXPECT_FALSE(Looks("0123" + abc.substr(4)));  // magic
  std::string encoding = abc;
  encoding[4] = 'x';
  EXPECT_FALSE(Looks(encoding));
  std::string short_dense = abc;
  short_dense[4] = 0;
  EXPECT_FALSE(Looks(short_dense));  // dense of the wrong length
  std::string cut = abc.substr(0, abc.size() - 1);
  EXPECT_FALSE(Count(cut, &count));
  std::string edited = cut;
  if (Add(&edited, "d", kDefaultSparseMax) == -1) {
    EXPECT_EQ(edited, cut);
  }
  EXPECT_FALSE(ToDense(&cut));

  // Random damage: every answer is an answer, whatever the bytes (ASan
  // checks the reads).
  std::mt19937_64 random(testing::UnitTest::GetInstance()->random_seed());
  for (int round = 0; round < 300; ++round) {
    std::string hll = Numbered("r", static_cast<int>(random() % 3000));
    for (int i = 0; i < 5; ++i) {
      hll[random() % hll.size()] = static_cast<char>(random());
      if (random() % 2 == 0) break;
    }
    if (random() % 4 == 0) hll.resize(random() % (hll.size() + 1));
    if (!Looks(hll)) continue;
    std::vector<uint8_t> registers(kRegisters, 0);
    MergeInto(hll, registers.data());
    Count(hll, &count);
    DescribeRuns(hll);
    std::string added = hll;
    Add(&added, "x", kDefaultSparseMax);
    std::string raised = hll;
    Raise(&raised, static_cast<int>(random() % kRegisters), 1 + random() % 51, kDefaultSparseMax);
    ToDense(&hll);
  }
}

TEST(HyperLogLogTest, CacheIsStaleAfterAChange) {
  std::string hll = New();
  uint64_t count;
  EXPECT_TRUE(CachedCount(hll, &count));
  EXPECT_EQ(count, 0u);
  Add(&hll, "a", kDefaultSparseMax);
  EXPECT_FALSE(CachedCount(hll, &count));
  StoreCount(&hll, 1);
  EXPECT_TRUE(CachedCount(hll, &count));
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(Add(&hll, "a", kDefaultSparseMax), 0);
  EXPECT_TRUE(CachedCount(hll, &count));
}

TEST(HyperLogLogTest, DescribeRunsNamesEachRun) {
  std::string hll = New();
  EXPECT_EQ(DescribeRuns(hll), "Z:16384");
  Raise(&hll, 1000, 2, kDefaultSparseMax);
  Raise(&hll, 1020, 3, kDefaultSparseMax);
  Raise(&hll, 1021, 3, kDefaultSparseMax);
  EXPECT_EQ(DescribeRuns(hll), "Z:1000 v:2,1 z:19 v:3,2 Z:15362");
}

}  // namespace
}  // namespace teksdb::server::hyperloglog
