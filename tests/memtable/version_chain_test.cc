// Unit tests of VersionChain (memtable/version_chain.h): sorted insertion
// whatever the arrival order, duplicate refusal, sequence-gated lookup,
// dropping only what is shadowed by a version every reader sees, the same
// drops as a memo-less model, and drop attempts that visit O(1) versions per
// update (amortized) whatever blocks the cut.
#include "version_chain.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"

namespace teksdb {
namespace {

using Versions = test::VersionPool;

// One drop attempt on `chain`, which keeps its own memo.
bool Drop(VersionChain* chain, SequenceNumber oldest_readable) {
  uint64_t visited = 0;
  return chain->DropShadowed(oldest_readable, &visited);
}

std::vector<SequenceNumber> Sequences(const VersionChain& chain) {
  std::vector<SequenceNumber> out;
  for (Version* v = chain.Newest(); v != nullptr; v = v->older()) out.push_back(v->sequence());
  return out;
}

TEST(VersionChainTest, KeepsNewestFirstWhateverTheArrivalOrder) {
  Versions versions;
  VersionChain chain(versions.Make(5));
  for (SequenceNumber seq : {9, 2, 7, 1, 12, 6}) ASSERT_TRUE(chain.Insert(versions.Make(seq)));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{12, 9, 7, 6, 5, 2, 1}));
  EXPECT_EQ(chain.Oldest()->sequence(), 1u);
}

TEST(VersionChainTest, RefusesAnExactDuplicateSequence) {
  Versions versions;
  VersionChain chain(versions.Make(5));
  ASSERT_TRUE(chain.Insert(versions.Make(8)));
  EXPECT_FALSE(chain.Insert(versions.Make(8, kEntryMerge)));
  EXPECT_FALSE(chain.Insert(versions.Make(5)));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{8, 5}));
}

TEST(VersionChainTest, FirstAtOrBelowNeverReturnsANewerVersion) {
  Versions versions;
  VersionChain chain(versions.Make(10));
  ASSERT_TRUE(chain.Insert(versions.Make(20)));
  ASSERT_TRUE(chain.Insert(versions.Make(30)));
  auto at = [&](SequenceNumber seq) {
    Version* v = chain.FirstAtOrBelow(MaxPackedTagOf(seq));
    return v == nullptr ? SequenceNumber{0} : v->sequence();
  };
  EXPECT_EQ(at(9), 0u);
  EXPECT_EQ(at(10), 10u);
  EXPECT_EQ(at(29), 20u);
  EXPECT_EQ(at(1000), 30u);
}

TEST(VersionChainTest, NewerThanFindsThePredecessorBySequence) {
  Versions versions;
  Version* v10 = versions.Make(10);
  VersionChain chain(v10);
  Version* v20 = versions.Make(20);
  ASSERT_TRUE(chain.Insert(v20));
  ASSERT_TRUE(chain.Insert(versions.Make(30)));
  EXPECT_EQ(chain.NewerThan(v10), v20);
  EXPECT_EQ(chain.NewerThan(v20)->sequence(), 30u);
  EXPECT_EQ(chain.NewerThan(chain.Newest()), nullptr);
}

TEST(VersionChainTest, DropsOnlyBelowTheNewestNonMergeVersionAllReadersSee) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2)));
  ASSERT_TRUE(chain.Insert(versions.Make(3, kEntryMerge)));
  ASSERT_TRUE(chain.Insert(versions.Make(4, kEntryMerge)));
  ASSERT_TRUE(chain.Insert(versions.Make(5)));
  // Readers at >= 4 need 4, 3 (merge operands) and their base 2.
  EXPECT_TRUE(Drop(&chain, 4));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{5, 4, 3, 2}));
  EXPECT_FALSE(Drop(&chain, 4));
  // Nobody reads below 5: only 5 is needed.
  EXPECT_TRUE(Drop(&chain, 5));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{5}));
}

TEST(VersionChainTest, ADeletionShadowsEverythingOlder) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2, kEntryDeletion)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  ASSERT_TRUE(chain.Insert(versions.Make(4, kEntryDeletion)));
  EXPECT_TRUE(Drop(&chain, 4));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{4}));
}

