// Unit tests of VersionChain (memtable/version_chain.h): sorted insertion
// whatever the arrival order, duplicate refusal, sequence-gated lookup, and
// dropping only what is shadowed by a version every reader sees.
#include "version_chain.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_support.h"

namespace teksdb {
namespace {

// Owns Versions whose entries are real memtable entries for one user key.
class Versions {
 public:
  Version* Make(SequenceNumber seq, uint8_t type = kEntryValue) {
    std::string entry;
    const std::string ikey = test::InternalKey("k", seq, type);
    entry.push_back(static_cast<char>(ikey.size()));
    entry += ikey;
    entry.push_back(0);  // empty value
    auto memory = std::make_unique<char[]>(sizeof(Version) + entry.size());
    auto* v = new (memory.get()) Version();
    std::memcpy(v->mutable_entry(), entry.data(), entry.size());
    memory_.push_back(std::move(memory));
    return v;
  }

 private:
  std::vector<std::unique_ptr<char[]>> memory_;
};

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
    Version* v = chain.FirstAtOrBelow((seq << 8) | 0xff);
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
  EXPECT_TRUE(chain.DropShadowed(4));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{5, 4, 3, 2}));
  EXPECT_FALSE(chain.DropShadowed(4));
  // Nobody reads below 5: only 5 is needed.
  EXPECT_TRUE(chain.DropShadowed(5));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{5}));
}

TEST(VersionChainTest, ADeletionShadowsEverythingOlder) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2, kEntryDeletion)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  ASSERT_TRUE(chain.Insert(versions.Make(4, kEntryDeletion)));
  EXPECT_TRUE(chain.DropShadowed(4));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{4}));
}

// A SingleDelete cancels one older Put, maybe one already flushed: with
// v1 flushed and SD2, Put3, SD4 here, dropping SD2 (shadowed by Put3 for
// readers) would let flush cancel SD4 against Put3 and resurrect v1.
TEST(VersionChainTest, SingleDeletionsAreNeverDroppedNorCutBelow) {
  Versions versions;
  VersionChain chain(versions.Make(2, kEntrySingleDeletion));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  EXPECT_FALSE(chain.DropShadowed(3));
  ASSERT_TRUE(chain.Insert(versions.Make(4, kEntrySingleDeletion)));
  EXPECT_FALSE(chain.DropShadowed(4));
  ASSERT_TRUE(chain.Insert(versions.Make(5, kEntryDeletion)));
  EXPECT_FALSE(chain.DropShadowed(5));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{5, 4, 3, 2}));
}

// A later SingleDelete may cancel a Put; a deletion below it must then
// still be there.
TEST(VersionChainTest, APutDoesNotCutADeletionBelowIt) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2, kEntryDeletion)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  EXPECT_FALSE(chain.DropShadowed(3));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{3, 2, 1}));
}

TEST(VersionChainTest, NothingIsDroppedWhileAReaderIsOlderThanTheShadow) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(7)));
  EXPECT_FALSE(chain.DropShadowed(6));
  EXPECT_EQ(Sequences(chain), (std::vector<SequenceNumber>{7, 1}));
}

TEST(VersionChainTest, AReaderPastTheCutFinishesOnTheOldPath) {
  Versions versions;
  VersionChain chain(versions.Make(1));
  ASSERT_TRUE(chain.Insert(versions.Make(2)));
  ASSERT_TRUE(chain.Insert(versions.Make(3)));
  Version* reader_at = chain.Newest()->older();  // a reader positioned on 2
  ASSERT_TRUE(chain.DropShadowed(3));
  ASSERT_NE(reader_at->older(), nullptr);
  EXPECT_EQ(reader_at->older()->sequence(), 1u);
}

}  // namespace
}  // namespace teksdb
