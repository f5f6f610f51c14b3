// Concurrency test of a record's first version, whose link word is its
// chain's head (version_chain.h, First versions), meant for
// ThreadSanitizer: writers add every key several times at once with
// sequences taken in one order and inserted in another, so versions older
// than a key's first one keep arriving (each replaces that one by a copy),
// while readers at the published sequence read each key's versions. A
// reader must see exactly the versions at or below its sequence, newest
// first, as RocksDB publishes a sequence only once every write up to it is
// in the memtable.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "teks_table_rep.h"
#include "test_support.h"

namespace teksdb {
namespace {

constexpr int kKeys = 400;
constexpr int kWriters = 4;
constexpr int kReaders = 2;
// Each writer writes every key once, so each key gets kWriters versions.
constexpr int kWrites = kKeys * kWriters;

std::string Key(int k) { return "key" + std::to_string(k); }

TEST(ConcurrentFirstVersionTest, ReadersSeeEveryPublishedVersionWhileFirstVersionsAreReplaced) {
  for (const bool drop : {false, true}) {
    SCOPED_TRACE(drop ? "with a drop policy that drops nothing" : "without a drop policy");
    // A policy whose oldest readable sequence stays 0: versions are kept
    // (every reader here may need them) but inserts go through
    // InsertAndDrop.
    auto policy = drop ? std::make_shared<test::SettablePolicy>(0) : nullptr;
    test::RepHarness h(TeksTableOptions(), policy);
    std::atomic<SequenceNumber> next_seq{1};
    // key_of[seq]: the key written at `seq`; inserted[seq]: done.
    std::vector<std::atomic<int>> key_of(kWrites + 1);
    std::vector<std::atomic<bool>> inserted(kWrites + 1);
    std::atomic<SequenceNumber> published{0};
    std::atomic<int> writers_done{0};
    std::atomic<int> mismatches{0};

    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        std::vector<int> order(kKeys);
        for (int k = 0; k < kKeys; ++k) order[k] = k;
        std::mt19937 rng(w);
        std::shuffle(order.begin(), order.end(), rng);
        for (int k : order) {
          const SequenceNumber seq = next_seq.fetch_add(1);
          key_of[seq].store(k, std::memory_order_relaxed);
          // Out of order on purpose: another writer's later sequence often
          // goes in first.
          if (rng() % 4 == 0) std::this_thread::yield();
          ASSERT_TRUE(h.Add(Key(k), seq, kEntryValue, std::to_string(seq)));
          inserted[seq].store(true, std::memory_order_release);
        }
        writers_done.fetch_add(1);
      });
    }
    // Publishes sequences in order once every write up to them is in.
    threads.emplace_back([&] {
      SequenceNumber p = 0;
      while (p < static_cast<SequenceNumber>(kWrites)) {
        if (inserted[p + 1].load(std::memory_order_acquire)) {
          published.store(++p, std::memory_order_release);
        } else {
          std::this_thread::yield();
        }
      }
    });
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&, r] {
        std::mt19937 rng(100 + r);
        while (published.load(std::memory_order_acquire) < static_cast<SequenceNumber>(kWrites)) {
          const SequenceNumber at = published.load(std::memory_order_acquire);
          const int k = static_cast<int>(rng() % kKeys);
          std::vector<std::string> expected;
          for (SequenceNumber seq = at; seq >= 1; --seq) {
            if (key_of[seq].load(std::memory_order_relaxed) == k) {
              expected.push_back(std::to_string(seq));
            }
          }
          if (h.GetEntries(Key(k), at) != expected) mismatches.fetch_add(1);
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0);
    for (int k = 0; k < kKeys; ++k) {
      EXPECT_EQ(h.GetEntries(Key(k), kWrites).size(), static_cast<size_t>(kWriters)) << k;
    }
  }
}

}  // namespace
}  // namespace teksdb
