// Tests of TeksTableRep through the MemTableRep interface, for every paper
// variant: sequence-gated Get, duplicate refusal, iterator order and seeks
// (with and without the shortcut), Contains, memory accounting (the hash in
// the arena, an update costing a version), and version
// dropping under a drop policy.
#include "teks_table_rep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_set>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"

namespace teksdb {
namespace {

using test::DecodeEntry;
using test::RepHarness;
using test::SettablePolicy;

using TeksTableRepTest = test::VariantTest;

// (user key, seq) pairs of a full scan.
std::vector<std::pair<std::string, SequenceNumber>> Scan(
    ROCKSDB_NAMESPACE::MemTableRep::Iterator* it) {
  std::vector<std::pair<std::string, SequenceNumber>> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const auto e = DecodeEntry(it->key());
    out.emplace_back(e.user_key, e.seq);
  }
  return out;
}

TEST_P(TeksTableRepTest, GetSeesTheNewestVersionAtItsSequenceAndNoNewer) {
  RepHarness h(Options());
  ASSERT_TRUE(h.Add("a", 10, kEntryValue, "a10"));
  ASSERT_TRUE(h.Add("a", 30, kEntryValue, "a30"));
  ASSERT_TRUE(h.Add("a", 20, kEntryValue, "a20"));
  EXPECT_TRUE(h.GetEntries("a", 9, 1).empty());
  EXPECT_EQ(h.GetEntries("a", 10, 1), std::vector<std::string>{"a10"});
  EXPECT_EQ(h.GetEntries("a", 25, 1), std::vector<std::string>{"a20"});
  EXPECT_EQ(h.GetEntries("a", 99, 1), std::vector<std::string>{"a30"});
  EXPECT_TRUE(h.GetEntries("b", 99).empty());
}

TEST_P(TeksTableRepTest, GetFeedsOlderVersionsWhileTheCallbackAsks) {
  RepHarness h(Options());
  ASSERT_TRUE(h.Add("m", 1, kEntryValue, "base"));
  ASSERT_TRUE(h.Add("m", 2, kEntryMerge, "op2"));
  ASSERT_TRUE(h.Add("m", 3, kEntryMerge, "op3"));
  ASSERT_TRUE(h.Add("n", 4, kEntryValue, "other key"));
  EXPECT_EQ(h.GetEntries("m", 3), (std::vector<std::string>{"op3", "op2", "base"}));
  EXPECT_EQ(h.GetEntries("m", 2), (std::vector<std::string>{"op2", "base"}));
}

TEST_P(TeksTableRepTest, RefusesAnExactKeyAndSequenceDuplicate) {
  RepHarness h(Options());
  ASSERT_TRUE(h.Add("k", 5, kEntryValue, "v"));
  EXPECT_FALSE(h.Add("k", 5, kEntryMerge, "w"));
  EXPECT_TRUE(h.Add("other", 5, kEntryValue, "different keys may share a seq"));
  EXPECT_TRUE(h.rep().Contains(test::EncodeEntry("k", 5, kEntryValue, "").data()));
  EXPECT_FALSE(h.rep().Contains(test::EncodeEntry("k", 6, kEntryValue, "").data()));
}

TEST_P(TeksTableRepTest, IteratesInInternalKeyOrderAndSeeksLikeTheSkipList) {
  RepHarness h(Options());
  std::mt19937 rng(7);
  std::map<std::string, std::vector<SequenceNumber>> expected;  // key -> seqs
  for (SequenceNumber seq = 1; seq <= 600; ++seq) {
    const std::string key = "k" + std::to_string(rng() % 150);
    ASSERT_TRUE(h.Add(key, seq, kEntryValue, "v"));
    expected[key].push_back(seq);
  }
  std::vector<std::pair<std::string, SequenceNumber>> want;
  for (auto& [key, seqs] : expected) {
    for (auto it = seqs.rbegin(); it != seqs.rend(); ++it) want.emplace_back(key, *it);
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h.rep().GetIterator(nullptr));
  ASSERT_EQ(Scan(it.get()), want);

  // Backward from the end.
  std::vector<std::pair<std::string, SequenceNumber>> backward;
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    const auto e = DecodeEntry(it->key());
    backward.emplace_back(e.user_key, e.seq);
  }
  std::reverse(backward.begin(), backward.end());
  ASSERT_EQ(backward, want);

