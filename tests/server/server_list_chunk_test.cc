// Tests of a list's chunk encoding (list_chunk.h): random pushes, pops and
// replacements at both ends keep the elements what a std::deque of them
// holds, in order, with their count; the limits follow Redis's fill; every
// truncation and random damage of a chunk reads as damaged or as elements
// within its bytes, never past its end (the bytes are copied into a buffer
// of their exact size, so ASan sees any overread), and an edit of a damaged
// chunk leaves it unchanged.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "list_chunk.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Slice;

std::string RandomElement(std::mt19937_64& rng) {
  // Lengths across the varint's one- and two-byte forms (127 / 128 bytes).
  const size_t sizes[] = {0, 1, 5, 126, 127, 128, 129, 300, 20000};
  std::string s(sizes[rng() % 9], '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::vector<std::string> ReadAll(const std::string& chunk) {
  std::vector<std::string> elements;
  list_chunk::Reader reader(chunk);
  Slice element;
  while (reader.Next(&element)) elements.push_back(element.ToString());
  EXPECT_FALSE(reader.corrupt());
  EXPECT_EQ(reader.count(), elements.size());
  return elements;
}

TEST(ListChunkTest, EditsAtBothEndsKeepTheElementsInOrder) {
  const uint64_t seed = std::random_device()();
  std::mt19937_64 rng(seed);
  std::string chunk = list_chunk::Empty();
  std::deque<std::string> expected;
  for (int step = 0; step < 3000; ++step) {
    const bool front = rng() % 2 == 0;
    const int what = static_cast<int>(rng() % 4);
    if (what < 2 || expected.empty()) {
      std::vector<std::string> values(1 + rng() % 4);
      for (std::string& v : values) v = RandomElement(rng);
      if (front) {
        ASSERT_TRUE(list_chunk::PushFront(&chunk, values.data(), values.size()));
        for (const std::string& v : values) expected.push_front(v);
      } else {
        ASSERT_TRUE(list_chunk::Append(&chunk, values.data(), values.size()));
        expected.insert(expected.end(), values.begin(), values.end());
      }
    } else if (what == 2) {
      const uint32_t n = static_cast<uint32_t>(1 + rng() % expected.size());
      std::vector<std::string> popped;
      ASSERT_TRUE(front ? list_chunk::RemoveFront(&chunk, n, &popped)
                        : list_chunk::RemoveBack(&chunk, n, &popped));
      ASSERT_EQ(popped.size(), n);
      for (const std::string& p : popped) {
        EXPECT_EQ(p, front ? expected.front() : expected.back()) << "seed " << seed;
        front ? expected.pop_front() : expected.pop_back();
      }
    } else {
      const uint32_t index = static_cast<uint32_t>(rng() % expected.size());
      expected[index] = RandomElement(rng);
      ASSERT_TRUE(list_chunk::Replace(&chunk, index, expected[index]));
    }
    uint32_t count;
    ASSERT_TRUE(list_chunk::Count(chunk, &count));
    ASSERT_EQ(count, expected.size()) << "seed " << seed << " step " << step;
    if (expected.size() > 200) {
      ASSERT_TRUE(list_chunk::RemoveBack(&chunk, 100, nullptr));
      expected.erase(expected.end() - 100, expected.end());
    }
  }
  EXPECT_EQ(ReadAll(chunk), std::vector<std::string>(expected.begin(), expected.end()))
      << "seed " << seed;
  // The size a chunk reaches is what ElementBytes added up.
  size_t bytes = list_chunk::kHeaderBytes;
  for (const std::string& e : expected) bytes += list_chunk::ElementBytes(e.size());
  EXPECT_EQ(chunk.size(), bytes);
}

TEST(ListChunkTest, LimitsFollowRedisFillWithinTheChunkBound) {
  EXPECT_EQ(list_chunk::LimitsFor(-1).max_bytes, list_chunk::kMaxChunkBytes);
  EXPECT_EQ(list_chunk::LimitsFor(-2).max_entries, INT64_MAX);
  EXPECT_EQ(list_chunk::LimitsFor(-100).max_bytes, list_chunk::kMaxChunkBytes);
  EXPECT_EQ(list_chunk::LimitsFor(5).max_entries, 5);
  EXPECT_EQ(list_chunk::LimitsFor(5).max_bytes, list_chunk::kMaxChunkBytes);
  EXPECT_EQ(list_chunk::LimitsFor(0).max_entries, 1);
  const list_chunk::Limits three = list_chunk::LimitsFor(3);
  EXPECT_TRUE(list_chunk::Fits(three, 2, 100, 10));
  EXPECT_FALSE(list_chunk::Fits(three, 3, 100, 10));
  EXPECT_FALSE(list_chunk::Fits(three, 1, 1000, 100));
  // An empty chunk takes any element.
  EXPECT_TRUE(list_chunk::Fits(three, 0, list_chunk::kHeaderBytes, 1 << 20));
}

// Reads `bytes` from a buffer of exactly their size: whatever they hold,
// the reader stays inside them and says whether they were damaged.
bool ReadsWithinBounds(const std::string& bytes, size_t* elements) {
  std::unique_ptr<char[]> exact(new char[bytes.size() + 1]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  list_chunk::Reader reader(Slice(exact.get(), bytes.size()));
  Slice element;
  *elements = 0;
  while (reader.Next(&element)) {
    EXPECT_GE(element.data(), exact.get());
    EXPECT_LE(element.data() + element.size(), exact.get() + bytes.size());
    ++*elements;
  }
  return !reader.corrupt();
}

TEST(ListChunkTest, TruncatedAndDamagedChunksReadAsDamagedNeverPastTheirEnd) {
  std::mt19937_64 rng(7);
  std::string chunk = list_chunk::Empty();
  std::vector<std::string> values;
  for (int i = 0; i < 30; ++i) values.push_back(RandomElement(rng).substr(0, 300));
  ASSERT_TRUE(list_chunk::Append(&chunk, values.data(), values.size()));
  size_t elements;
  for (size_t cut = 0; cut < chunk.size(); ++cut) {
    EXPECT_FALSE(ReadsWithinBounds(chunk.substr(0, cut), &elements)) << "cut at " << cut;
  }
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = chunk;
    for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips) {
      damaged[rng() % damaged.size()] = static_cast<char>(rng());
    }
    ReadsWithinBounds(damaged, &elements);
    EXPECT_LE(elements, damaged.size() / 2) << "round " << round;
    // Edits of damaged bytes either work on what they read or leave them.
    for (int edit = 0; edit < 3; ++edit) {
      std::string copy = damaged;
      uint32_t count = 0;
      list_chunk::Count(copy, &count);
      const uint32_t n = count == 0 ? 0 : 1 + static_cast<uint32_t>(rng() % count);
      const bool ok = edit == 0   ? list_chunk::RemoveFront(&copy, n, nullptr)
                      : edit == 1 ? list_chunk::RemoveBack(&copy, n, nullptr)
                                  : list_chunk::Replace(&copy, n == 0 ? 0 : n - 1, "v");
      if (!ok) {
        EXPECT_EQ(copy, damaged) << "round " << round << " edit " << edit;
      }
    }
  }
  // Too short for a header.
  uint32_t count;
  EXPECT_FALSE(list_chunk::Count(Slice("abc", 3), &count));
  std::string short_chunk("ab");
  EXPECT_FALSE(list_chunk::RemoveFront(&short_chunk, 0, nullptr));
  // More than it holds.
  std::string one = list_chunk::Empty();
  ASSERT_TRUE(list_chunk::Append(&one, &values[0], 1));
  EXPECT_FALSE(list_chunk::RemoveBack(&one, 2, nullptr));
  EXPECT_FALSE(list_chunk::Replace(&one, 1, "x"));
}

}  // namespace
}  // namespace teksdb::server
