// Tests of reusing the memory of dropped versions (version_recycler.h,
// reader_epochs.h, VersionChain::InsertAndDrop): updates under a drop policy
// stop growing the arena, in every rep a thread writes to, a reader that may
// stand on a cut version keeps its bytes intact for as long as it lives,
// merge operands are never reused, the budget that bounds the WAL ends
// reuse, after a cut no jump leads into the cut part, and versions between
// held snapshots are spliced out and reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "teks_table_rep.h"
#include "test_support.h"
#include "version_chain.h"

namespace teksdb {
namespace {

using test::DecodeEntry;
using test::RepHarness;
using test::SettablePolicy;
using test::VersionValue;

TeksTableOptions WithWalBound(uint32_t write_buffers) {
  TeksTableOptions options;
  options.max_wal_write_buffers = write_buffers;
  return options;
}

// A budget no test reaches: TestArena's default block implies a 32 KiB
// write buffer.
constexpr uint32_t kUnbounded = 1000000;

size_t UpdateSize(const std::string& key) {
  return Version::AllocationSize(EncodeEntry(key, 1, kEntryValue, VersionValue(key, 1)).size());
}

// Adds `key`'s version ++*seq of `type`, readable (the policy's answer) as
// soon as it is in, so that each insert drops what the one before it
// shadows.
void AddReadable(RepHarness* h, SettablePolicy* policy, const std::string& key, uint8_t type,
                 SequenceNumber* seq) {
  ++*seq;
  ASSERT_TRUE(h->Add(key, *seq, type, VersionValue(key, *seq)));
  policy->Set(*seq);
}

// Updates keys "key0".."key<keys-1>" round-robin from `*seq` on, each
// readable as soon as it is in.
void UpdateRoundRobin(RepHarness* h, SettablePolicy* policy, int keys, int updates,
                      SequenceNumber* seq) {
  for (int i = 0; i < updates; ++i) {
    AddReadable(h, policy, "key" + std::to_string(i % keys), kEntryValue, seq);
  }
}

// The versions a Get at `seq` reaches, newest first.
std::vector<SequenceNumber> ReachableSequences(RepHarness* h, const std::string& key,
                                               SequenceNumber seq) {
  std::vector<SequenceNumber> out;
  for (const std::string& value : h->GetEntries(key, seq)) {
    EXPECT_EQ(value.substr(0, key.size() + 1), key + "@");
    out.push_back(std::stoull(value.substr(key.size() + 1)));
    EXPECT_EQ(value, VersionValue(key, out.back()));
  }
  return out;
}

TEST(VersionReuseTest, UpdatesReuseTheMemoryOfDroppedVersions) {
  constexpr int kKeys = 10;
  constexpr int kUpdates = 20000;
  size_t growth[2];
  for (const bool reuse : {true, false}) {
    auto policy = std::make_shared<SettablePolicy>(0);
    RepHarness h(WithWalBound(reuse ? kUnbounded : 1), policy);
    SequenceNumber seq = 0;
    UpdateRoundRobin(&h, policy.get(), kKeys, kKeys * 2, &seq);
    const size_t before = h.arena().allocated_bytes();
    UpdateRoundRobin(&h, policy.get(), kKeys, kUpdates, &seq);
    growth[reuse] = h.arena().allocated_bytes() - before;
    for (int k = 0; k < kKeys; ++k) {
      const std::string key = "key" + std::to_string(k);
      // The newest, and the one its insert could not yet drop.
      const SequenceNumber newest = seq - (kKeys - 1 - k);
      EXPECT_EQ(ReachableSequences(&h, key, seq),
                (std::vector<SequenceNumber>{newest, newest - kKeys}));
    }
    if (reuse) {
      // Counted in steps of up to VersionRecycler::kMaxReportEvery bytes.
      EXPECT_GT(static_cast<TeksTableRep&>(h.rep()).ReusedBytes(),
                (kUpdates - 1000) * UpdateSize("key0") - VersionRecycler::kMaxReportEvery);
    }
  }
  EXPECT_GE(growth[false], kUpdates * UpdateSize("key0"));
  // Reuse waits two epochs, which move on every few dozen updates.
  EXPECT_LT(growth[true], growth[false] / 20) << "allocated with reuse: " << growth[true];
}

// An iterator may stand on a version when it is cut, and walk on through
// the cut part; a Get may be between versions. While such a reader lives,
// no cut version's memory is reused; once it is gone, reuse resumes.
TEST(VersionReuseTest, AReaderKeepsCutVersionsIntactWhileItLives) {
  auto policy = std::make_shared<SettablePolicy>(0);
  RepHarness h(WithWalBound(kUnbounded), policy);
  SequenceNumber seq = 0;
  UpdateRoundRobin(&h, policy.get(), 1, 3, &seq);  // key0 @1, @2, @3
  // Reuse running before the reader comes.
  UpdateRoundRobin(&h, policy.get(), 1, 500, &seq);
  const SequenceNumber standing_on = seq;
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h.rep().GetIterator(nullptr));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  ASSERT_EQ(DecodeEntry(it->key()).seq, standing_on);