  // Seek and SeekForPrev to present and absent keys at various sequences.
  for (int probe = 0; probe < 400; ++probe) {
    const std::string key = "k" + std::to_string(rng() % 170);
    const SequenceNumber seq = rng() % 650;
    const std::string target = test::InternalKey(key, seq, 0x16);
    auto first_at_or_after = std::lower_bound(
        want.begin(), want.end(), std::make_pair(key, seq),
        [](const auto& a, const auto& b) {
          return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
    it->Seek(target, nullptr);
    if (first_at_or_after == want.end()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      const auto e = DecodeEntry(it->key());
      EXPECT_EQ(std::make_pair(e.user_key, e.seq), *first_at_or_after) << key << "@" << seq;
    }
    it->SeekForPrev(target, nullptr);
    if (first_at_or_after != want.end() && *first_at_or_after == std::make_pair(key, seq)) {
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(DecodeEntry(it->key()).seq, seq);
    } else if (first_at_or_after == want.begin()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      const auto e = DecodeEntry(it->key());
      EXPECT_EQ(std::make_pair(e.user_key, e.seq), *(first_at_or_after - 1));
    }
  }
}

// The hash's tables come from the memtable's arena (so RocksDB's accounting
// sees them); what the rep reports itself is only what stays on the heap.
TEST_P(TeksTableRepTest, TheHashGrowsInTheArena) {
  RepHarness h(Options());
  const size_t heap_when_empty = h.rep().ApproximateMemoryUsage();
  const size_t arena_when_empty = h.arena().allocated_bytes();
  EXPECT_GT(heap_when_empty, 0u);
  // More keys than the first table (sized for the default 64 MiB write
  // buffer) has slots: the hash must grow, in the arena.
  constexpr int kKeys = 300000;
  size_t entry_bytes = 0;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key" + std::to_string(i);
    entry_bytes += EncodeEntry(key, i + 1, kEntryValue, "").size();
    ASSERT_TRUE(h.Add(key, i + 1, kEntryValue, ""));
  }
  // Every new key's slot: at least 8 bytes each, beyond records and entries.
  EXPECT_GT(h.arena().allocated_bytes() - arena_when_empty,
            entry_bytes + kKeys * (sizeof(KeyRecord) + 8));
  // The heap holds table objects and the link queue's backlog; the tables
  // themselves (4 MiB and more here) are not there.
  EXPECT_LT(h.rep().ApproximateMemoryUsage(), heap_when_empty + (1u << 20));
}

// Inserts "key0".."key<keys-1>" (sequences 1..keys) through Allocate and
// InsertKey, as MemTable::Add does.
void InsertNewKeys(ROCKSDB_NAMESPACE::MemTableRep* rep, int keys) {
  for (int i = 0; i < keys; ++i) {
    const std::string entry = EncodeEntry("key" + std::to_string(i), i + 1, kEntryValue, "v");
    char* buf = nullptr;
    auto handle = rep->Allocate(entry.size(), &buf);
    std::memcpy(buf, entry.data(), entry.size());
    ASSERT_TRUE(rep->InsertKey(handle));
  }
}

// A memtable sealed with N keys makes the factory's next memtable start
// with a hash for N keys, which then never resizes.
TEST(TeksTableFactoryHashSizeTest, TheNextMemtableStartsSizedForTheLastOnesKeys) {
  auto factory = NewTeksTableFactory();
  test::InternalKeyOrder order;
  test::TestArena first_arena(1 << 20), second_arena(1 << 20);  // a 64 MiB buffer's blocks
  constexpr int kKeys = 200000;
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> first(
      factory->CreateMemTableRep(order, &first_arena, nullptr, nullptr));
  const size_t first_capacity = static_cast<TeksTableRep*>(first.get())->HashCapacity();
  ASSERT_NO_FATAL_FAILURE(InsertNewKeys(first.get(), kKeys));
  EXPECT_GT(static_cast<TeksTableRep*>(first.get())->HashCapacity(), first_capacity)
      << "the first memtable's hash grew";
  first->MarkReadOnly();

  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> second(
      factory->CreateMemTableRep(order, &second_arena, nullptr, nullptr));
  auto* rep = static_cast<TeksTableRep*>(second.get());
  const size_t presized = rep->HashCapacity();
  EXPECT_GE(presized, static_cast<size_t>(kKeys));
  ASSERT_NO_FATAL_FAILURE(InsertNewKeys(second.get(), kKeys));
  EXPECT_EQ(rep->HashCapacity(), presized) << "no resize";
  EXPECT_LT(second_arena.allocated_bytes(), first_arena.allocated_bytes());
}

// A huge write buffer holding few keys costs no more hash than a default
// one: the first table is sized like a 64 MiB buffer's at most and grows
// with the keys that arrive.
TEST(TeksTableFactoryHashSizeTest, TheFirstHashGrowsWithTheKeysNotTheBuffer) {
  auto factory = NewTeksTableFactory();
  test::InternalKeyOrder order;
  test::TestArena arena(1 << 20);
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> rep =
      test::NewRepForWriteBuffer(factory.get(), size_t{32} << 30, order, &arena);
  auto* teks = static_cast<TeksTableRep*>(rep.get());
  EXPECT_LE(teks->HashCapacity(), size_t{64} << 10);
  EXPECT_LT(arena.allocated_bytes(), size_t{2} << 20) << "an empty memtable's hash and ring";
  constexpr int kKeys = 100000;
  ASSERT_NO_FATAL_FAILURE(InsertNewKeys(rep.get(), kKeys));
  EXPECT_GE(teks->HashCapacity(), static_cast<size_t>(kKeys));
  EXPECT_LE(teks->HashCapacity(), static_cast<size_t>(4 * kKeys)) << "grown with the keys only";
}

// An update's entry is copied into a version of its own; the record memory
// it was written to serves the next Allocate. So N updates of a key cost
// one record plus N versions, and no record header or tower each.
TEST_P(TeksTableRepTest, AnUpdateCostsAVersionNotARecord) {
  RepHarness h(Options());
  // Every value is 40 bytes, so every entry has the same length.
  auto value_of = [](SequenceNumber seq) {
    std::string value = std::to_string(seq);
    value.resize(40, 'v');
    return value;
  };
  ASSERT_TRUE(h.Add("hot", 1, kEntryValue, value_of(1)));
  const size_t before = h.arena().allocated_bytes();
  constexpr SequenceNumber kUpdates = 1000;
  for (SequenceNumber seq = 2; seq <= kUpdates + 1; ++seq) {
    ASSERT_TRUE(h.Add("hot", seq, kEntryValue, value_of(seq)));
  }
  const size_t entry_len = EncodeEntry("hot", 2, kEntryValue, value_of(2)).size();
  const size_t per_update = Version::AllocationSize(entry_len);
  const size_t a_record = KeyRecord::AllocationSize(KeyRecord::kMaxHeight, entry_len);
  EXPECT_LE(h.arena().allocated_bytes() - before, kUpdates * per_update + a_record);
  const std::vector<std::string> values = h.GetEntries("hot", kUpdates + 1);
  ASSERT_EQ(values.size(), kUpdates + 1);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], value_of(kUpdates + 1 - i));
}

