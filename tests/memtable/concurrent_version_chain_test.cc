// Concurrency test of one VersionChain (memtable/version_chain.h) the way a
// hot key lives under the TeksDB layer: writers insert its versions out of
// order (each takes every 4th sequence), every insert is followed by a drop
// attempt at the oldest sequence any reader holds, and readers hold
// snapshots for a while, searching at them (FirstAtOrBelow) and climbing
// from there (NewerThan with a ReverseFinger), while jump links are set and
// cuts are made; then the same with InsertAndDrop, which also splices out
// the versions between held snapshots (snapshot stripes).
// Run under ThreadSanitizer by scripts/test.sh.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "test_support.h"
#include "version_chain.h"

namespace teksdb {
namespace {

constexpr SequenceNumber kVersions = 20000;
constexpr int kWriters = 4;
constexpr int kReaders = 2;

// Published sequences and the readers holding them, as the layer keeps
// them: a reader registers at the published sequence, and drops use the
// oldest sequence any reader holds (the published one if none does).
class Readers {
 public:
  // Marks `seq` inserted and publishes every sequence below the first gap.
  void Inserted(SequenceNumber seq) {
    inserted_[seq].store(true, std::memory_order_release);
    SequenceNumber p = published_.load(std::memory_order_acquire);
    while (p < kVersions && inserted_[p + 1].load(std::memory_order_acquire)) {
      if (published_.compare_exchange_weak(p, p + 1, std::memory_order_acq_rel)) ++p;
    }
  }
  SequenceNumber Register() {
    std::lock_guard<std::mutex> lock(mu_);
    const SequenceNumber seq = published_.load(std::memory_order_acquire);
    held_.insert(seq);
    return seq;
  }
  void Unregister(SequenceNumber seq) {
    std::lock_guard<std::mutex> lock(mu_);
    held_.erase(held_.find(seq));
  }
  SequenceNumber OldestReadable() {
    std::lock_guard<std::mutex> lock(mu_);
    const SequenceNumber published = published_.load(std::memory_order_acquire);
    return held_.empty() ? published : std::min(published, *held_.begin());
  }
  // As the layer's stripes: a reader may read in [lo, hi) unless every
  // sequence below hi is published and no held one lies in it.
  bool MayReadBetween(SequenceNumber lo, SequenceNumber hi) {
    std::lock_guard<std::mutex> lock(mu_);
    if (hi > published_.load(std::memory_order_acquire)) return true;
    auto it = held_.lower_bound(lo);
    return it != held_.end() && *it < hi;
  }

 private:
  std::unique_ptr<std::atomic<bool>[]> inserted_{new std::atomic<bool>[kVersions + 1]()};
  std::atomic<SequenceNumber> published_{1};  // sequence 1 is the chain's root
  std::mutex mu_;
  std::multiset<SequenceNumber> held_;
};

void RunWritersAndReaders(bool splice) {
  test::VersionPool versions;
  VersionChain chain(versions.Make(1));
  Readers readers;
  std::atomic<bool> writing{true};
  std::atomic<uint64_t> searches{0};
  std::atomic<uint64_t> splices{0};

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (SequenceNumber seq = 2 + w; seq <= kVersions; seq += kWriters) {
        uint64_t visited = 0;
        if (splice) {
          Version* cut = nullptr;
          VersionChain::Spliced spliced;
          ASSERT_TRUE(chain.InsertAndDrop(
              versions.Make(seq), test::kNoFirstCopy, [&] { return readers.OldestReadable(); },
              [&](SequenceNumber lo, SequenceNumber hi) { return readers.MayReadBetween(lo, hi); },
              &visited, &cut, &spliced));
          splices.fetch_add(spliced.count, std::memory_order_relaxed);
          readers.Inserted(seq);
        } else {
          ASSERT_TRUE(chain.Insert(versions.Make(seq)));
          readers.Inserted(seq);
          chain.DropShadowed(readers.OldestReadable(), &visited);
        }
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(r);
      while (writing.load()) {
        const SequenceNumber snapshot = readers.Register();
        const uint64_t tag = MaxPackedTagOf(snapshot);
        for (int i = 0, n = 1 + static_cast<int>(rng() % 500); i < n; ++i) {
          // Every sequence up to the snapshot is inserted, and nothing a
          // reader at it needs is dropped: the answer is the snapshot's own.
          const Version* at = chain.FirstAtOrBelow(tag);
          ASSERT_NE(at, nullptr);
          ASSERT_EQ(at->sequence(), snapshot);
          SequenceNumber last = snapshot;
          ReverseFinger finger;
          const Version* v = chain.NewerThan(at, &finger);
          for (int step = 0; v != nullptr && step < 3; ++step, v = chain.NewerThan(v, &finger)) {
            ASSERT_GT(v->sequence(), last);
            last = v->sequence();
          }
          searches.fetch_add(1, std::memory_order_relaxed);
        }
        readers.Unregister(snapshot);
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  writing.store(false);
  for (int r = 0; r < kReaders; ++r) threads[kWriters + r].join();

  EXPECT_GT(searches.load(), 0u);
  if (splice) {
    EXPECT_GT(splices.load(), 0u);
  }
  // Nothing is held any more: the last attempts leave the newest version
  // (two consecutive values, which never share the memo's tag, so one of
  // them is not skipped).
  uint64_t visited = 0;
  chain.DropShadowed(kVersions - 1, &visited);
  chain.DropShadowed(kVersions, &visited);
  EXPECT_EQ(chain.Newest()->sequence(), kVersions);
  EXPECT_EQ(chain.Newest()->older(), nullptr);
  EXPECT_EQ(chain.FirstAtOrBelow(MaxPackedTagOf(kVersions))->sequence(), kVersions);
}

TEST(ConcurrentVersionChainTest, ReadersAtHeldSnapshotsFindTheirVersionWhileWritersInsertAndDrop) {
  RunWritersAndReaders(false);
}

TEST(ConcurrentVersionChainTest, ReadersAtHeldSnapshotsFindTheirVersionWhileWritersSpliceStripes) {
  RunWritersAndReaders(true);
}

}  // namespace
}  // namespace teksdb
