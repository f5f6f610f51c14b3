// Tests of teksdb-server's ScanCursors (SCAN, HSCAN): a cursor finds the
// position it was saved with, never 0 and never twice the same; unknown
// cursors are refused; the table stays within its count and byte bounds,
// dropping the oldest first, yet keeps a single position larger than
// the byte bound.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "scan_cursors.h"

namespace teksdb::server {
namespace {

TEST(ScanCursorsTest, FindsWhatWasSavedAndRefusesTheRest) {
  ScanCursors cursors;
  const uint64_t a = cursors.Save("apple");
  const uint64_t b = cursors.Save(std::string("b\0c", 3));
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  std::string position;
  ASSERT_TRUE(cursors.Find(a, &position));
  EXPECT_EQ(position, "apple");
  ASSERT_TRUE(cursors.Find(b, &position));
  EXPECT_EQ(position, std::string("b\0c", 3));
  EXPECT_FALSE(cursors.Find(0, &position));
  EXPECT_FALSE(cursors.Find(b + 1, &position));
}

TEST(ScanCursorsTest, KeepsAtMostMaxCursorsDroppingTheOldest) {
  ScanCursors cursors;
  std::set<uint64_t> handed_out;
  const uint64_t first = cursors.Save("first");
  handed_out.insert(first);
  uint64_t last = first;
  for (size_t i = 0; i < ScanCursors::kMaxCursors; ++i) {
    last = cursors.Save("p" + std::to_string(i));
    handed_out.insert(last);
  }
  EXPECT_EQ(handed_out.size(), ScanCursors::kMaxCursors + 1);
  std::string position;
  EXPECT_FALSE(cursors.Find(first, &position));
  ASSERT_TRUE(cursors.Find(last, &position));
  EXPECT_EQ(position, "p" + std::to_string(ScanCursors::kMaxCursors - 1));
}

TEST(ScanCursorsTest, KeepsWithinTheByteBoundButAlwaysTheNewest) {
  ScanCursors cursors;
  const uint64_t small = cursors.Save("small");
  const uint64_t huge = cursors.Save(std::string(ScanCursors::kMaxBytes + 1, 'x'));
  std::string position;
  EXPECT_FALSE(cursors.Find(small, &position));
  ASSERT_TRUE(cursors.Find(huge, &position));
  EXPECT_EQ(position.size(), ScanCursors::kMaxBytes + 1);
  const uint64_t after = cursors.Save("after");
  EXPECT_FALSE(cursors.Find(huge, &position));
  EXPECT_TRUE(cursors.Find(after, &position));
}

}  // namespace
}  // namespace teksdb::server