// A SingleDelete cancels one older Put, maybe one already flushed: with
// v1 flushed and SD2, Put3, SD4 here, dropping SD2 (shadowed by Put3 for
// readers) would let flush cancel SD4 against Put3 and resurrect v1.
TEST(VersionChainTest, SingleDeletionsAreNeverDroppedNorCutBelow) {
  Versions versions;
  VersionChain chain(versions.Make(2, kEntrySingleDeletion));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  EXPECT_FALSE(Drop(&chain, 3));
  ASSERT_TRUE(chain.Insert(versions.Make(4, kEntrySingleDeletion)));
  EXPECT_FALSE(Drop(&chain, 4));
  ASSERT_TRUE(chain.Insert(versions.Make(5, kEntryDeletion)));
  EXPECT_FALSE(Drop(&chain, 5));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{5, 4, 3, 2}));
}

// A later SingleDelete may cancel a Put; a deletion below it must then
// still be there.
TEST(VersionChainTest, APutDoesNotCutADeletionBelowIt) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2, kEntryDeletion)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  EXPECT_FALSE(Drop(&chain, 3));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{3, 2, 1}));
}

TEST(VersionChainTest, NothingIsDroppedWhileAReaderIsOlderThanTheShadow) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(7)));
  EXPECT_FALSE(Drop(&chain, 6));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{7, 1}));
}

TEST(VersionChainTest, AReaderPastTheCutFinishesOnTheOldPath) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  Version* reader_at = chain.Newest()->older();  // a reader positioned on 2
  ASSERT_TRUE(Drop(&chain, 3));
  ASSERT_NE(reader_at->older(), nullptr);
  EXPECT_EQ(reader_at->older()->sequence(), 1u);
}

// Updates of one key, each followed by the drop attempt its insert makes,
// with the oldest readable sequence `oldest(seq)` at the update of `seq`.
// Returns the versions the attempts visited.
template <typename Oldest>
uint64_t UpdateHotKey(Versions* versions, VersionChain* chain,
                      SequenceNumber first, SequenceNumber last, uint8_t type, Oldest oldest) {
  uint64_t visited = 0;
  for (SequenceNumber seq = first; seq <= last; ++seq) {
    EXPECT_TRUE(chain->Insert(versions->Make(seq, type)));
    chain->DropShadowed(oldest(seq), &visited);
  }
  return visited;
}

constexpr SequenceNumber kHotUpdates = 100000;

TEST(VersionChainTest, AHeldOldSequenceMakesLaterAttemptsVisitNothing) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  const uint64_t visited = UpdateHotKey(&versions, &chain, 2, kHotUpdates + 1,
                                        kEntryValue, [](SequenceNumber) { return 1; });
  EXPECT_LE(visited, 4u);
  EXPECT_EQ(Sequences(chain).size(), kHotUpdates + 1);
  EXPECT_EQ(chain.FirstAtOrBelow(PackedTag(1, kEntryValue))->sequence(), 1u);
  // Once the old reader is gone, one attempt cuts everything at once.
  EXPECT_TRUE(Drop(&chain, kHotUpdates + 1));
  EXPECT_EQ(Sequences(chain), std::vector<SequenceNumber>{kHotUpdates + 1});
}

TEST(VersionChainTest, UpdatesAboveADeletionVisitEachVersionOnce) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2, kEntryDeletion)));
  const uint64_t visited =
      UpdateHotKey(&versions, &chain, 3, kHotUpdates + 2, kEntryValue,
                   [](SequenceNumber seq) { return seq - 1; });
  EXPECT_LE(visited, 4 * kHotUpdates);
  // The deletion cut the Put below it; a Put never cuts a deletion below
  // it, so every later version stays.
  EXPECT_EQ(Sequences(chain).size(), kHotUpdates + 1);
  EXPECT_EQ(Sequences(chain).back(), 2u);
}

TEST(VersionChainTest, UpdatesAboveASingleDeletionVisitEachVersionOnce) {
  Versions versions;
  VersionChain chain(versions.Make(1, kEntrySingleDeletion));
  const uint64_t visited =
      UpdateHotKey(&versions, &chain, 2, kHotUpdates + 1, kEntryDeletion,
                   [](SequenceNumber seq) { return seq - 1; });
  EXPECT_LE(visited, 4 * kHotUpdates);
  EXPECT_EQ(Sequences(chain).size(), kHotUpdates + 1);
}

