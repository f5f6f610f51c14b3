// Unit tests of ReaderRegistry (include/teksdb/reader_registry.h) over a
// published sequence the test moves: the watermark is never above a
// registered reader nor the published sequence, registrations below it
// lower it, any number of readers can register, writers asking for it
// scan the slots rarely (work counted, not timed), deferred holds keep
// their floor exactly until the readers that may need it have moved on,
// a reader without a slot (overflow) stops drops until it is gone, and the
// stripes (MayReadBetween) answer "no reader" only between bounded readers
// and below the published sequence the last scan read.
#include "teksdb/reader_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace teksdb {
namespace {

class TestSequence : public PublishedSequenceSource {
 public:
  SequenceNumber LastPublishedSequence() const override { return seq_.load(); }
  void Publish(SequenceNumber seq) { seq_.store(seq); }

 private:
  std::atomic<SequenceNumber> seq_{0};
};

class ReaderRegistryTest : public ::testing::Test {
 protected:
  ReaderRegistryTest() { registry_.Attach(&published_); }
  ~ReaderRegistryTest() override { registry_.Attach(nullptr); }

  TestSequence published_;
  ReaderRegistry registry_;
};

TEST_F(ReaderRegistryTest, AnswersZeroWhileNothingIsAttached) {
  published_.Publish(50);
  registry_.Attach(nullptr);
  EXPECT_EQ(registry_.OldestReadableSequence(), 0u);
  registry_.Attach(&published_);
  EXPECT_EQ(registry_.OldestReadableSequence(), 50u);
}

TEST_F(ReaderRegistryTest, WithoutReadersTheAnswerIsThePublishedSequence) {
  for (SequenceNumber seq = 1; seq <= 100; ++seq) {
    published_.Publish(seq);
    EXPECT_EQ(registry_.OldestReadableSequence(), seq);
  }
  EXPECT_EQ(registry_.Scans(), 0u);
}

TEST_F(ReaderRegistryTest, NeverAnswersAboveAReaderAndMovesOnWhenItLeaves) {
  published_.Publish(10);
  auto reader = registry_.Register();
  for (SequenceNumber seq = 11; seq <= 1000; ++seq) {
    published_.Publish(seq);
    EXPECT_LE(registry_.OldestReadableSequence(), 10u);
  }
  reader.Release();
  EXPECT_EQ(registry_.OldestReadableSequence(), 1000u);
}

TEST_F(ReaderRegistryTest, ASnapshotCapBelowTheWatermarkLowersIt) {
  published_.Publish(10);
  auto old_reader = registry_.Register();
  published_.Publish(20);
  EXPECT_EQ(registry_.OldestReadableSequence(), 10u);
  // A recovered prepared transaction's hold, or a read at an old snapshot.
  auto hold = registry_.Register(0);
  EXPECT_EQ(registry_.OldestReadableSequence(), 0u);
  auto capped = registry_.Register(5);
  hold.Release();
  EXPECT_LE(registry_.OldestReadableSequence(), 5u);
}

TEST_F(ReaderRegistryTest, ThousandsOfReadersRegisterAndTheOldestCounts) {
  std::vector<ReaderRegistry::Registration> readers;
  for (SequenceNumber seq = 1; seq <= 5000; ++seq) {
    published_.Publish(seq);
    readers.push_back(registry_.Register());
  }
  published_.Publish(6000);
  EXPECT_EQ(registry_.OldestReadableSequence(), 1u);
  readers.erase(readers.begin(), readers.begin() + 2500);
  published_.Publish(7000);
  EXPECT_EQ(registry_.OldestReadableSequence(), 2501u);
  readers.clear();
  EXPECT_EQ(registry_.OldestReadableSequence(), 7000u);
}

TEST_F(ReaderRegistryTest, WritersScanTheSlotsRarelyWhateverReadersHold) {
  std::vector<ReaderRegistry::Registration> readers;
  for (SequenceNumber seq = 1; seq <= 300; ++seq) {
    published_.Publish(seq);
    readers.push_back(registry_.Register());
  }
  const uint64_t scans_before = registry_.Scans();
  constexpr SequenceNumber kWrites = 100000;
  for (SequenceNumber seq = 301; seq <= 300 + kWrites; ++seq) {
    published_.Publish(seq);
    // Several updates per published sequence, as a write batch makes.
    for (int i = 0; i < 3; ++i) ASSERT_EQ(registry_.OldestReadableSequence(), 1u);
  }
  const uint64_t slots_scanned = (registry_.Scans() - scans_before) * registry_.ScannedSlots();
  EXPECT_LE(slots_scanned, 2 * kWrites);
}

TEST_F(ReaderRegistryTest, AHoldKeepsItsFloorUntilOlderReadersMoveOn) {
  published_.Publish(10);
  auto older_reader = registry_.Register();
  published_.Publish(20);
  auto hold = registry_.Register();
  published_.Publish(30);
  registry_.HoldUntilReadersReach(std::move(hold), 30);
  EXPECT_EQ(registry_.OldestReadableSequence(), 10u);
  older_reader.Release();
  // The hold is freed once every reader is at 30 or later.
  EXPECT_EQ(registry_.OldestReadableSequence(), 30u);
}

TEST_F(ReaderRegistryTest, AHoldOutlivesThePublishedSequenceUntilTheReadersBelowItLeave) {
  published_.Publish(20);
  auto hold = registry_.Register();
  published_.Publish(25);
  auto reader = registry_.Register();  // began before the commit at 30
  published_.Publish(30);
  registry_.HoldUntilReadersReach(std::move(hold), 30);
  for (SequenceNumber seq = 31; seq <= 1000; ++seq) {
    published_.Publish(seq);
    ASSERT_EQ(registry_.OldestReadableSequence(), 20u) << "at " << seq;
  }
  reader.Release();
  EXPECT_EQ(registry_.OldestReadableSequence(), 1000u);
  published_.Publish(1001);
  EXPECT_EQ(registry_.OldestReadableSequence(), 1001u) << "the hold was freed";
}

TEST_F(ReaderRegistryTest, AHoldForAnAbandonedPreparedTransactionStaysWhileAttached) {
  published_.Publish(40);
  auto hold = registry_.Register();
  registry_.HoldUntilReadersReach(std::move(hold), kMaxSequenceNumber);
  for (SequenceNumber seq = 41; seq <= 500; ++seq) {
    published_.Publish(seq);
    auto reader = registry_.Register();
    ASSERT_EQ(registry_.OldestReadableSequence(), 40u) << "at " << seq;
  }
}

TEST_F(ReaderRegistryTest, AnInactiveRegistrationHoldsNothing) {
  published_.Publish(7);
  ReaderRegistry::Registration none;
  EXPECT_FALSE(none.active());
  registry_.HoldUntilReadersReach(std::move(none), 100);
  EXPECT_EQ(registry_.OldestReadableSequence(), 7u);

  auto reader = registry_.Register();
  ReaderRegistry::Registration moved = std::move(reader);
  EXPECT_FALSE(reader.active());
  EXPECT_TRUE(moved.active());
  published_.Publish(8);
  EXPECT_EQ(registry_.OldestReadableSequence(), 7u);
  moved.Release();
  moved.Release();  // a second release does nothing
  EXPECT_EQ(registry_.OldestReadableSequence(), 8u);
}

// Stripes come from scans, which run when the published sequence has
// moved ahead of the last one (or a reader left): the writer's call.
TEST_F(ReaderRegistryTest, PinnedReadersKeepOnlyTheirOwnSequences) {
  published_.Publish(10);
  auto at10 = registry_.Register();
  at10.Pin(10);
  published_.Publish(20);
  auto at20 = registry_.Register(20);  // a read at a snapshot
  at20.Pin(20);
  published_.Publish(100);
  EXPECT_EQ(registry_.OldestReadableSequence(), 10u);
  EXPECT_FALSE(registry_.MayReadBetween(11, 20));
  EXPECT_TRUE(registry_.MayReadBetween(10, 20));
  EXPECT_TRUE(registry_.MayReadBetween(19, 21));
  EXPECT_FALSE(registry_.MayReadBetween(21, 100));
  EXPECT_FALSE(registry_.MayReadBetween(1, 10));
  // Above the published sequence the scan read, a reader may come.
  EXPECT_TRUE(registry_.MayReadBetween(50, 101));
  // Gone, and scanned again, a pinned reader keeps nothing.
  at20.Release();
  published_.Publish(110);
  EXPECT_EQ(registry_.OldestReadableSequence(), 10u);
  EXPECT_FALSE(registry_.MayReadBetween(19, 21));
}

TEST_F(ReaderRegistryTest, AnUnboundedReaderMayReadAnywhereAboveItsFloor) {
  published_.Publish(10);
  auto reader = registry_.Register();
  published_.Publish(100);
  registry_.OldestReadableSequence();
  EXPECT_TRUE(registry_.MayReadBetween(11, 20));
  EXPECT_TRUE(registry_.MayReadBetween(90, 100));
  EXPECT_FALSE(registry_.MayReadBetween(5, 10));
  // An iterator bounded once made reads no higher than that bound, until
  // it is refreshed.
  reader.ReadsAtMost(12);
  published_.Publish(200);
  registry_.OldestReadableSequence();
  EXPECT_TRUE(registry_.MayReadBetween(12, 13));
  EXPECT_FALSE(registry_.MayReadBetween(13, 200));
  reader.Unbound();
  published_.Publish(300);
  registry_.OldestReadableSequence();
  EXPECT_TRUE(registry_.MayReadBetween(13, 200));
}

TEST_F(ReaderRegistryTest, TheStripesAnswerMaybeUntilAScanAndAfterARegistrationBelowTheWatermark) {
  published_.Publish(10);
  auto pinned = registry_.Register();
  EXPECT_TRUE(registry_.MayReadBetween(11, 20));  // nothing scanned yet
  pinned.Pin(10);
  published_.Publish(100);
  registry_.OldestReadableSequence();
  EXPECT_FALSE(registry_.MayReadBetween(11, 20));
  // A recovered prepared transaction's hold registers below the watermark.
  auto hold = registry_.Register(0);
  EXPECT_TRUE(registry_.MayReadBetween(11, 20));
  hold.Release();
  published_.Publish(200);
  registry_.OldestReadableSequence();
  EXPECT_FALSE(registry_.MayReadBetween(11, 20));
  registry_.Attach(nullptr);
  EXPECT_TRUE(registry_.MayReadBetween(11, 20));
  registry_.Attach(&published_);
  EXPECT_TRUE(registry_.MayReadBetween(11, 20));  // a new source, not scanned yet
}

TEST_F(ReaderRegistryTest, MorePinnedReadersThanTheStripesHoldAnswerMaybe) {
  std::vector<ReaderRegistry::Registration> readers;
  const SequenceNumber n = ReaderRegistry::kMaxStripeReaders + 1;
  for (SequenceNumber i = 1; i <= n; ++i) {
    published_.Publish(10 * i);
    readers.push_back(registry_.Register());
    readers.back().Pin(10 * i);
  }
  published_.Publish(10 * n + 1000);
  registry_.OldestReadableSequence();
  EXPECT_TRUE(registry_.MayReadBetween(11, 20));
  readers.pop_back();
  readers.pop_back();  // 63 left: room for one more interval
  published_.Publish(10 * n + 2000);
  registry_.OldestReadableSequence();
  EXPECT_FALSE(registry_.MayReadBetween(11, 20));
  EXPECT_TRUE(registry_.MayReadBetween(11, 21));
  // Pins at neighbouring sequences merge into that one.
  for (SequenceNumber seq = 10 * n + 2001; seq <= 10 * n + 2100; ++seq) {
    published_.Publish(seq);
    readers.push_back(registry_.Register());
    readers.back().Pin(seq);
  }
  published_.Publish(10 * n + 3000);
  registry_.OldestReadableSequence();
  EXPECT_FALSE(registry_.MayReadBetween(11, 20));
  EXPECT_TRUE(registry_.MayReadBetween(10 * n + 2050, 10 * n + 2051));
  EXPECT_FALSE(registry_.MayReadBetween(10 * n + 2101, 10 * n + 3000));
}

// Readers beyond the slots overflow: while one lives, the registry answers
// 0 (no drop is safe without its floor); once it and every overflow hold
// are gone, the answer is the oldest slotted reader's again.
TEST(ReaderRegistryOverflowTest, AReaderWithoutASlotStopsDropsUntilItLeaves) {
  TestSequence published;
  ReaderRegistry registry(/*max_slots=*/2);
  registry.Attach(&published);
  published.Publish(10);
  auto first = registry.Register();
  auto second = registry.Register();
  published.Publish(20);
  auto overflowed = registry.Register();
  published.Publish(30);
  EXPECT_EQ(registry.OldestReadableSequence(), 0u);
  EXPECT_TRUE(registry.MayReadBetween(11, 20));
  overflowed.Release();
  published.Publish(31);
  EXPECT_EQ(registry.OldestReadableSequence(), 10u);
  first.Release();
  second.Release();
  published.Publish(32);
  EXPECT_EQ(registry.OldestReadableSequence(), 32u);
  registry.Attach(nullptr);
}

// A deferred hold without a slot keeps drops stopped until every reader
// that may read below its target has moved past it; then it is freed.
TEST(ReaderRegistryOverflowTest, AnOverflowHoldIsFreedOnceReadersReachItsTarget) {
  TestSequence published;
  ReaderRegistry registry(/*max_slots=*/1);
  registry.Attach(&published);
  published.Publish(10);
  auto reader = registry.Register();
  auto hold = registry.Register();  // overflows
  registry.HoldUntilReadersReach(std::move(hold), 15);
  published.Publish(20);
  EXPECT_EQ(registry.OldestReadableSequence(), 0u);  // the reader at 10 is below 15
  reader.Release();
  published.Publish(21);
  EXPECT_EQ(registry.OldestReadableSequence(), 21u);
  registry.Attach(nullptr);
}

}  // namespace
}  // namespace teksdb