// A key's first update sits right above its first version, to which no
// jump leads (version_chain.h), so it gets no jump link: a word less than
// later updates. The update after it still finds both, in order.
TEST_P(TeksTableRepTest, AKeysFirstUpdateHasNoJumpLink) {
  RepHarness h(Options());
  const std::string value(40, 'v');
  const size_t entry_len = EncodeEntry("k2", 2, kEntryValue, value).size();
  ASSERT_TRUE(h.Add("k1", 1, kEntryValue, value));
  ASSERT_TRUE(h.Add("k2", 2, kEntryValue, value));
  // An update leaves its record memory for this thread's next Allocate, so
  // from here on the arena grows by the updates' versions alone.
  ASSERT_TRUE(h.Add("k1", 3, kEntryValue, value));
  size_t before = h.arena().allocated_bytes();
  ASSERT_TRUE(h.Add("k2", 4, kEntryValue, value));
  EXPECT_EQ(h.arena().allocated_bytes() - before, Version::AllocationSize(entry_len, false));
  before = h.arena().allocated_bytes();
  ASSERT_TRUE(h.Add("k2", 5, kEntryValue, value));
  EXPECT_EQ(h.arena().allocated_bytes() - before, Version::AllocationSize(entry_len, true));
  EXPECT_EQ(h.GetEntries("k2", 5).size(), 3u);
  EXPECT_EQ(h.GetEntries("k2", 4).size(), 2u);
  EXPECT_EQ(h.GetEntries("k2", 3).size(), 1u);
}

// The record memory an update leaves behind belongs to its rep: a thread
// writing to two memtables in turn never builds one's record in the
// other's memory.
TEST_P(TeksTableRepTest, RecordMemoryLeftByAnUpdateStaysWithItsRep) {
  RepHarness first(Options());
  RepHarness second(Options());
  for (SequenceNumber seq = 1; seq <= 200; ++seq) {
    RepHarness& h = seq % 2 == 0 ? first : second;
    const std::string key = seq % 3 == 0 ? "new" + std::to_string(seq) : "hot";
    ASSERT_TRUE(h.Add(key, seq, kEntryValue, "value" + std::to_string(seq)));
  }
  for (RepHarness* h : {&first, &second}) {
    std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h->rep().GetIterator(nullptr));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const auto e = DecodeEntry(it->key());
      EXPECT_EQ(e.seq % 2, h == &first ? 0u : 1u);
      EXPECT_EQ(e.value, "value" + std::to_string(e.seq));
      EXPECT_EQ(e.user_key, e.seq % 3 == 0 ? "new" + std::to_string(e.seq) : "hot");
    }
  }
}

