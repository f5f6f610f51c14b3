// Concurrency test of RetiredMemory through TeksTableRep, meant for
// ThreadSanitizer: writers add new keys while the hash outgrows table after
// table, new records are built in the tables it replaced, and readers
// looking keys up (some in the table being replaced) always find every key
// whose insert finished, with its value, and never a key not written.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "teks_table_rep.h"
#include "test_support.h"

namespace teksdb {
namespace {

constexpr int kWriters = 2;
constexpr int kReaders = 2;
constexpr int kKeysPerWriter = 30000;
// Above every sequence written.
constexpr SequenceNumber kReadAll = SequenceNumber{1} << 40;

std::string Key(int writer, int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "w%d-%06d", writer, i);
  return buf;
}

// The value of Key(w, i) at `seq`, or "" if the rep has none.
std::string ValueAt(ROCKSDB_NAMESPACE::MemTableRep* rep, const std::string& key,
                    SequenceNumber seq) {
  std::string value;
  ROCKSDB_NAMESPACE::LookupKey lookup(key, seq);
  rep->Get(lookup, &value, [](void* arg, const char* entry) {
    *static_cast<std::string*>(arg) = test::DecodeEntry(entry).value;
    return false;
  });
  return value;
}

TEST(ConcurrentRetiredMemoryTest, LookupsFindEveryKeyWhileReplacedTablesBecomeRecords) {
  auto factory = NewTeksTableFactory();
  test::InternalKeyOrder order;
  test::TestArena arena(1 << 16);
  // A 2 MiB buffer: a first hash of 1024 slots.
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> rep =
      test::NewRepForWriteBuffer(factory.get(), size_t{2} << 20, order, &arena);
  auto* teks = static_cast<TeksTableRep*>(rep.get());
  const size_t first_capacity = teks->HashCapacity();

  std::atomic<int> done[kWriters] = {};
  std::atomic<SequenceNumber> next_seq{1};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kKeysPerWriter; ++i) {
        const std::string entry =
            EncodeEntry(Key(w, i), next_seq.fetch_add(1), kEntryValue, "v" + std::to_string(i));
        char* buf = nullptr;
        auto handle = rep->Allocate(entry.size(), &buf);
        memcpy(buf, entry.data(), entry.size());
        ASSERT_TRUE(rep->InsertKeyConcurrently(handle));
        done[w].store(i + 1, std::memory_order_release);
      }
    });
  }
  std::atomic<int> failures{0};
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      uint64_t x = 88172645463325252ULL + r;
      auto finished = [&] {
        for (const auto& d : done) {
          if (d.load(std::memory_order_acquire) < kKeysPerWriter) return false;
        }
        return true;
      };
      while (!finished()) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const int w = static_cast<int>(x % kWriters);
        const int inserted = done[w].load(std::memory_order_acquire);
        // The newest inserted key (in the table being filled, perhaps being
        // replaced) and one from anywhere before it.
        for (int i : {inserted - 1, static_cast<int>((x >> 8) % (inserted + 1)) - 1}) {
          if (i < 0) continue;
          if (ValueAt(rep.get(), Key(w, i), kReadAll) != "v" + std::to_string(i)) {
            failures.fetch_add(1);
          }
        }
        if (!ValueAt(rep.get(), Key(w, kKeysPerWriter + 1), kReadAll).empty()) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(teks->HashCapacity(), 8 * first_capacity) << "the hash was replaced several times";
  EXPECT_GE(teks->ReusedHashBytes(), first_capacity * 8) << "records were built in old tables";
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kKeysPerWriter; ++i) {
      ASSERT_EQ(ValueAt(rep.get(), Key(w, i), kReadAll), "v" + std::to_string(i));
    }
  }
}

}  // namespace
}  // namespace teksdb
