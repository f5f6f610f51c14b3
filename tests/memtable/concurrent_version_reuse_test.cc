// Concurrency test of reusing dropped versions' memory, meant for
// ThreadSanitizer: writers update a few keys (so versions are cut, and their
// memory reused, all the time) while readers that the drop policy knows
// nothing of, as RocksDB's own reads of a memtable are, read through Get at
// new and old sequences and through iterators walking forward and back.
// Every entry a reader sees must be whole and its own key's: a version
// reused under a reader would show another key's, or a torn, entry (and a
// data race to ThreadSanitizer).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "teks_table_rep.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::DecodeEntry;
using test::RepHarness;
using test::SettablePolicy;
using test::VersionValue;

constexpr int kKeys = 16;
constexpr int kWriters = 2;
constexpr int kReaders = 2;

std::string KeyOf(int k) { return "key" + std::to_string(k); }

// Publishes, as the drop policy's answer, the largest sequence below which
// every write is in (the policy's contract), as RocksDB publishes
// sequences in order.
class Publisher {
 public:
  explicit Publisher(SettablePolicy* policy, SequenceNumber writes)
      : policy_(policy), done_(writes + 2, false) {}
  void Done(SequenceNumber seq) {
    std::lock_guard<std::mutex> lock(mu_);
    done_[seq] = true;
    while (published_ + 1 < done_.size() && done_[published_ + 1]) ++published_;
    policy_->Set(published_);
    newest_.store(published_);
  }
  SequenceNumber newest() const { return newest_.load(); }

 private:
  SettablePolicy* const policy_;
  std::mutex mu_;
  std::vector<bool> done_;
  SequenceNumber published_ = 0;
  std::atomic<SequenceNumber> newest_{0};
};

void ExpectWhole(const DecodedEntry& e, SequenceNumber at_most) {
  EXPECT_LE(e.seq, at_most);
  EXPECT_EQ(e.value, VersionValue(e.user_key, e.seq)) << "a torn or foreign entry";
}

TEST(ConcurrentVersionReuseTest, ReadersNeverSeeReusedMemory) {
  const SequenceNumber writes_per_writer = 50000 * test::Scale();
  const SequenceNumber writes = writes_per_writer * kWriters;
  auto policy = std::make_shared<SettablePolicy>(0);
  TeksTableOptions options;
  options.max_wal_write_buffers = 1000000;
  RepHarness h(options, policy);
  Publisher publisher(policy.get(), writes);
  std::atomic<SequenceNumber> next_seq{1};
  std::atomic<int> writing{kWriters};

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (SequenceNumber i = 0; i < writes_per_writer; ++i) {
        const SequenceNumber seq = next_seq.fetch_add(1);
        const std::string key = KeyOf(static_cast<int>((seq * 7 + w) % kKeys));
        ASSERT_TRUE(h.Add(key, seq, kEntryValue, VersionValue(key, seq)));
        publisher.Done(seq);
      }
      writing.fetch_sub(1);
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      uint64_t round = 0;
      while (writing.load() > 0) {
        ++round;
        const SequenceNumber newest = publisher.newest();
        // Gets at the newest sequence, and at an old one (below what the
        // policy lets writers keep): whatever they find must be whole.
        for (int k = 0; k < kKeys; ++k) {
          for (SequenceNumber at : {newest, newest / 2}) {
            for (const std::string& value : h.GetEntries(KeyOf(k), at, 3)) {
              EXPECT_EQ(value.substr(0, KeyOf(k).size() + 1), KeyOf(k) + "@");
            }
          }
        }
        std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(
            h.rep().GetIterator(nullptr));
        if ((round + r) % 2 == 0) {
          int steps = 0;
          for (it->SeekToFirst(); it->Valid() && steps < 200; it->Next(), ++steps) {
            ExpectWhole(DecodeEntry(it->key()), next_seq.load());
          }
        } else {
          int steps = 0;
          for (it->SeekToLast(); it->Valid() && steps < 200; it->Prev(), ++steps) {
            ExpectWhole(DecodeEntry(it->key()), next_seq.load());
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_GT(static_cast<TeksTableRep&>(h.rep()).ReusedBytes(), 0u) << "memory was reused";
  for (int k = 0; k < kKeys; ++k) {
    for (const std::string& value : h.GetEntries(KeyOf(k), writes + 1, 1)) {
      EXPECT_EQ(value.substr(0, KeyOf(k).size() + 1), KeyOf(k) + "@");
    }
  }
}

}  // namespace
}  // namespace teksdb
