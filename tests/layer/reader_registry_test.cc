// Unit tests of ReaderRegistry (include/teksdb/reader_registry.h) over a
// published sequence the test moves: the watermark is never above a
// registered reader nor the published sequence, registrations below it
// lower it, any number of readers can register, writers asking for it
// scan the slots rarely (work counted, not timed), deferred holds keep
// their floor exactly until the readers that may need it have moved on,
// and a reader without a slot (overflow) stops drops until it is gone.
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
