// Tests of LinkQueue's choice of who links a new key: while ordered reads
// run, the writer links its own key before Add returns (nothing is left
// queued for a reader to wait on); once they stop, writers queue keys for
// the background linker again within two windows of new keys, and the
// completeness barrier still covers every key either way. And the
// background linker: idle, it sleeps until woken, and the next key queued
// wakes it.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>
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

  // Polls `done` until it holds; false after a deadline far beyond any wait
  // the linker is allowed.
  static bool Eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

  TestArena arena_;
  test::InternalKeyOrder order_;
  OrderedIndex index_{order_};
  std::shared_ptr<BackgroundLinker> linker_ = std::make_shared<BackgroundLinker>();
  LinkQueue queue_{&index_, linker_, LinkQueue::kMaxRingSize};
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

TEST_F(LinkQueueTest, AnIdleLinkerSleepsUntilTheNextKeyWakesIt) {
  // Fewer keys than wake a napping linker: its nap takes them.
  AddNext();
  ASSERT_TRUE(Eventually([&] { return !queue_.HasPending(); }));
  ASSERT_TRUE(Eventually([&] { return linker_->dormant(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(linker_->dormant());  // no timed wake-ups while idle
  // Dormant: the first key wakes it (nothing else links it here).
  for (int round = 0; round < 3; ++round) {
    AddNext();
    ASSERT_TRUE(Eventually([&] { return !queue_.HasPending(); })) << "round " << round;
    ASSERT_TRUE(Eventually([&] { return linker_->dormant(); })) << "round " << round;
  }
  test::ExpectEveryLevelSortedAndComplete(index_, records_);
}

}  // namespace
}  // namespace teksdb