TEST(VersionChainTest, MergeOperandsAreWalkedOnceAsTheyBecomeReadable) {
  Versions versions;
  VersionChain chain(versions.Make(1, kEntryMerge));
  const uint64_t visited =
      UpdateHotKey(&versions, &chain, 2, kHotUpdates + 1, kEntryMerge,
                   [](SequenceNumber seq) { return seq - 1; });
  EXPECT_LE(visited, 4 * kHotUpdates);
  EXPECT_EQ(Sequences(chain).size(), kHotUpdates + 1);
  // A Put over them lets them all go.
  ASSERT_TRUE(chain.Insert(versions.Make(kHotUpdates + 2)));
  EXPECT_TRUE(Drop(&chain, kHotUpdates + 2));
  EXPECT_EQ(Sequences(chain), std::vector<SequenceNumber>{kHotUpdates + 2});
}

TEST(VersionChainTest, AnAttemptWithAnOlderSequenceThanTheLastCutsNothingNew) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2, kEntryDeletion)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  ASSERT_TRUE(chain.Insert(versions.Make(4)));
  EXPECT_FALSE(Drop(&chain, 4));  // a Put above a deletion
  // A writer that read an older oldest-readable sequence must not act on it.
  EXPECT_FALSE(Drop(&chain, 2));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{4, 3, 2, 1}));
  ASSERT_TRUE(chain.Insert(versions.Make(5, kEntryDeletion)));
  EXPECT_TRUE(Drop(&chain, 5));
  EXPECT_EQ(Sequences(chain), std::vector<SequenceNumber>{5});
}

// The memo keeps a 6-bit tag of the last attempt's sequence (the top bits of
// its Fibonacci hash, version_chain.h): a later value with the same tag is
// skipped as if it were the same, which only delays the drop to the next
// attempt with another value.
TEST(VersionChainTest, ASequenceSharingTheLastAttemptsTagOnlyDelaysTheDrop) {
  auto tag = [](SequenceNumber seq) { return (seq * 0x9E3779B97F4A7C15ULL) >> 58; };
  SequenceNumber same_tag = 21;
  while (tag(same_tag) != tag(2)) ++same_tag;
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2)));
  EXPECT_TRUE(Drop(&chain, 2));
  ASSERT_TRUE(chain.Insert(versions.Make(20)));
  ASSERT_TRUE(chain.Insert(versions.Make(same_tag)));
  EXPECT_FALSE(Drop(&chain, same_tag));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{same_tag, 20, 2}));
  EXPECT_TRUE(Drop(&chain, same_tag + 1)) << "consecutive sequences never share a tag";
  EXPECT_EQ(Sequences(chain), std::vector<SequenceNumber>{same_tag});
}

// The rule DropShadowed applies, on a plain list, as it was before the
// memo: what the chain must hold after each attempt.
void ModelDrop(std::vector<std::pair<SequenceNumber, uint8_t>>* model, SequenceNumber oldest) {
  size_t c = 0;
  while (c < model->size() &&
         ((*model)[c].first > oldest || !EndsVersionSearch((*model)[c].second))) {
    ++c;
  }
  if (c >= model->size()) return;
  const uint8_t type = (*model)[c].second;
  if (!IsPutLike(type) && !IsDeleteLike(type)) return;
  for (size_t i = c + 1; i < model->size(); ++i) {
    const uint8_t below = (*model)[i].second;
    if (below == kEntrySingleDeletion) return;
    if (IsPutLike(type) && IsDeleteLike(below)) return;
  }
  model->resize(c + 1);
}

TEST(VersionChainTest, DropsExactlyWhatTheMemolessRuleDropsOnRandomHistories) {
  const uint8_t kTypes[] = {kEntryValue, kEntryValue, kEntryValue, kEntryMerge,
                            kEntryMerge, kEntryDeletion, kEntrySingleDeletion};
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    Versions versions;
    VersionChain chain(versions.Make(1, kTypes[rng() % 7]));
    std::vector<std::pair<SequenceNumber, uint8_t>> model = {{1, chain.Newest()->view().type()}};
    SequenceNumber oldest = 0;
    for (SequenceNumber seq = 2; seq <= 300; ++seq) {
      const uint8_t type = kTypes[rng() % 7];
      ASSERT_TRUE(chain.Insert(versions.Make(seq, type)));
      model.insert(model.begin(), {seq, type});
      // The oldest readable sequence stalls (a reader holds it) or jumps.
      if (rng() % 3 == 0) oldest += rng() % (seq - oldest);
      uint64_t visited = 0;
      chain.DropShadowed(oldest, &visited);
      ModelDrop(&model, oldest);
      std::vector<SequenceNumber> want;
      for (const auto& m : model) want.push_back(m.first);
      ASSERT_EQ(Sequences(chain), want) << "seed " << seed << " at seq " << seq;
    }
  }
}

}  // namespace
}  // namespace teksdb
