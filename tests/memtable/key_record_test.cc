// Tests of KeyRecord's three-word header (memtable/key_record.h): the
// record's state, linked flag and height live in the owner bits of its first
// version's link, and the chain's drop memo in those of its head
// (version_chain.h, Link words). Every way a link changes (an insert above or
// below the first version, a cut below it, the settled mark, a drop
// attempt's memo, an entry turned into another key's update) must leave the
// other parts of the word as they were.
#include "key_record.h"

#include <gtest/gtest.h>

#include <vector>

#include "test_support.h"

namespace teksdb {
namespace {

std::vector<SequenceNumber> Sequences(const KeyRecord& record) {
  std::vector<SequenceNumber> out;
  for (Version* v = record.versions().Newest(); v != nullptr; v = v->older()) {
    out.push_back(v->sequence());
  }
  return out;
}

// Another allocation's entry for "k" at `seq`, as an update.
Version* Update(test::TestArena* arena, SequenceNumber seq) {
  return test::MakeRecord(arena, "k", seq)->UseAsUpdate();
}

TEST(KeyRecordTest, TheHeaderIsThreeWords) {
  EXPECT_EQ(sizeof(KeyRecord), 3 * sizeof(void*));
  EXPECT_EQ(KeyRecord::AllocationSize(1, 40), 24u + 40u);
  EXPECT_EQ(KeyRecord::AllocationSize(3, 40), 2 * 8u + 24u + 40u);
}

TEST(KeyRecordTest, EveryHeightFromOneToTheMaximumIsKept) {
  test::TestArena arena;
  for (int height = 1; height <= KeyRecord::kMaxHeight; ++height) {
    char* memory = arena.AllocateAligned(KeyRecord::AllocationSize(height, 0));
    KeyRecord* record = KeyRecord::Create(memory, height);
    EXPECT_EQ(record->height(), height);
    EXPECT_EQ(record->state(), KeyRecord::kPending);
    EXPECT_FALSE(record->linked());
    EXPECT_EQ(record->allocation(), memory);
  }
}

TEST(KeyRecordTest, StateLinkedAndHeightSurviveEveryChangeOfTheChain) {
  test::TestArena arena;
  KeyRecord* record = test::MakeRecord(&arena, "k", 10);
  const int height = record->height();
  record->set_state(KeyRecord::kLive);
  record->set_linked();
  auto expect_intact = [&](const char* after) {
    EXPECT_EQ(record->state(), KeyRecord::kLive) << after;
    EXPECT_TRUE(record->linked()) << after;
    EXPECT_EQ(record->height(), height) << after;
    EXPECT_EQ(record->user_key().ToString(), "k") << after;
  };

  ASSERT_TRUE(record->versions().Insert(Update(&arena, 20)));
  expect_intact("an insert above the first version");
  ASSERT_TRUE(record->versions().Insert(Update(&arena, 5)));
  ASSERT_TRUE(record->versions().Insert(Update(&arena, 7)));
  expect_intact("inserts below it (its own link changes)");
  EXPECT_EQ(Sequences(*record), (std::vector<SequenceNumber>{20, 10, 7, 5}));

  uint64_t visited = 0;
  // Oldest readable 12: the first version is the cutter, its link is cut.
  EXPECT_TRUE(record->versions().DropShadowed(12, &visited));
  expect_intact("a cut below the first version and its settled mark");
  EXPECT_EQ(Sequences(*record), (std::vector<SequenceNumber>{20, 10}));

  ASSERT_TRUE(record->versions().Insert(Update(&arena, 30)));
  EXPECT_FALSE(record->versions().DropShadowed(12, &visited));  // skipped: same value
  EXPECT_TRUE(record->versions().DropShadowed(30, &visited));
  expect_intact("the mark moving off the first version, cut away");
  EXPECT_EQ(Sequences(*record), (std::vector<SequenceNumber>{30}));
  EXPECT_EQ(record->versions().Newest()->sequence(), 30u);
}

TEST(KeyRecordTest, ARecordTurnedIntoAnUpdateKeepsTheStateOthersMayRead) {
  test::TestArena arena;
  KeyRecord* owner = test::MakeRecord(&arena, "k", 10);
  KeyRecord* loser = test::MakeRecord(&arena, "k", 11);
  const int height = loser->height();
  loser->set_state(KeyRecord::kRemoved);
  ASSERT_TRUE(owner->versions().Insert(loser->UseAsUpdate()));
  EXPECT_EQ(loser->state(), KeyRecord::kRemoved);
  EXPECT_EQ(loser->height(), height);
  EXPECT_EQ(Sequences(*owner), (std::vector<SequenceNumber>{11, 10}));
}

}  // namespace
}  // namespace teksdb
