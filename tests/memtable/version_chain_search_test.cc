// Tests of positioning inside a VersionChain through its jump links
// (memtable/version_chain.h): on chains of 10^5 versions, every search
// (FirstAtOrBelow, NewerThan, Oldest) gives what a walk along the links
// gives, whatever the insertion order, and costs O(log versions) steps
// (plus how far out of order versions arrived), and a reverse walk keeping a
// ReverseFinger O(1) amortized per step,
// counted with VersionChain::SearchStepsOnThisThread; after cuts, searches
// at or above the cutter still match the links, and a reverse walk from an
// unlinked version climbs in order; a record answers "below every version"
// (DBIter's reseek) without a step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "key_record.h"
#include "test_support.h"
#include "version_chain.h"

namespace teksdb {
namespace {

constexpr SequenceNumber kVersions = 100000;

uint64_t Tag(SequenceNumber seq, uint8_t type = 0xff) { return PackedTag(seq, type); }

// The newest version with a tag <= `tag`, walking the links.
const Version* WalkTo(const VersionChain& chain, uint64_t tag) {
  const Version* v = chain.Newest();
  while (v != nullptr && v->packed_tag() > tag) v = v->older();
  return v;
}

// The version just newer than `seq` on the links, or nullptr.
const Version* WalkToNewerThan(const VersionChain& chain, SequenceNumber seq) {
  const Version* newer = nullptr;
  for (const Version* v = chain.Newest(); v != nullptr && v->sequence() > seq; v = v->older()) {
    newer = v;
  }
  return newer;
}

// Sequences 1..n in the order writers of one key would link them: in order,
// except that within windows of `window` they arrive shuffled (writers
// running at once).
std::vector<SequenceNumber> ArrivalOrder(SequenceNumber n, size_t window, std::mt19937_64& rng) {
  std::vector<SequenceNumber> order;
  for (SequenceNumber seq = 1; seq <= n; ++seq) order.push_back(seq);
  for (size_t at = 0; at < order.size(); at += window) {
    std::shuffle(order.begin() + at, order.begin() + std::min(order.size(), at + window), rng);
  }
  return order;
}

// The bound a search must stay within on a chain of `versions` whose
// versions arrived up to `window` out of order: O(log versions + window)
// (a version linked below newer ones shares their jumps' structure, so a
// search may step through those one by one).
uint64_t SearchBound(uint64_t versions, size_t window = 1) {
  return static_cast<uint64_t>(3 * std::log2(static_cast<double>(versions)) + 8 + 3 * window);
}

// A chain of kVersions versions whose arrival was shuffled in windows of
// GetParam().
class LongChainTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    const std::vector<SequenceNumber> order = ArrivalOrder(kVersions, GetParam(), rng_);
    chain_ = std::make_unique<VersionChain>(versions_.Make(order[0]));
    for (size_t i = 1; i < order.size(); ++i) ASSERT_TRUE(chain_->Insert(versions_.Make(order[i])));
  }
  std::mt19937_64 rng_{GetParam()};
  test::VersionPool versions_;
  std::unique_ptr<VersionChain> chain_;
};

TEST_P(LongChainTest, SearchesMatchTheLinksInLogarithmicSteps) {
  VersionChain& chain = *chain_;
  std::mt19937_64& rng = rng_;

  uint64_t worst = 0;
  for (int i = 0; i < 1000; ++i) {
    const SequenceNumber seq = rng() % (kVersions + 2);
    // Above, below and exactly at a version's own tag.
    const uint8_t type = i % 3 == 0 ? 0xff : i % 3 == 1 ? 0 : kEntryValue;
    const uint64_t before = VersionChain::SearchStepsOnThisThread();
    const Version* got = chain.FirstAtOrBelow(Tag(seq, type));
    worst = std::max(worst, VersionChain::SearchStepsOnThisThread() - before);
    ASSERT_EQ(got, WalkTo(chain, Tag(seq, type))) << "at seq " << seq;

    const Version* from = WalkTo(chain, Tag(1 + rng() % kVersions));
    const uint64_t before_newer = VersionChain::SearchStepsOnThisThread();
    const Version* newer = chain.NewerThan(from);
    worst = std::max(worst, VersionChain::SearchStepsOnThisThread() - before_newer);
    ASSERT_EQ(newer, WalkToNewerThan(chain, from->sequence()));
  }
  const uint64_t before = VersionChain::SearchStepsOnThisThread();
  ASSERT_EQ(chain.Oldest()->sequence(), 1u);
  worst = std::max(worst, VersionChain::SearchStepsOnThisThread() - before);
  EXPECT_LE(worst, SearchBound(kVersions, GetParam())) << "steps of the costliest search";
}

