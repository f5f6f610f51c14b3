// Concurrency tests of CuckooIndex, meant for ThreadSanitizer: displacement
// and resizing (forced by a tiny first table) racing lock-free readers, which
// must never miss a key, and racing inserters of the same keys, through the
// table and through the overflow, which must all agree on one LIVE record
// per key.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo_index.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::HashIndexHarness;
using test::ScopedForcedHash;

std::string Key(int i) { return "key" + std::to_string(i); }

TEST(ConcurrentCuckooIndexTest, ReadersNeverMissAKeyBeingDisplacedOrResized) {
  HashIndexHarness h(256);
  const size_t initial_capacity = h.index.Capacity();
  constexpr int kPresent = 150;
  for (int i = 0; i < kPresent; ++i) h.Insert(Key(i));
  std::atomic<bool> done{false};
  std::atomic<long> misses{0};
  std::atomic<long> lookups{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      for (int i = r; !done.load(std::memory_order_relaxed); i = (i + 7) % kPresent) {
        if (h.Find(Key(i)) == nullptr) ++misses;
        ++lookups;
      }
    });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int i = kPresent + w; i < 6000; i += 2) h.Insert(Key(i));
    });
  }
  for (auto& t : writers) t.join();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(h.index.Capacity(), initial_capacity);  // keys were moved by resizes
  EXPECT_GT(lookups.load(), 0);
  EXPECT_EQ(misses.load(), 0);
  for (int i = 0; i < 6000; ++i) ASSERT_NE(h.Find(Key(i)), nullptr) << Key(i);
}

void ExpectRacingInsertersAgree(bool serialized) {
  HashIndexHarness h(64, serialized);
  constexpr int kThreads = 4;
  constexpr int kKeys = 2000;
  std::vector<std::vector<KeyRecord*>> owners(kThreads, std::vector<KeyRecord*>(kKeys));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kKeys; ++i) owners[t][i] = h.Insert(Key(i), t + 1);
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kKeys; ++i) {
    KeyRecord* live = h.Find(Key(i));
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(live->state(), KeyRecord::kLive);
    for (int t = 0; t < kThreads; ++t) ASSERT_EQ(owners[t][i], live) << Key(i);
  }
  // One node per key in the skip list: every winner, no loser.
  size_t nodes = 0;
  for (KeyRecord* r = h.skip_list.First(); r != nullptr; r = r->Next(0)) ++nodes;
  EXPECT_EQ(nodes, static_cast<size_t>(kKeys));
}

TEST(ConcurrentCuckooIndexTest, RacingInsertersOfOneKeyAgreeOnOneRecord) {
  ExpectRacingInsertersAgree(false);
  ExpectRacingInsertersAgree(true);
}

TEST(ConcurrentCuckooIndexTest, RacingInsertersAgreeWhenKeysOverflow) {
  // Every key has one hash: 8 keys fit the table, the rest race through
  // the overflow against inserters of the same key still in the table path.
  ScopedForcedHash one_hash;
  ExpectRacingInsertersAgree(false);
}

}  // namespace
}  // namespace teksdb
