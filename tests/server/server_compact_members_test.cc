// Tests of the compact collection payload (compact_members.h): random puts
// and erases in place keep the members what a std::map of them holds, in
// member order, with their count and encoding byte, and the payload well
// formed; every truncation and random damage of a payload is read as
// damaged or as members within its bytes, never past its end (the bytes
// are copied into a buffer of their exact size, so ASan sees any overread);
// a listpackex keeps each field's deadline and its due version.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "compact_members.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Slice;

std::string RandomBytes(std::mt19937_64& rng, size_t max) {
  // Short ones from a small alphabet (so they collide), long ones random.
  std::string s(rng() % 4 == 0 ? rng() % max : rng() % 3, '\0');
  for (char& c : s) c = static_cast<char>(s.size() < 3 ? 'a' + rng() % 3 : rng());
  return s;
}

std::map<std::string, std::string> ReadAll(const std::string& payload) {
  std::map<std::string, std::string> members;
  compact_members::Reader reader(payload);
  Slice member, value;
  while (reader.Next(&member, &value)) {
    EXPECT_TRUE(members.empty() || members.rbegin()->first < member.ToString());
    members[member.ToString()] = value.ToString();
  }
  EXPECT_FALSE(reader.corrupt());
  return members;
}

TEST(CompactMembersTest, PutsAndErasesInPlaceKeepTheMembersInOrder) {
  const uint64_t seed = std::random_device()();
  std::mt19937_64 rng(seed);
  std::string payload = compact_members::Empty(compact_members::kListpack);
  std::map<std::string, std::string> expected;
  for (int step = 0; step < 3000; ++step) {
    const std::string member = RandomBytes(rng, 300);
    if (rng() % 3 == 0) {
      EXPECT_EQ(compact_members::Erase(&payload, member), expected.erase(member) > 0)
          << "seed " << seed << " step " << step;
    } else {
      const std::string value = RandomBytes(rng, 200);
      EXPECT_EQ(compact_members::Put(&payload, member, value), expected.count(member) > 0)
          << "seed " << seed << " step " << step;
      expected[member] = value;
    }
    ASSERT_TRUE(compact_members::WellFormed(payload)) << "seed " << seed << " step " << step;
    EXPECT_EQ(compact_members::Contains(payload, member), expected.count(member) > 0);
    char encoding = 0;
    int64_t count = -1;
    ASSERT_TRUE(compact_members::ReadHeader(payload, &encoding, &count));
    EXPECT_EQ(encoding, compact_members::kListpack);
    ASSERT_EQ(count, static_cast<int64_t>(expected.size())) << "seed " << seed << " step " << step;
  }
  EXPECT_EQ(ReadAll(payload), expected) << "seed " << seed;
}

TEST(CompactMembersTest, AnIntsetKeepsItsEncodingByteUntilSet) {
  std::string payload = compact_members::Empty(compact_members::kIntset);
  for (const char* m : {"10", "-3", "7"}) compact_members::Put(&payload, m, "");
  char encoding = 0;
  int64_t count = 0;
  ASSERT_TRUE(compact_members::ReadHeader(payload, &encoding, &count));
  EXPECT_EQ(encoding, compact_members::kIntset);
  EXPECT_EQ(count, 3);
  compact_members::SetEncoding(&payload, compact_members::kListpack);
  ASSERT_TRUE(compact_members::ReadHeader(payload, &encoding, &count));
  EXPECT_EQ(encoding, compact_members::kListpack);
  EXPECT_EQ(ReadAll(payload).size(), 3u);
}

TEST(CompactMembersTest, OtherBytesAreNotACompactPayload) {
  char encoding;
  int64_t count;
  EXPECT_FALSE(compact_members::ReadHeader(Slice(), &encoding, &count));
  EXPECT_FALSE(compact_members::ReadHeader(std::string(8, '\0'), &encoding, &count));
  // A count larger than the bytes could hold.
  EXPECT_FALSE(compact_members::ReadHeader(std::string("l\x7f", 2), &encoding, &count));
  EXPECT_FALSE(compact_members::WellFormed(std::string("l\x01\x05" "ab", 5)));
  // Members out of order, or twice.
  EXPECT_FALSE(compact_members::WellFormed(std::string("l\x02\x01" "b\x00\x01" "a\x00", 9)));
  EXPECT_FALSE(compact_members::WellFormed(std::string("l\x02\x01" "a\x00\x01" "a\x00", 9)));
}

