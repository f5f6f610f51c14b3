// Concurrency tests of TeksTableRep, meant for ThreadSanitizer:
//   - the background linker, helping readers and writers that link their
//     own keys (while ordered reads run) racing iterators: every key whose
//     insert finished before an iterator was created (or re-seeked) is in
//     its scan, in order, exactly once (the completeness barrier);
//   - point reads racing updates of the same keys: each reader sees, per
//     key, versions that never go backwards, and never one above its
//     sequence;
//   - many reps sharing one factory's linker, created and destroyed while
//     their queues still hold work.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "link_queue.h"
#include "teks_table_rep.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::DecodeEntry;
using test::RepHarness;

std::string Key(int writer, int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "w%d-%06d", writer, i);
  return buf;
}

using ConcurrentRepTest = test::VariantTest;

constexpr int kWriters = 2;
constexpr int kKeysPerWriter = 4000;

// Keys that writers w = 0, 1 insert in order, Key(w, 0), Key(w, 1), ...;
// progress[w] says how many of them are in.
struct WriterProgress {
  std::atomic<int> done[kWriters] = {};
  bool Finished() const {
    for (const auto& d : done) {
      if (d.load() < kKeysPerWriter) return false;
    }
    return true;
  }
  int Total() const { return done[0].load() + done[1].load(); }
};

std::vector<std::thread> StartWriters(RepHarness* h, WriterProgress* progress) {
  auto next_seq = std::make_shared<std::atomic<SequenceNumber>>(1);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([=] {
      for (int i = 0; i < kKeysPerWriter; ++i) {
        ASSERT_TRUE(h->Add(Key(w, i), next_seq->fetch_add(1), kEntryValue, "v"));
        progress->done[w].store(i + 1, std::memory_order_release);
      }
    });
  }
  return writers;
}

// One scan by a new iterator, and a re-seek: each must see, in order and
// once, every key whose insert had finished before it.
void ScanSeesEveryFinishedKey(RepHarness* h, const WriterProgress& progress) {
  int done[kWriters];
  for (int w = 0; w < kWriters; ++w) done[w] = progress.done[w].load(std::memory_order_acquire);
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h->rep().GetIterator(nullptr));
  int seen[kWriters] = {0, 0};
  std::string last;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key = DecodeEntry(it->key()).user_key;
    ASSERT_LT(last, key) << "scan out of order or duplicated";
    last = key;
    const int w = key[1] - '0';
    // Keys of one writer come in insertion order; none may be skipped
    // below what the writer had finished when the iterator was made.
    if (seen[w] < done[w]) {
      ASSERT_EQ(key, Key(w, seen[w]));
    }
    ++seen[w];
  }
  for (int w = 0; w < kWriters; ++w) ASSERT_GE(seen[w], done[w]);
  const int target = progress.done[0].load(std::memory_order_acquire) - 1;
  if (target >= 0) {
    const std::string ikey = test::InternalKey(Key(0, target), ~0ull >> 8, 0x16);
    it->Seek(ikey, nullptr);
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(DecodeEntry(it->key()).user_key, Key(0, target));
  }
}

void ExpectEveryKeyInTheEnd(RepHarness* h) {
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h->rep().GetIterator(nullptr));
  int total = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++total;
  EXPECT_EQ(total, kWriters * kKeysPerWriter);
}

