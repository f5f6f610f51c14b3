// Tests of KeyRecord's two-word header (memtable/key_record.h): the chain's
// head is also its first version's link word, whose owner bits hold the
// record's state, linked flag and height beside the chain's drop memo
// (version_chain.h, Link words and First versions). Every way the word
// changes (an insert above the first version, one below it that replaces it
// by a copy, a cut, the settled mark, a drop attempt's memo, an entry turned
// into another key's update) must leave the other parts of it as they were.
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

TEST(KeyRecordTest, TheHeaderIsTwoWords) {
  EXPECT_EQ(sizeof(KeyRecord), 2 * sizeof(void*));
  EXPECT_EQ(KeyRecord::AllocationSize(1, 40), 16u + 40u);
  EXPECT_EQ(KeyRecord::AllocationSize(3, 40), 2 * 8u + 16u + 40u);
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

  ASSERT_TRUE(record->versions().Insert(Update(&arena, 20), test::CopiesIn(&arena)));
  expect_intact("an insert above the first version");
  EXPECT_FALSE(record->versions().FirstReplaced());
  ASSERT_TRUE(record->versions().Insert(Update(&arena, 5), test::CopiesIn(&arena)));
  EXPECT_TRUE(record->versions().FirstReplaced());
  ASSERT_TRUE(record->versions().Insert(Update(&arena, 7), test::CopiesIn(&arena)));
  expect_intact("inserts below it (a copy takes its place)");
  EXPECT_EQ(Sequences(*record), (std::vector<SequenceNumber>{20, 10, 7, 5}));
  EXPECT_NE(record->versions().Newest()->older(), record->first_version());
  EXPECT_EQ(record->first_version()->older(), nullptr) << "the first version leads nowhere";

  uint64_t visited = 0;
  // Oldest readable 12: the first version's copy is the cutter, its link is
  // cut.
  EXPECT_TRUE(record->versions().DropShadowed(12, &visited));
  expect_intact("a cut below the first version and its settled mark");
  EXPECT_EQ(Sequences(*record), (std::vector<SequenceNumber>{20, 10}));

  ASSERT_TRUE(record->versions().Insert(Update(&arena, 30), test::CopiesIn(&arena)));
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
  ASSERT_TRUE(owner->versions().Insert(loser->UseAsUpdate(), test::CopiesIn(&arena)));
  EXPECT_EQ(loser->state(), KeyRecord::kRemoved);
  EXPECT_EQ(loser->height(), height);
  EXPECT_EQ(Sequences(*owner), (std::vector<SequenceNumber>{11, 10}));
}

// A version older than the first one, while that one is the newest: the
// head itself moves to the copy, and the record's key, state and shortcut
// answers stay right.
TEST(KeyRecordTest, AVersionBelowTheOnlyOneReplacesItByACopyAtTheHead) {
  test::TestArena arena;
  KeyRecord* record = test::MakeRecord(&arena, "k", 10);
  record->set_state(KeyRecord::kLive);
  EXPECT_EQ(record->FirstAtOrBelow(MaxPackedTagOf(9)), nullptr);
  KeyRecord* loser = test::MakeRecord(&arena, "k", 9);
  loser->set_state(KeyRecord::kRemoved);
  ASSERT_TRUE(record->versions().Insert(loser->UseAsUpdate(), test::CopiesIn(&arena)));
  EXPECT_EQ(Sequences(*record), (std::vector<SequenceNumber>{10, 9}));
  EXPECT_NE(record->versions().Newest(), record->first_version());
  EXPECT_EQ(record->state(), KeyRecord::kLive);
  EXPECT_EQ(record->user_key().ToString(), "k");
  const Version* at9 = record->FirstAtOrBelow(MaxPackedTagOf(9));
  ASSERT_NE(at9, nullptr);
  EXPECT_EQ(at9->sequence(), 9u);
  EXPECT_FALSE(record->versions().Insert(Update(&arena, 10), test::CopiesIn(&arena)))
      << "the copy's sequence is a duplicate like the first version's";
  EXPECT_FALSE(record->versions().Insert(Update(&arena, 9), test::CopiesIn(&arena)));
}

}  // namespace
}  // namespace teksdb