// A reverse walk keeping a ReverseFinger, as an iterator does: every
// version in order, in O(1) amortized steps per version.
TEST_P(LongChainTest, AReverseWalkWithAFingerTakesConstantStepsPerVersion) {
  VersionChain& chain = *chain_;
  ReverseFinger finger;
  const uint64_t before = VersionChain::SearchStepsOnThisThread();
  SequenceNumber expect = 1;
  for (const Version* v = chain.Oldest(); v != nullptr; v = chain.NewerThan(v, &finger)) {
    ASSERT_EQ(v->sequence(), expect);
    ++expect;
  }
  EXPECT_EQ(expect, kVersions + 1);
  EXPECT_LE(VersionChain::SearchStepsOnThisThread() - before, 4 * kVersions + SearchBound(kVersions));
}

// Window 1: in sequence order; larger windows: that many writers racing.
INSTANTIATE_TEST_SUITE_P(ArrivalWindows, LongChainTest, ::testing::Values(1, 4, 16, 64));

TEST(VersionChainSearchTest, AReverseWalkClimbsEveryVersionInOrder) {
  test::VersionPool versions;
  VersionChain chain(versions.Make(1));
  for (SequenceNumber seq = 2; seq <= kVersions; ++seq) ASSERT_TRUE(chain.Insert(versions.Make(seq)));
  const uint64_t before = VersionChain::SearchStepsOnThisThread();
  SequenceNumber expect = 1;
  for (const Version* v = chain.Oldest(); v != nullptr; v = chain.NewerThan(v)) {
    ASSERT_EQ(v->sequence(), expect);
    ++expect;
  }
  EXPECT_EQ(expect, kVersions + 1);
  EXPECT_LE(VersionChain::SearchStepsOnThisThread() - before, kVersions * SearchBound(kVersions));
}

// Hot-key updates with drop attempts at a sometimes stalled, sometimes
// advancing oldest readable sequence, mixed types: every search at or
// above the oldest readable sequence matches the links, and a reader left
// on a version that was since cut still climbs in order to the newest.
TEST(VersionChainSearchTest, SearchesAtOrAboveTheOldestReaderMatchTheLinksAcrossCuts) {
  const uint8_t kTypes[] = {kEntryValue, kEntryValue, kEntryMerge, kEntryDeletion};
  std::mt19937_64 rng(7);
  test::VersionPool versions;
  VersionChain chain(versions.Make(1));
  SequenceNumber oldest = 1;
  std::vector<const Version*> held;  // versions readers stood on
  for (SequenceNumber seq = 2; seq <= 20000; ++seq) {
    ASSERT_TRUE(chain.Insert(versions.Make(seq, kTypes[rng() % 4])));
    if (rng() % 50 == 0) oldest += rng() % (seq - oldest);
    uint64_t visited = 0;
    chain.DropShadowed(oldest, &visited);
    if (rng() % 500 == 0) held.push_back(chain.Newest());
    const SequenceNumber at = oldest + rng() % (seq - oldest + 1);
    ASSERT_EQ(chain.FirstAtOrBelow(Tag(at)), WalkTo(chain, Tag(at))) << "at " << at;
  }
  ASSERT_GT(held.size(), 10u);
  for (const Version* from : held) {
    SequenceNumber last = from->sequence();
    const Version* v = chain.NewerThan(from);
    for (; v != nullptr; v = chain.NewerThan(v)) {
      ASSERT_GT(v->sequence(), last);
      last = v->sequence();
    }
    EXPECT_EQ(last, chain.Newest()->sequence());
  }
}

TEST(VersionChainSearchTest, ARecordAnswersBelowEveryVersionWithoutAStep) {
  test::TestArena arena;
  KeyRecord* record = test::MakeRecord(&arena, "k", 5);
  for (SequenceNumber seq = 6; seq < 10000; ++seq) {
    KeyRecord* update = test::MakeRecord(&arena, "k", seq);
    ASSERT_TRUE(record->versions().Insert(update->UseAsUpdate()));
  }
  const uint64_t before = VersionChain::SearchStepsOnThisThread();
  EXPECT_EQ(record->FirstAtOrBelow(0), nullptr);
  EXPECT_EQ(record->FirstAtOrBelow(Tag(4)), nullptr);
  EXPECT_EQ(VersionChain::SearchStepsOnThisThread() - before, 0u);
  // With a version linked below the first one, the answer needs a search.
  KeyRecord* older = test::MakeRecord(&arena, "k", 2);
  ASSERT_TRUE(record->versions().Insert(older->UseAsUpdate(), test::CopiesIn(&arena)));
  EXPECT_EQ(record->FirstAtOrBelow(Tag(4)), older->first_version());
  EXPECT_EQ(record->FirstAtOrBelow(Tag(1)), nullptr);
  EXPECT_EQ(record->FirstAtOrBelow(Tag(5000))->sequence(), 5000u);
}

}  // namespace
}  // namespace teksdb