TEST(CompactMembersTest, AListpackExKeepsADeadlineBesideEachValueAndItsDueVersion) {
  std::string listpack = compact_members::Empty(compact_members::kListpack);
  compact_members::Put(&listpack, "b", "2");
  compact_members::Put(&listpack, "a", "1");
  std::string ex = compact_members::WithDeadlines(listpack, 0x0102030405060708ULL);
  EXPECT_TRUE(compact_members::WellFormed(ex));
  EXPECT_EQ(compact_members::DueVersion(ex), 0x0102030405060708ULL);
  EXPECT_EQ(compact_members::DueVersion(listpack), 0u);
  char encoding;
  int64_t count;
  ASSERT_TRUE(compact_members::ReadHeader(ex, &encoding, &count));
  EXPECT_EQ(encoding, compact_members::kListpackEx);
  EXPECT_EQ(count, 2);
  Slice stored;
  ASSERT_TRUE(compact_members::Find(ex, "a", &stored));
  EXPECT_EQ(compact_members::DeadlineOf(stored), 0);
  EXPECT_EQ(compact_members::ValueOf(stored).ToString(), "1");
  // Puts, erases and a new due version keep the header and the order.
  compact_members::Put(&ex, "c", compact_members::Stored(4102444800000, "3"));
  compact_members::Put(&ex, "a", compact_members::Stored(1234, "one"));
  EXPECT_TRUE(compact_members::Erase(&ex, "b"));
  compact_members::SetDueVersion(&ex, 42);
  EXPECT_EQ(compact_members::DueVersion(ex), 42u);
  std::map<std::string, std::pair<int64_t, std::string>> seen;
  for (const auto& [field, value] : ReadAll(ex)) {
    seen[field] = {compact_members::DeadlineOf(value), compact_members::ValueOf(value).ToString()};
  }
  const std::map<std::string, std::pair<int64_t, std::string>> want = {
      {"a", {1234, "one"}}, {"c", {4102444800000, "3"}}};
  EXPECT_EQ(seen, want);
  // A value shorter than its deadline, or no room for the due version, is
  // damaged.
  std::string short_value = ex;
  compact_members::Put(&short_value, "d", "x");
  EXPECT_FALSE(compact_members::WellFormed(short_value));
  EXPECT_FALSE(compact_members::ReadHeader(std::string("e\x00\x01", 3), &encoding, &count));
}

// Reads `bytes` from a buffer of exactly their size: whatever they hold,
// the reader stays inside them and says whether they were damaged.
bool ReadsWithinBounds(const std::string& bytes, size_t* members) {
  std::unique_ptr<char[]> exact(new char[bytes.size() + 1]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  compact_members::Reader reader(Slice(exact.get(), bytes.size()));
  Slice member, value;
  *members = 0;
  while (reader.Next(&member, &value)) {
    EXPECT_GE(member.data(), exact.get());
    EXPECT_LE(value.data() + value.size(), exact.get() + bytes.size());
    ++*members;
  }
  return !reader.corrupt();
}

TEST(CompactMembersTest, TruncatedAndDamagedPayloadsReadAsDamagedNeverPastTheirEnd) {
  std::mt19937_64 rng(11);
  std::string payload = compact_members::Empty(compact_members::kListpack);
  while (ReadAll(payload).size() < 40) compact_members::Put(&payload, RandomBytes(rng, 300), "value");
  size_t members;
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    EXPECT_FALSE(ReadsWithinBounds(payload.substr(0, cut), &members)) << "cut at " << cut;
  }
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = payload;
    for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips) {
      damaged[rng() % damaged.size()] = static_cast<char>(rng());
    }
    ReadsWithinBounds(damaged, &members);
    EXPECT_LE(members, damaged.size() / 2) << "round " << round;
  }
}

}  // namespace
}  // namespace teksdb::server
