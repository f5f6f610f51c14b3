// Tests of LinkQueue's choice of who links a new key: while ordered reads
// run, the writer links its own key before Add returns (nothing is left
// queued for a reader to wait on); once they stop, writers queue keys for
// the background linker again within two windows of new keys, and the
// completeness barrier still covers every key either way.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "background_linker.h"
#include "link_queue.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::MakeRecord;
using test::OrderedKey;
using test::TestArena;

class LinkQueueTest : public ::testing::Test {
 protected:
  // Adds the next new key; returns its record.
  KeyRecord* AddNext() {
    KeyRecord* r = MakeRecord(&arena_, OrderedKey(next_key_++), 1);
    records_.push_back(r);
    queue_.Add(r);
    return r;
  }

  TestArena arena_;
  test::InternalKeyOrder order_;
  OrderedIndex index_{order_};
  LinkQueue queue_{&index_, std::make_shared<BackgroundLinker>(), LinkQueue::kMaxRingSize};
  std::vector<const KeyRecord*> records_;
  uint64_t next_key_ = 0;
};

TEST_F(LinkQueueTest, WritersQueueNewKeysWhenNothingReadsInOrder) {
  EXPECT_FALSE(queue_.WritersLink());
  for (uint64_t i = 0; i < 3 * LinkQueue::kOrderedReadWindow; ++i) AddNext();
  EXPECT_FALSE(queue_.WritersLink());
  queue_.WaitUntilLinked();
  test::ExpectEveryLevelSortedAndComplete(index_, records_);
}

TEST_F(LinkQueueTest, WhileOrderedReadsRunWritersLinkTheirOwnKeys) {
  for (int round = 0; round < 8; ++round) {
    queue_.NoteOrderedRead();
    ASSERT_TRUE(queue_.WritersLink());
    for (uint64_t i = 0; i < LinkQueue::kOrderedReadWindow / 2; ++i) {
      const KeyRecord* r = AddNext();
      ASSERT_TRUE(r->linked()) << "round " << round << ", key " << i;
      ASSERT_FALSE(queue_.HasPending());
    }
  }
  test::ExpectEveryLevelSortedAndComplete(index_, records_);
}

TEST_F(LinkQueueTest, WritersQueueAgainWithinTwoWindowsOfTheLastOrderedRead) {
  queue_.NoteOrderedRead();
  for (uint64_t i = 0; i < 2 * LinkQueue::kOrderedReadWindow; ++i) AddNext();
  EXPECT_FALSE(queue_.WritersLink());
  // A read switches linking back on at once.
  queue_.NoteOrderedRead();
  EXPECT_TRUE(queue_.WritersLink());
  EXPECT_TRUE(AddNext()->linked());
  queue_.WaitUntilLinked();
  test::ExpectEveryLevelSortedAndComplete(index_, records_);
}

}  // namespace
}  // namespace teksdb