TEST_P(TeksTableRepTest, KeepsEveryVersionWithoutADropPolicy) {
  RepHarness h(Options());
  for (SequenceNumber seq = 1; seq <= 50; ++seq) ASSERT_TRUE(h.Add("hot", seq, kEntryValue, "v"));
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h.rep().GetIterator(nullptr));
  EXPECT_EQ(Scan(it.get()).size(), 50u);
}

TEST_P(TeksTableRepTest, DropsShadowedVersionsOnlyWhenThePolicyAllows) {
  const bool inplace = Options().inplace;
  auto published = std::make_shared<SettablePolicy>(0);
  RepHarness dropping(Options(), published);
  RepHarness pinned(Options(), std::make_shared<SettablePolicy>(0));
  for (SequenceNumber seq = 1; seq <= 50; ++seq) {
    // No reader: each update is readable as soon as it is in.
    published->Set(seq);
    ASSERT_TRUE(dropping.Add("hot", seq, kEntryValue, std::to_string(seq)));
    ASSERT_TRUE(pinned.Add("hot", seq, kEntryValue, std::to_string(seq)));
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(
      dropping.rep().GetIterator(nullptr));
  EXPECT_EQ(Scan(it.get()).size(), inplace ? 1u : 50u);
  EXPECT_EQ(dropping.GetEntries("hot", 1000, 1), std::vector<std::string>{"50"});
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> pinned_it(
      pinned.rep().GetIterator(nullptr));
  EXPECT_EQ(Scan(pinned_it.get()).size(), 50u);
}

// MemPurge's decider asks for a sample of entries and looks each one up:
// old versions must be in it as often as they are in the memtable.
TEST_P(TeksTableRepTest, UniqueRandomSampleDrawsDistinctEntriesOfEveryVersion) {
  RepHarness h(Options());
  std::set<std::pair<std::string, SequenceNumber>> added;
  SequenceNumber seq = 0;
  for (int version = 0; version < 10; ++version) {
    for (int k = 0; k < 100; ++k) {
      const std::string key = "key" + std::to_string(k);
      ASSERT_TRUE(h.Add(key, ++seq, kEntryValue, "v"));
      added.emplace(key, seq);
    }
  }
  std::unordered_set<const char*> sample;
  h.rep().UniqueRandomSample(added.size(), 196, &sample);
  ASSERT_EQ(sample.size(), 196u);
  size_t old_versions = 0;
  std::set<std::pair<std::string, SequenceNumber>> seen;
  for (const char* entry : sample) {
    const auto e = DecodeEntry(entry);
    EXPECT_EQ(added.count({e.user_key, e.seq}), 1u) << e.user_key << "@" << e.seq;
    EXPECT_TRUE(seen.emplace(e.user_key, e.seq).second);
    if (e.seq <= 900) ++old_versions;  // 90% of the entries
  }
  // Binomial(196, 0.9): mean 176, sd 4.2.
  EXPECT_GT(old_versions, 150u);
  EXPECT_LT(old_versions, 196u);
  // Asked for more than there is: everything, once.
  h.rep().UniqueRandomSample(added.size(), 5000, &sample);
  EXPECT_EQ(sample.size(), added.size());
}

// GetApproximateMemTableStats and GetApproximateSizes count the keys in a
// range through ApproximateNumEntries.
TEST_P(TeksTableRepTest, ApproximateNumEntriesEstimatesTheKeysInARange) {
  RepHarness h(Options());
  char key[16];
  for (int k = 0; k < 4000; ++k) {
    std::snprintf(key, sizeof(key), "key%05d", k);
    ASSERT_TRUE(h.Add(key, k + 1, kEntryValue, "v"));
  }
  const std::string start = test::InternalKey("key01000", uint64_t{1} << 40, kEntryValue);
  const std::string end = test::InternalKey("key03000", uint64_t{1} << 40, kEntryValue);
  const uint64_t estimate = h.rep().ApproximateNumEntries(start, end);
  EXPECT_GT(estimate, 1000u);
  EXPECT_LT(estimate, 4000u);
  EXPECT_EQ(h.rep().ApproximateNumEntries(end, start), 0u);
}

INSTANTIATE_TEST_SUITE_P(PaperVariants, TeksTableRepTest,
                         ::testing::Values("teks-s", "teks-a", "teks-ac", "teks-acsp",
                                           "teks-acsp-in"),
                         test::VariantTestName);

}  // namespace
}  // namespace teksdb
