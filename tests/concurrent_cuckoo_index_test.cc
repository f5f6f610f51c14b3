// Concurrency tests of CuckooIndex, meant for ThreadSanitizer: displacement
// (forced by a tiny first table) racing lock-free readers, which must never
// miss a key, and racing inserters of the same keys, which must all agree
// on one LIVE record per key.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo_index.h"
#include "test_support.h"

namespace teksdb {
namespace {

std::string Key(int i) { return "key" + std::to_string(i); }

TEST(ConcurrentCuckooIndexTest, ReadersNeverMissAKeyBeingDisplaced) {
  test::TestArena arena;
  CuckooIndex index(256, false);
  constexpr int kPresent = 150;
  for (int i = 0; i < kPresent; ++i) {
    index.FindOrInsert(Key(i), CuckooIndex::Hash(Key(i)), test::MakeRecord(&arena, Key(i), 1));
  }
  std::atomic<bool> done{false};
  std::atomic<long> misses{0};
  std::atomic<long> lookups{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      for (int i = r; !done.load(std::memory_order_relaxed); i = (i + 7) % kPresent) {
        if (index.FindLive(Key(i), CuckooIndex::Hash(Key(i))) == nullptr) ++misses;
        ++lookups;
      }
    });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int i = kPresent + w; i < 6000; i += 2) {
        index.FindOrInsert(Key(i), CuckooIndex::Hash(Key(i)), test::MakeRecord(&arena, Key(i), 1));
      }
    });
  }
  for (auto& t : writers) t.join();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(index.NumTables(), 1u);  // the first table filled: keys were displaced
  EXPECT_GT(lookups.load(), 0);
  EXPECT_EQ(misses.load(), 0);
  for (int i = 0; i < 6000; ++i) {
    ASSERT_NE(index.FindLive(Key(i), CuckooIndex::Hash(Key(i))), nullptr) << Key(i);
  }
}

TEST(ConcurrentCuckooIndexTest, RacingInsertersOfOneKeyAgreeOnOneRecord) {
  for (bool serialized : {false, true}) {
    test::TestArena arena;
    CuckooIndex index(64, serialized);
    constexpr int kThreads = 4;
    constexpr int kKeys = 2000;
    std::vector<std::vector<KeyRecord*>> owners(kThreads, std::vector<KeyRecord*>(kKeys));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kKeys; ++i) {
          owners[t][i] = index.FindOrInsert(Key(i), CuckooIndex::Hash(Key(i)),
                                            test::MakeRecord(&arena, Key(i), t + 1));
        }
      });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kKeys; ++i) {
      KeyRecord* live = index.FindLive(Key(i), CuckooIndex::Hash(Key(i)));
      ASSERT_NE(live, nullptr);
      EXPECT_EQ(live->state(), KeyRecord::kLive);
      for (int t = 0; t < kThreads; ++t) ASSERT_EQ(owners[t][i], live) << Key(i);
    }
  }
}

}  // namespace
}  // namespace teksdb
