// Concurrency test of the skip list's anchors, meant for ThreadSanitizer:
// writers link records (and so rebuild the anchor arrays, as the background
// linker or a synchronous writer does) while readers seek from the nearest
// anchor. Each seek's answer must be a record at or after its target with
// no record between them that was linked before the seek began; a search
// from the head made right after may find only records linked meanwhile
// before the answer. Those readers learn what was linked from the writers'
// counters, which orders them after most builds; another reader seeks
// without reading them, so that ThreadSanitizer sees it read each new array
// ordered after its build only by the array's publication.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "anchor_directory.h"
#include "ordered_index.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::InternalKeyOrder;
using test::MakeRecord;
using test::ReplayHint;
using test::Scale;
using test::SeedFor;
using test::TestArena;

constexpr int kWriters = 2;
constexpr int kReaders = 2;
constexpr int kFreeReaders = 1;
constexpr size_t kTagBytes = 5;

constexpr char kAlphabet[] = {'\0', '\1', 'a', '\x80', '\xff'};

// A random body of 0 to 12 bytes, some sharing an 8-byte prefix.
std::string RandomBody(std::mt19937_64& rng) {
  std::string s = rng() % 4 == 0 ? std::string("shared8b") : std::string();
  const size_t n = rng() % 13;
  for (size_t i = 0; i < n; ++i) s.push_back(kAlphabet[rng() % sizeof(kAlphabet)]);
  return s;
}

// Writer `w`'s `i`th key: a random body, then (w, i) in kTagBytes bytes, so
// that every key is distinct and says who inserted it when.
std::string WriterKey(std::mt19937_64& rng, int w, uint32_t i) {
  std::string key = RandomBody(rng);
  key.push_back(static_cast<char>(w));
  for (int shift = 24; shift >= 0; shift -= 8) key.push_back(static_cast<char>(i >> shift));
  return key;
}
void ParseTag(const Slice& key, int* w, uint32_t* i) {
  const auto* tag = reinterpret_cast<const uint8_t*>(key.data() + key.size() - kTagBytes);
  *w = tag[0];
  *i = (uint32_t{tag[1]} << 24) | (uint32_t{tag[2]} << 16) | (uint32_t{tag[3]} << 8) | tag[4];
}

TEST(ConcurrentAnchorDirectoryTest, SeeksFromAnchorsBeingRebuiltMissNoLinkedRecord) {
  const uint64_t seed = SeedFor(8008);
  SCOPED_TRACE(ReplayHint(seed));
  const uint32_t keys_per_writer = 60000 * Scale();
  InternalKeyOrder order;
  TestArena arena;
  OrderedIndex index(order, &arena);

  // Keys and records made up front, so writers only link.
  std::vector<std::vector<KeyRecord*>> records(kWriters);
  std::mt19937_64 key_rng(seed);
  for (int w = 0; w < kWriters; ++w) {
    for (uint32_t i = 0; i < keys_per_writer; ++i) {
      records[w].push_back(MakeRecord(&arena, WriterKey(key_rng, w, i), 1));
    }
  }
  // linked[w]: writer w's records [0, linked[w]) are in the skip list.
  std::atomic<uint32_t> linked[kWriters];
  for (auto& l : linked) l.store(0);
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> readers_ready{0};
  std::atomic<long> seeks{0}, anchored{0};

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      while (readers_ready.load() < kReaders) std::this_thread::yield();
      for (uint32_t i = 0; i < keys_per_writer; ++i) {
        index.Insert(records[w][i]);
        linked[w].store(i + 1, std::memory_order_release);
      }
      writers_left.fetch_sub(1);
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(seed + 1 + r);
      readers_ready.fetch_add(1);
      while (writers_left.load() > 0 && !testing::Test::HasFailure()) {
        // A target of the same shapes, sometimes a linked key itself.
        std::string target = RandomBody(rng);
        if (rng() % 4 == 0) {
          const int w = rng() % kWriters;
          const uint32_t n = linked[w].load(std::memory_order_acquire);
          if (n > 0) target = records[w][rng() % n]->user_key().ToString();
        }
        uint32_t before[kWriters];
        for (int w = 0; w < kWriters; ++w) before[w] = linked[w].load(std::memory_order_acquire);
        const std::string ikey = InternalKey(target, 100, kEntryValue);
        KeyRecord* anchor = index.anchors().Find(target);
        KeyRecord* found = index.FindFirstAtOrAfter(ikey);
        KeyRecord* from_head = index.FindFirstAtOrAfter(ikey, OrderedIndex::Start::kHead);
        ++seeks;
        if (anchor != nullptr) {
          ++anchored;
          ASSERT_LT(anchor->user_key().compare(target), 0);
          ASSERT_GT(anchor->height(), AnchorDirectory::kLevel);
          ASSERT_TRUE(anchor->linked());
        }
        // (Not necessarily linked(): that mark follows the level-0 link.)
        if (found != nullptr) {
          ASSERT_GE(found->user_key().compare(target), 0);
        }
        // Records only join the list, so the search from the head, made
        // later, finds `found` or something before it; whatever lies from
        // there up to `found` was linked after the seek began.
        ASSERT_TRUE(found == nullptr || from_head != nullptr);
        for (KeyRecord* x = from_head; x != found; x = x->Next(0)) {
          ASSERT_NE(x, nullptr) << "the head search passed the anchored answer";
          int w;
          uint32_t i;
          ParseTag(x->user_key(), &w, &i);
          ASSERT_GE(i, before[w]) << "the seek for " << testing::PrintToString(target)
                                  << " missed a record linked before it began";
        }
      }
    });
  }
  for (int r = 0; r < kFreeReaders; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(seed + 1 + kReaders + r);
      while (writers_left.load(std::memory_order_relaxed) > 0 && !testing::Test::HasFailure()) {
        const std::string target = RandomBody(rng);
        KeyRecord* anchor = index.anchors().Find(target);
        if (anchor != nullptr) {
          ASSERT_LT(anchor->user_key().compare(target), 0);
        }
        KeyRecord* found = index.FindFirstAtOrAfter(InternalKey(target, 100, kEntryValue));
        if (found != nullptr) {
          ASSERT_GE(found->user_key().compare(target), 0);
        }
      }
    });
  }
  for (auto& t : threads) t.join();

  // The arrays were rebuilt while readers used them, and used.
  EXPECT_GT(seeks.load(), 0);
  EXPECT_GE(index.anchors().builds(), 4u);
  EXPECT_GT(anchored.load(), 0);
  // Everything linked: a final search from anchors over every key.
  for (int w = 0; w < kWriters; ++w) {
    for (uint32_t i = 0; i < keys_per_writer; i += 97) {
      const KeyRecord* r = records[w][i];
      ASSERT_EQ(index.FindFirstAtOrAfter(r->internal_key()), r);
    }
  }
  // Inserts searched from anchors too.
  std::vector<const KeyRecord*> all;
  for (int w = 0; w < kWriters; ++w) all.insert(all.end(), records[w].begin(), records[w].end());
  test::ExpectEveryLevelSortedAndComplete(index, all);
}

}  // namespace
}  // namespace teksdb
