// Tests of reusing the memory of dropped versions (version_recycler.h,
// reader_epochs.h, VersionChain::InsertAndDrop): updates under a drop policy
// stop growing the arena, in every rep a thread writes to, a reader that may
// stand on a cut version keeps its bytes intact for as long as it lives,
// merge operands are never reused, the budget that bounds the WAL ends
// reuse, and after a cut no jump leads into the cut part.
#include <gtest/gtest.h>

#include <memory>
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
  // Versions pile up under an old reader, then it leaves.
  for (SequenceNumber seq = 2; seq <= 300; ++seq) {
    ASSERT_TRUE(chain.InsertAndDrop(versions.Make(seq), [] { return SequenceNumber{1}; },
                                    &visited, &cut));
    EXPECT_EQ(cut, nullptr);
  }
  ASSERT_TRUE(chain.InsertAndDrop(versions.Make(301), [] { return SequenceNumber{250}; },
                                  &visited, &cut));
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
  EXPECT_FALSE(chain.InsertAndDrop(versions.Make(301), [] { return SequenceNumber{301}; },
                                   &visited, &cut));
  EXPECT_EQ(cut, nullptr);
}

}  // namespace
}  // namespace teksdb
