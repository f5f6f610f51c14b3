// Tests of the compact collection payload (compact_members.h): members come
// back as encoded, in member order, with their count and encoding byte;
// every truncation and random damage of a payload is read as damaged or as
// well-formed members within its bytes, never past its end (the bytes are
// copied into a buffer of their exact size, so ASan sees any overread).
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

std::map<std::string, std::string> RandomMembers(std::mt19937_64& rng, size_t n) {
  std::map<std::string, std::string> members;
  while (members.size() < n) {
    std::string member(rng() % 300, '\0'), value(rng() % 200, '\0');
    for (char& c : member) c = static_cast<char>(rng());
    for (char& c : value) c = static_cast<char>(rng());
    members[member] = value;
  }
  return members;
}

TEST(CompactMembersTest, RoundTripsMembersInOrderWithCountAndEncoding) {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 2, 127, 128, 300}) {
    const std::map<std::string, std::string> members = RandomMembers(rng, n);
    const std::string payload = compact_members::Encode(compact_members::kListpack, members);
    char encoding = 0;
    int64_t count = -1;
    ASSERT_TRUE(compact_members::ReadHeader(payload, &encoding, &count));
    EXPECT_EQ(encoding, compact_members::kListpack);
    EXPECT_EQ(count, static_cast<int64_t>(n));
    compact_members::Reader reader(payload);
    Slice member, value;
    auto expected = members.begin();
    while (reader.Next(&member, &value)) {
      ASSERT_NE(expected, members.end());
      EXPECT_EQ(member.ToString(), expected->first);
      EXPECT_EQ(value.ToString(), expected->second);
      ++expected;
    }
    EXPECT_FALSE(reader.corrupt());
    EXPECT_EQ(expected, members.end());
    std::map<std::string, std::string> decoded;
    ASSERT_TRUE(compact_members::Decode(payload, &decoded));
    EXPECT_EQ(decoded, members);
  }
}

TEST(CompactMembersTest, AnIntsetKeepsItsEncodingByte) {
  const std::string payload =
      compact_members::Encode(compact_members::kIntset, {{"-3", ""}, {"10", ""}, {"7", ""}});
  char encoding = 0;
  int64_t count = 0;
  ASSERT_TRUE(compact_members::ReadHeader(payload, &encoding, &count));
  EXPECT_EQ(encoding, compact_members::kIntset);
  EXPECT_EQ(count, 3);
}

TEST(CompactMembersTest, OtherBytesAreNotACompactPayload) {
  char encoding;
  int64_t count;
  EXPECT_FALSE(compact_members::ReadHeader(Slice(), &encoding, &count));
  EXPECT_FALSE(compact_members::ReadHeader(std::string(8, '\0'), &encoding, &count));
  // A count larger than the bytes could hold.
  EXPECT_FALSE(compact_members::ReadHeader(std::string("l\x7f", 2), &encoding, &count));
  std::map<std::string, std::string> decoded;
  EXPECT_FALSE(compact_members::Decode(std::string("l\x01\x05" "ab", 5), &decoded));
}

// Decodes `bytes` from a buffer of exactly their size: whatever they hold,
// the reader stays inside them and says whether they were damaged.
bool DecodesWithinBounds(const std::string& bytes, size_t* members) {
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
  const std::string payload =
      compact_members::Encode(compact_members::kListpack, RandomMembers(rng, 40));
  size_t members;
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    EXPECT_FALSE(DecodesWithinBounds(payload.substr(0, cut), &members)) << "cut at " << cut;
  }
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = payload;
    for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips) {
      damaged[rng() % damaged.size()] = static_cast<char>(rng());
    }
    DecodesWithinBounds(damaged, &members);
    EXPECT_LE(members, 40u + damaged.size()) << "round " << round;
  }
}

}  // namespace
}  // namespace teksdb::server