TEST_P(ConcurrentRepTest, IteratorsSeeEveryKeyInsertedBeforeThem) {
  RepHarness h(Options());
  WriterProgress progress;
  std::vector<std::thread> threads = StartWriters(&h, &progress);
  std::atomic<int> scans{0};
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      // At least a few scans, and then as long as the writers run.
      for (int scan = 0; scan < 5 || !progress.Finished(); ++scan) {
        ASSERT_NO_FATAL_FAILURE(ScanSeesEveryFinishedKey(&h, progress));
        ++scans;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_GT(scans.load(), 0);
  ExpectEveryKeyInTheEnd(&h);
}

// Scans far enough apart that writers go back to queueing between them
// (LinkQueue::kOrderedReadWindow), and each scan switches them to linking
// their own keys: both ways of linking race the scans.
TEST_P(ConcurrentRepTest, ScansSeeEveryKeyWhileWritersSwitchWhoLinks) {
  RepHarness h(Options());
  WriterProgress progress;
  std::vector<std::thread> threads = StartWriters(&h, &progress);
  threads.emplace_back([&] {
    while (!progress.Finished()) {
      ASSERT_NO_FATAL_FAILURE(ScanSeesEveryFinishedKey(&h, progress));
      const int since = progress.Total();
      while (!progress.Finished() &&
             progress.Total() < since + 3 * static_cast<int>(LinkQueue::kOrderedReadWindow)) {
        std::this_thread::yield();
      }
    }
  });
  for (auto& t : threads) t.join();
  ExpectEveryKeyInTheEnd(&h);
}

TEST_P(ConcurrentRepTest, PointReadsNeverGoBackwardsOrAboveTheirSequence) {
  RepHarness h(Options());
  constexpr int kKeys = 64;
  constexpr int kUpdates = 3000;
  std::atomic<SequenceNumber> published{0};
  std::atomic<SequenceNumber> next_seq{1};
  std::atomic<bool> done{false};
  // Like RocksDB, a sequence is published only after its insert finished
  // and all below it did: writers here publish in a single lock-step.
  std::mutex publish_mu;
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kUpdates; ++i) {
        std::lock_guard<std::mutex> lock(publish_mu);
        const SequenceNumber seq = next_seq.fetch_add(1);
        ASSERT_TRUE(h.Add("key" + std::to_string((i * 7 + w) % kKeys), seq, kEntryValue,
                          std::to_string(seq)));
        published.store(seq, std::memory_order_release);
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      std::vector<SequenceNumber> last(kKeys, 0);
      while (!done.load()) {
        const SequenceNumber read_at = published.load(std::memory_order_acquire);
        for (int k = 0; k < kKeys; ++k) {
          auto values = h.GetEntries("key" + std::to_string(k), read_at, 1);
          if (values.empty()) continue;
          const SequenceNumber seen = std::stoull(values[0]);
          ASSERT_LE(seen, read_at);
          ASSERT_GE(seen, last[k]);
          last[k] = seen;
        }
      }
    });
  }
  threads[0].join();
  threads[1].join();
  done = true;
  threads[2].join();
  threads[3].join();
}

TEST_P(ConcurrentRepTest, ConcurrentWritersOfOneKeyLeaveEveryVersionInOrder) {
  RepHarness h(Options());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 1500;
  constexpr int kKeys = 8;
  std::atomic<SequenceNumber> next_seq{1};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        const SequenceNumber seq = next_seq.fetch_add(1);
        ASSERT_TRUE(h.Add("key" + std::to_string(seq % kKeys), seq, kEntryValue, "v"));
      }
    });
  }
  for (auto& t : threads) t.join();
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(h.rep().GetIterator(nullptr));
  std::string last_key;
  SequenceNumber last_seq = 0;
  int total = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++total) {
    const auto e = DecodeEntry(it->key());
    if (e.user_key == last_key) {
      ASSERT_LT(e.seq, last_seq) << e.user_key;
    }
    ASSERT_EQ(e.seq % kKeys, std::stoull(e.user_key.substr(3)));
    last_key = e.user_key;
    last_seq = e.seq;
  }
  EXPECT_EQ(total, kThreads * kPerThread);
}

INSTANTIATE_TEST_SUITE_P(PaperVariants, ConcurrentRepTest,
                         ::testing::Values("teks-s", "teks-ac", "teks-acsp-in"),
                         test::VariantTestName);

TEST(ConcurrentRepLifetimeTest, RepsSharingALinkerDieWithWorkQueued) {
  auto factory = NewTeksTableFactory();
  test::InternalKeyOrder order;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::unique_ptr<test::TestArena>> arenas;
    std::vector<std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep>> reps;
    for (int r = 0; r < 3; ++r) {
      arenas.emplace_back(new test::TestArena);
      reps.emplace_back(factory->CreateMemTableRep(order, arenas.back().get(), nullptr, nullptr));
    }
    std::vector<std::thread> writers;
    for (int r = 0; r < 3; ++r) {
      writers.emplace_back([&, r] {
        for (int i = 0; i < 500; ++i) {
          const std::string entry =
              test::EncodeEntry("k" + std::to_string(i), i + 1, kEntryValue, "v");
          char* buf;
          auto handle = reps[r]->Allocate(entry.size(), &buf);
          memcpy(buf, entry.data(), entry.size());
          ASSERT_TRUE(reps[r]->InsertKeyConcurrently(handle));
        }
      });
    }
    for (auto& t : writers) t.join();
    // Destroy with links possibly still queued; the shared worker must
    // leave each rep alone before it goes.
    reps.clear();
  }
}

}  // namespace
}  // namespace teksdb