  const size_t before = h.arena().allocated_bytes();
  UpdateRoundRobin(&h, policy.get(), 1, 2000, &seq);
  EXPECT_GE(h.arena().allocated_bytes() - before, 1900 * UpdateSize("key0"))
      << "nothing cut while the iterator lives may be reused";
  // The version it stands on was cut long ago, and its bytes are as they were.
  const auto entry = DecodeEntry(it->key());
  EXPECT_EQ(entry.user_key, "key0");
  EXPECT_EQ(entry.seq, standing_on);
  EXPECT_EQ(entry.value, VersionValue("key0", standing_on));
  it.reset();

  const size_t after_reader = h.arena().allocated_bytes();
  UpdateRoundRobin(&h, policy.get(), 1, 2000, &seq);
  EXPECT_LT(h.arena().allocated_bytes() - after_reader, 200 * UpdateSize("key0"))
      << "the versions cut meanwhile are reused once the reader is gone";
  EXPECT_EQ(ReachableSequences(&h, "key0", seq), (std::vector<SequenceNumber>{seq, seq - 1}));
}

// A thread writing to two memtables in turn (two column families in one
// batch) reuses in each, and never one's memory in the other.
TEST(VersionReuseTest, AThreadReusesInEachRepItWritesTo) {
  auto policy_a = std::make_shared<SettablePolicy>(0);
  auto policy_b = std::make_shared<SettablePolicy>(0);
  RepHarness a(WithWalBound(kUnbounded), policy_a);
  RepHarness b(WithWalBound(kUnbounded), policy_b);
  SequenceNumber seq_a = 0;
  SequenceNumber seq_b = 0;
  UpdateRoundRobin(&a, policy_a.get(), 4, 8, &seq_a);
  UpdateRoundRobin(&b, policy_b.get(), 4, 8, &seq_b);
  constexpr int kRounds = 3000;
  for (int i = 0; i < kRounds; ++i) {
    const std::string key = "key" + std::to_string(i % 4);
    AddReadable(&a, policy_a.get(), key, kEntryValue, &seq_a);
    AddReadable(&b, policy_b.get(), key, kEntryValue, &seq_b);
  }
  // (The arena still grows: the record memory an update leaves for the
  // thread's next Allocate serves one rep at a time.)
  for (RepHarness* h : {&a, &b}) {
    EXPECT_GT(static_cast<TeksTableRep&>(h->rep()).ReusedBytes(),
              (kRounds - 200) * UpdateSize("key0") - VersionRecycler::kMaxReportEvery);
  }
  // Every key of each rep reads back its own newest value (seq_a and seq_b
  // count alike, so a foreign entry would show a sequence of the other's).
  for (int k = 0; k < 4; ++k) {
    const std::string key = "key" + std::to_string(k);
    const SequenceNumber newest = seq_a - (3 - k);
    EXPECT_EQ(ReachableSequences(&a, key, seq_a), (std::vector<SequenceNumber>{newest, newest - 4}));
    EXPECT_EQ(ReachableSequences(&b, key, seq_b), (std::vector<SequenceNumber>{newest, newest - 4}));
  }
}

// A Get keeps pointers to the merge operands it collected after the rep's
// read returns (RocksDB's MergeContext): their memory is never reused.
TEST(VersionReuseTest, MergeOperandsAreNeverReused) {
  auto policy = std::make_shared<SettablePolicy>(0);
  RepHarness h(WithWalBound(kUnbounded), policy);
  SequenceNumber seq = 0;
  auto add = [&](uint8_t type) { AddReadable(&h, policy.get(), "key0", type, &seq); };
  add(kEntryValue);
  const size_t before = h.arena().allocated_bytes();
  constexpr int kRounds = 2000;
  for (int round = 0; round < kRounds; ++round) {
    add(kEntryMerge);
    add(kEntryMerge);
    add(kEntryValue);  // cuts the two operands below it, at the next update
  }
  // The operands' versions come from the arena every time; the values'
  // mostly from reused memory.
  EXPECT_GE(h.arena().allocated_bytes() - before, 2 * kRounds * UpdateSize("key0"));
  EXPECT_LT(h.arena().allocated_bytes() - before, 2 * kRounds * UpdateSize("key0") +
                                                      kRounds * UpdateSize("key0") / 10);
}

// The WAL bound: a rep reuses at most max_wal_write_buffers - 1 write
// buffers' worth, then allocates like a rep that never reuses.
TEST(VersionReuseTest, ReuseEndsOnceTheBudgetIsSpent) {
  auto policy = std::make_shared<SettablePolicy>(0);
  RepHarness h(WithWalBound(2), policy);  // TestArena's 4 KiB blocks: a 32 KiB buffer
  constexpr size_t kBudget = 32 << 10;
  SequenceNumber seq = 0;
  UpdateRoundRobin(&h, policy.get(), 4, 8, &seq);
  const size_t before = h.arena().allocated_bytes();
  constexpr int kUpdates = 5000;
  UpdateRoundRobin(&h, policy.get(), 4, kUpdates, &seq);
  const size_t reused = static_cast<TeksTableRep&>(h.rep()).ReusedBytes();
  EXPECT_GE(reused, kBudget);
  EXPECT_LE(reused, kBudget + kBudget / 64 + UpdateSize("key0"));
  EXPECT_GE(h.arena().allocated_bytes() - before,
            kUpdates * UpdateSize("key0") - kBudget - kBudget / 64 - UpdateSize("key0"));
}

// After InsertAndDrop cuts, nothing reachable from the head leads into the
// cut part, which it hands back whole.
TEST(VersionReuseTest, ACutLeavesNoJumpIntoTheCutPart) {
  test::VersionPool versions;
  VersionChain chain(versions.Make(1));
  uint64_t visited = 0;
  Version* cut = nullptr;
  VersionChain::Spliced spliced;
  auto anyone_may_read = [](SequenceNumber, SequenceNumber) { return true; };
  // Versions pile up under an old reader, then it leaves.
  for (SequenceNumber seq = 2; seq <= 300; ++seq) {
    ASSERT_TRUE(chain.InsertAndDrop(versions.Make(seq), test::kNoFirstCopy, [] { return SequenceNumber{1}; },
                                    anyone_may_read, &visited, &cut, &spliced));
    EXPECT_EQ(cut, nullptr);
    EXPECT_EQ(spliced.count, 0);
  }
  ASSERT_TRUE(chain.InsertAndDrop(versions.Make(301), test::kNoFirstCopy, [] { return SequenceNumber{250}; },
                                  anyone_may_read, &visited, &cut, &spliced));
  ASSERT_NE(cut, nullptr);
  std::vector<SequenceNumber> cut_sequences;
  for (Version* v = cut; v != nullptr; v = v->older()) cut_sequences.push_back(v->sequence());
  ASSERT_EQ(cut_sequences.size(), 249u);
  EXPECT_EQ(cut_sequences.front(), 249u);
  EXPECT_EQ(cut_sequences.back(), 1u);
  // Every search from the head stays at or above the cutter (250): a
  // search for sequence 0 passes every version still linked, and only them.
  std::vector<SequenceNumber> linked;
  for (Version* v = chain.Newest(); v != nullptr; v = v->older()) linked.push_back(v->sequence());
  ASSERT_EQ(linked.size(), 52u);
  EXPECT_EQ(chain.Oldest()->sequence(), 250u);
  EXPECT_EQ(chain.FirstAtOrBelow(PackedTag(100, kEntryValue)), nullptr);
  // A duplicate is refused and cuts nothing.
  EXPECT_FALSE(chain.InsertAndDrop(versions.Make(301), test::kNoFirstCopy, [] { return SequenceNumber{301}; },
                                   anyone_may_read, &visited, &cut, &spliced));
  EXPECT_EQ(cut, nullptr);
}

// Snapshot stripes: readers held at 50 and 120 while versions 2..300 of a
// key arrive, each published once in (and readable: the oldest readable
// sequence follows it up to 50). The oldest reader cuts below 50; of
// the versions above it, only what some reader reads stays: 50, 120, and
// the two newest (the newest's predecessor is spliced by the next insert).
// Every version between is handed back, once, and no search from the head
// meets one: each finds the newest version at or below its sequence.
TEST(VersionReuseTest, VersionsBetweenHeldSnapshotsAreSplicedOut) {
  test::VersionPool versions;
  VersionChain chain(versions.Make(1));
  const std::set<SequenceNumber> held = {50, 120};
  SequenceNumber published = 1;
  auto may_read_between = [&](SequenceNumber lo, SequenceNumber hi) {
    auto it = held.lower_bound(lo);
    return hi > published || (it != held.end() && *it < hi);
  };
  uint64_t visited = 0;
  std::set<SequenceNumber> spliced_sequences;
  for (SequenceNumber seq = 2; seq <= 300; ++seq) {
    Version* cut = nullptr;
    VersionChain::Spliced spliced;
    ASSERT_TRUE(chain.InsertAndDrop(versions.Make(seq), test::kNoFirstCopy,
                                    [&] { return std::min<SequenceNumber>(published, 50); },
                                    may_read_between, &visited, &cut, &spliced));
    for (int i = 0; i < spliced.count; ++i) {
      const SequenceNumber gone = spliced.versions[i]->sequence();
      EXPECT_TRUE(spliced_sequences.insert(gone).second);
      EXPECT_EQ(held.count(gone), 0u);
    }
    published = seq;
  }
  std::vector<SequenceNumber> linked;
  for (Version* v = chain.Newest(); v != nullptr; v = v->older()) linked.push_back(v->sequence());
  EXPECT_EQ(linked, (std::vector<SequenceNumber>{300, 299, 120, 50}));
  EXPECT_EQ(spliced_sequences.size(), 298u - 51u + 1u - 1u);  // 51..298 but 120
  for (SequenceNumber seq = 50; seq <= 300; ++seq) {
    const Version* v = chain.FirstAtOrBelow(MaxPackedTagOf(seq));
    ASSERT_NE(v, nullptr);
    const SequenceNumber want = seq >= 300 ? 300 : seq >= 299 ? 299 : seq >= 120 ? 120 : 50;
    EXPECT_EQ(v->sequence(), want) << "a search at " << seq;
  }
}

// Rounds of updates over more keys than a recycler bin keeps ready memory
// for (VersionRecycler::kMaxReady): once the first rounds' versions are
// cut, each round's updates reuse the round before's memory, every version
// the same size. (First updates without a jump link, smaller than the
// rest, once filled the bins with memory no later update fits.)
TEST(VersionReuseTest, RoundsOverManyKeysReuseEveryRoundsMemory) {
  const int keys = static_cast<int>(VersionRecycler::kMaxReady) + 5000;
  auto policy = std::make_shared<SettablePolicy>(0);
  RepHarness h(WithWalBound(kUnbounded), policy);
  SequenceNumber seq = 0;
  UpdateRoundRobin(&h, policy.get(), keys, 4 * keys, &seq);
  const size_t before = h.arena().allocated_bytes();
  UpdateRoundRobin(&h, policy.get(), keys, keys, &seq);
  EXPECT_LT(h.arena().allocated_bytes() - before, keys * UpdateSize("key0") / 10)
      << "a round of updates took new memory";
}

// Values that change size: the versions cut of the old size fill the
// bin's ready lists (kMaxReady) while updates ask for the new one; memory
// of the new size still gets in, so rounds of the new size reuse it.
TEST(VersionReuseTest, UpdatesReuseMemoryAfterTheirValuesChangeSize) {
  const int keys = static_cast<int>(VersionRecycler::kMaxReady) + 5000;
  auto policy = std::make_shared<SettablePolicy>(0);
  RepHarness h(WithWalBound(kUnbounded), policy);
  SequenceNumber seq = 0;
  auto round = [&](size_t value_size) {
    for (int k = 0; k < keys; ++k) {
      ++seq;
      ASSERT_TRUE(
          h.Add("key" + std::to_string(k), seq, kEntryValue, std::string(value_size, 'v')));
      policy->Set(seq);
    }
  };
  for (int r = 0; r < 3; ++r) ASSERT_NO_FATAL_FAILURE(round(20));
  for (int r = 0; r < 4; ++r) ASSERT_NO_FATAL_FAILURE(round(60));
  const size_t before = h.arena().allocated_bytes();
  ASSERT_NO_FATAL_FAILURE(round(60));
  const size_t per_update =
      Version::AllocationSize(EncodeEntry("key0", 1, kEntryValue, std::string(60, 'v')).size());
  EXPECT_LT(h.arena().allocated_bytes() - before, keys * per_update / 10)
      << "a round of the new size took new memory";
}

// The same through a rep: a snapshot held from the first round on no
// longer keeps every later version, so updates reuse memory as without
// it, the snapshot reads its round and the newest reads the newest.
TEST(VersionReuseTest, UpdatesUnderAHeldSnapshotReuseTheVersionsBetween) {
  constexpr int kKeys = 10;
  constexpr int kUpdates = 20000;
  auto policy = std::make_shared<SettablePolicy>(0);
  RepHarness h(WithWalBound(kUnbounded), policy);
  SequenceNumber seq = 0;
  UpdateRoundRobin(&h, policy.get(), kKeys, kKeys, &seq);
  const SequenceNumber snapshot = seq;
  policy->Pin(snapshot);
  policy->Set(snapshot);
  const size_t before = h.arena().allocated_bytes();
  for (int i = 0; i < kUpdates; ++i) {
    ++seq;
    ASSERT_TRUE(h.Add("key" + std::to_string(i % kKeys), seq, kEntryValue,
                      VersionValue("key" + std::to_string(i % kKeys), seq)));
    policy->SetPublished(seq);
  }
  EXPECT_LT(h.arena().allocated_bytes() - before, kUpdates * UpdateSize("key0") / 20);
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = "key" + std::to_string(k);
    const SequenceNumber newest = seq - (kKeys - 1 - k);
    const SequenceNumber at_snapshot = snapshot - (kKeys - 1 - k);
    EXPECT_EQ(ReachableSequences(&h, key, seq),
              (std::vector<SequenceNumber>{newest, newest - kKeys, at_snapshot}));
    EXPECT_EQ(ReachableSequences(&h, key, snapshot), (std::vector<SequenceNumber>{at_snapshot}));
  }
  // Released, the snapshot's versions go with the next update of each key,
  // or the one after where the next one's drop attempt shares the memo's
  // tag with the last (1 in 64; version_chain.h).
  policy->Unpin(snapshot);
  policy->Set(seq);
  UpdateRoundRobin(&h, policy.get(), kKeys, 2 * kKeys, &seq);
  for (int k = 0; k < kKeys; ++k) {
    const SequenceNumber newest = seq - (kKeys - 1 - k);
    EXPECT_EQ(ReachableSequences(&h, "key" + std::to_string(k), seq),
              (std::vector<SequenceNumber>{newest, newest - kKeys}));
  }
}

}  // namespace
}  // namespace teksdb
