// Tests of AnchorDirectory and the skip-list searches that start from it:
// on a skip list of 200k random keys shaped to trouble 8-byte prefixes
// (keys shorter than 8 bytes, zero bytes, long shared prefixes, prefixes
// that tie), every search from the nearest anchor must return exactly what
// a search from the head returns (and what a sorted set says), both right
// after a build and after inserts the last build did not see. Also: the
// prefix order, the rebuild policy, the memory taken, and that a directory
// for keys not ordered bytewise never builds.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "anchor_directory.h"
#include "ordered_index.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::InternalKeyOrder;
using test::MakeRecord;
using test::ReplayHint;
using test::SeedFor;
using test::TestArena;

// Bytes that make prefixes tie or pad: zero (the pad itself), one, the
// extremes, and two letters.
constexpr char kAlphabet[] = {'\0', '\1', 'a', 'b', '\x7f', '\x80', '\xff'};

// A random key of one of the troublesome shapes.
std::string RandomKey(std::mt19937_64& rng) {
  auto bytes = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(kAlphabet[rng() % sizeof(kAlphabet)]);
    return s;
  };
  switch (rng() % 7) {
    case 5: {  // teksdb-server's members: "H", a big-endian version, a field
      std::string version(8, '\0');
      version[7] = static_cast<char>(rng() % 64);
      return "H" + version + bytes(rng() % 6);
    }
    case 6:  // 16 bytes shared, then anything: ties on both prefixes
      return std::string(16, 'x') + bytes(rng() % 4);
    case 0:  // shorter than a prefix, down to empty
      return bytes(rng() % 8);
    case 1:  // a long prefix shared by every key of this shape
      return "user-account-" + std::to_string(rng() % 1000000);
    case 2:  // one of 16 8-byte prefixes, then anything: ties
      return std::string("tie") + static_cast<char>('A' + rng() % 16) + std::string(4, '\0') +
             bytes(rng() % 6);
    case 3:  // exactly 8 or 9 bytes
      return bytes(8 + rng() % 2);
    default:  // anything up to 20 bytes
      return bytes(rng() % 21);
  }
}

// A key next to `key`: where absent targets are most likely to go wrong.
std::string Neighbour(const std::string& key, std::mt19937_64& rng) {
  std::string k = key;
  switch (rng() % 4) {
    case 0:
      return k + std::string(1, '\0');
    case 1:
      if (!k.empty()) k.pop_back();
      return k;
    case 2:
      if (!k.empty()) k.back() = static_cast<char>(static_cast<unsigned char>(k.back()) + 1);
      return k;
    default:
      return k + kAlphabet[rng() % sizeof(kAlphabet)];
  }
}

std::string UserKey(const KeyRecord* r) {
  return r == nullptr ? std::string("<none>") : r->user_key().ToString();
}

// A skip list with anchors, and the sorted set of its keys.
class AnchoredIndex {
 public:
  AnchoredIndex() : index(order_, &arena) {}
  void Insert(const std::string& key) {
    if (!keys.insert(key).second) return;
    index.Insert(MakeRecord(&arena, key, 1));
  }
  // Records on level AnchorDirectory::kLevel now.
  size_t LevelSize() const {
    size_t n = 0;
    for (KeyRecord* r = index.First(); r != nullptr; r = r->Next(0)) {
      if (r->height() > AnchorDirectory::kLevel) ++n;
    }
    return n;
  }

 private:
  InternalKeyOrder order_;

 public:
  TestArena arena;
  OrderedIndex index;
  std::set<std::string> keys;
};

// Every search for `target`, from the anchors and from the head, against
// the set. Returns whether an anchor was used.
bool ExpectSameAnswers(const AnchoredIndex& a, const std::string& target) {
  // A seek key sorts before every entry of its user key (sequence 1 here);
  // one that sorts after the record's own entry takes the path where the
  // descent ends on the record itself.
  for (SequenceNumber seq : {SequenceNumber{100}, SequenceNumber{0}}) {
    const std::string ikey = InternalKey(target, seq, kEntryValue);
    KeyRecord* anchored = a.index.FindFirstAtOrAfter(ikey);
    KeyRecord* from_head = a.index.FindFirstAtOrAfter(ikey, OrderedIndex::Start::kHead);
    auto it = a.keys.lower_bound(target);
    const std::string expected = it == a.keys.end() ? "<none>" : *it;
    EXPECT_EQ(anchored, from_head) << "seek " << testing::PrintToString(target) << ": "
                                   << testing::PrintToString(UserKey(anchored)) << " vs "
                                   << testing::PrintToString(UserKey(from_head));
    EXPECT_EQ(UserKey(from_head), expected) << testing::PrintToString(target);
  }
  KeyRecord* anchor = a.index.anchors().Find(target);
  if (anchor == nullptr) return false;
  EXPECT_LT(anchor->user_key().compare(target), 0) << testing::PrintToString(target);
  EXPECT_GT(anchor->height(), AnchorDirectory::kLevel);
  return true;
}

void ExpectAllSearchesAgree(const AnchoredIndex& a, std::mt19937_64& rng, int seeks) {
  std::vector<std::string> present(a.keys.begin(), a.keys.end());
  int anchored = 0;
  for (int i = 0; i < seeks; ++i) {
    const std::string& key = present[rng() % present.size()];
    std::string target;
    switch (i % 3) {
      case 0:
        target = key;
        break;
      case 1:
        target = Neighbour(key, rng);
        break;
      default:
        target = RandomKey(rng);
    }
    if (ExpectSameAnswers(a, target)) ++anchored;
    if (testing::Test::HasFailure()) return;
  }
  // Most targets have an anchor below them (all but those before the first).
  EXPECT_GT(anchored, seeks * 9 / 10);
  // FindLessThan from an anchor and from the head, against the set.
  for (int i = 0; i < seeks / 4; ++i) {
    const std::string& key = present[rng() % present.size()];
    KeyRecord* r = a.index.FindUserKey(InternalKey(key, 100, kEntryValue));
    ASSERT_NE(r, nullptr) << testing::PrintToString(key);
    KeyRecord* anchored_less = a.index.FindLessThan(r);
    EXPECT_EQ(anchored_less, a.index.FindLessThan(r, OrderedIndex::Start::kHead));
    auto it = a.keys.find(key);
    EXPECT_EQ(UserKey(anchored_less),
              it == a.keys.begin() ? std::string("<none>") : *std::prev(it));
  }
}

TEST(AnchorDirectoryTest, ASmallerPrefixMeansASmallerKey) {
  EXPECT_EQ(AnchorDirectory::Prefix(""), 0u);
  EXPECT_EQ(AnchorDirectory::Prefix(std::string("\0", 1)), 0u);
  EXPECT_EQ(AnchorDirectory::Prefix("a"), uint64_t{'a'} << 56);
  EXPECT_EQ(AnchorDirectory::Prefix("abcdefgh"), AnchorDirectory::Prefix("abcdefghij"));
  EXPECT_EQ(AnchorDirectory::Prefix("\x01\x02\x03\x04\x05\x06\x07\x08"),
            0x0102030405060708u);
  EXPECT_EQ(AnchorDirectory::Prefix("abcdefgh", 8), 0u);
  EXPECT_EQ(AnchorDirectory::Prefix("abcdefghi", 8), uint64_t{'i'} << 56);
  const uint64_t seed = SeedFor(8);
  SCOPED_TRACE(ReplayHint(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200000; ++i) {
    const std::string a = RandomKey(rng);
    const std::string b = i % 2 == 0 ? RandomKey(rng) : Neighbour(a, rng);
    const uint64_t pa = AnchorDirectory::Prefix(a), pb = AnchorDirectory::Prefix(b);
    if (pa < pb) {
      ASSERT_LT(a, b) << testing::PrintToString(a) << " " << testing::PrintToString(b);
    }
    if (a < b) {
      ASSERT_LE(pa, pb) << testing::PrintToString(a) << " " << testing::PrintToString(b);
    }
    if (pa != pb) continue;
    // Between keys of one prefix, the second prefix orders the same way.
    const uint64_t sa = AnchorDirectory::Prefix(a, 8), sb = AnchorDirectory::Prefix(b, 8);
    if (sa < sb) {
      ASSERT_LT(a, b) << testing::PrintToString(a) << " " << testing::PrintToString(b);
    }
    if (a < b) {
      ASSERT_LE(sa, sb) << testing::PrintToString(a) << " " << testing::PrintToString(b);
    }
  }
}

TEST(AnchorDirectoryTest, SearchesFromAnchorsFindWhatSearchesFromTheHeadFind) {
  const uint64_t seed = SeedFor(88);
  SCOPED_TRACE(ReplayHint(seed));
  std::mt19937_64 rng(seed);
  AnchoredIndex a;
  while (a.keys.size() < 200000) a.Insert(RandomKey(rng));
  // 200k keys put about 12.5k records on level 2: the last build saw at
  // least half of them.
  const AnchorDirectory& anchors = a.index.anchors();
  ASSERT_GE(anchors.builds(), 5u);
  const size_t level_size = a.LevelSize();
  EXPECT_GE(anchors.size() * 2, level_size);
  EXPECT_LE(anchors.size(), level_size);
  ExpectAllSearchesAgree(a, rng, 30000);

  // Inserts the last build did not see: 10% more keys stay below the next
  // build (twice what the last one found), so the array is stale.
  const uint64_t builds = anchors.builds();
  const size_t array_size = anchors.size();
  for (size_t target = a.keys.size() * 11 / 10; a.keys.size() < target;) {
    a.Insert(RandomKey(rng));
  }
  ASSERT_EQ(anchors.builds(), builds);
  ASSERT_EQ(anchors.size(), array_size);
  ExpectAllSearchesAgree(a, rng, 30000);

  // Enough more for another build.
  while (anchors.builds() == builds) a.Insert(RandomKey(rng));
  EXPECT_GT(anchors.size(), array_size);
  ExpectAllSearchesAgree(a, rng, 30000);
}

TEST(AnchorDirectoryTest, KeysPastTheLastAnchorSearchFromTheHead) {
  // Keys arriving in order all land after the array's last anchor until
  // the next build: a descent from that anchor would walk all of them.
  AnchoredIndex a;
  int n = 0;
  while (a.index.anchors().builds() == 0) a.Insert(test::OrderedKey(n++));
  const std::string last_key = test::OrderedKey(n - 1);
  EXPECT_EQ(a.index.anchors().Find(last_key + "z"), nullptr);
  // Below the last anchor, an anchor still bounds the walk.
  EXPECT_NE(a.index.anchors().Find(test::OrderedKey(n / 2)), nullptr);
  for (int i = 0; i <= n; ++i) {
    for (const std::string& target : {test::OrderedKey(i), test::OrderedKey(i) + "z"}) {
      const std::string ikey = InternalKey(target, 100, kEntryValue);
      ASSERT_EQ(a.index.FindFirstAtOrAfter(ikey),
                a.index.FindFirstAtOrAfter(ikey, OrderedIndex::Start::kHead))
          << target;
    }
  }
}

TEST(AnchorDirectoryTest, OrderedStreamsBetweenAnchorsWalkFewRecordsPerInsert) {
  // Two streams of keys in order, interleaved, inside the key space (as
  // teksdb-server's versioned members and owner records arrive): each
  // lands in one gap between anchors, where a search from the anchor
  // before it would walk past every record linked there since the last
  // build (thousands per insert here without the walk's bound).
  const uint64_t seed = SeedFor(7);
  SCOPED_TRACE(ReplayHint(seed));
  std::mt19937_64 rng(seed);
  AnchoredIndex a;
  for (int i = 0; i < 20000; ++i) {
    a.Insert("a" + std::to_string(rng()));
    a.Insert("z" + std::to_string(rng()));
  }
  ASSERT_GT(a.index.anchors().builds(), 0u);
  const uint64_t before = OrderedIndex::RecordsPassedByInsertsOnThisThread();
  const int n = 50000;
  for (int i = 0; i < n; ++i) {
    a.Insert("m1-" + test::OrderedKey(i));
    a.Insert("m2-" + test::OrderedKey(i));
  }
  const double per_insert =
      static_cast<double>(OrderedIndex::RecordsPassedByInsertsOnThisThread() - before) / (2 * n);
  EXPECT_LT(per_insert, 4 * OrderedIndex::kAnchorWalkSteps);
  // Searches into the streams' gap, from anchors and from the head, agree.
  for (int i = 0; i < 4000; ++i) {
    const std::string key = (i % 2 ? "m1-" : "m2-") + test::OrderedKey(rng() % n);
    for (const std::string& target : {key, key + "z"}) {
      ASSERT_TRUE(ExpectSameAnswers(a, target)) << target;
    }
  }
}

TEST(AnchorDirectoryTest, EveryArrayComesFromTheArenaAndTheyStayWithinTwiceTheNewest) {
  const uint64_t seed = SeedFor(888);
  SCOPED_TRACE(ReplayHint(seed));
  std::mt19937_64 rng(seed);
  AnchoredIndex a;
  const AnchorDirectory& anchors = a.index.anchors();
  const size_t heap_bytes = a.index.MemoryUsage();
  while (anchors.builds() < 6) a.Insert(RandomKey(rng));
  // The arena holds the records and the arrays, nothing else.
  size_t record_bytes = 0;
  for (KeyRecord* r = a.index.First(); r != nullptr; r = r->Next(0)) {
    record_bytes += KeyRecord::AllocationSize(
        r->height(), EncodeEntry(r->user_key(), 1, kEntryValue, Slice()).size());
  }
  EXPECT_EQ(a.arena.allocated_bytes(), record_bytes + anchors.ArenaBytes());
  EXPECT_EQ(a.index.MemoryUsage(), heap_bytes);
  // Each anchor takes 24 bytes (two prefixes, a pointer); arrays get an
  // eighth more room, plus 64 anchors and a small header each; the older
  // arrays add up to less than the newest.
  const size_t newest = anchors.size() * 24;
  EXPECT_GE(anchors.ArenaBytes(), newest);
  EXPECT_LE(anchors.ArenaBytes(), 2 * newest * 9 / 8 + anchors.builds() * (64 * 24 + 64));
}

// After MarkReadOnly RocksDB's arena must not allocate (anchor_directory.h).
TEST(AnchorDirectoryTest, NoArrayIsBuiltAfterBuildsStop) {
  const uint64_t seed = SeedFor(8881);
  SCOPED_TRACE(ReplayHint(seed));
  std::mt19937_64 rng(seed);
  AnchoredIndex a;
  const AnchorDirectory& anchors = a.index.anchors();
  while (anchors.builds() < 3) a.Insert(RandomKey(rng));
  a.index.StopAnchorBuilds();
  const uint64_t builds = anchors.builds();
  const size_t bytes = anchors.ArenaBytes();
  // Four times the keys: two builds' worth.
  for (size_t target = a.keys.size() * 4; a.keys.size() < target;) a.Insert(RandomKey(rng));
  EXPECT_EQ(anchors.builds(), builds);
  EXPECT_EQ(anchors.ArenaBytes(), bytes);
  ExpectAllSearchesAgree(a, rng, 5000);
}

TEST(AnchorDirectoryTest, KeysNotKnownToOrderBytewiseGetNoAnchors) {
  InternalKeyOrder order;
  TestArena arena;
  OrderedIndex index(order);
  std::mt19937_64 rng(SeedFor(8888));
  std::set<std::string> keys;
  while (keys.size() < 20000) {
    const std::string key = RandomKey(rng);
    if (keys.insert(key).second) index.Insert(MakeRecord(&arena, key, 1));
  }
  EXPECT_FALSE(index.anchors().enabled());
  EXPECT_EQ(index.anchors().builds(), 0u);
  EXPECT_EQ(index.anchors().ArenaBytes(), 0u);
  EXPECT_EQ(index.anchors().Find(*keys.rbegin()), nullptr);
  EXPECT_EQ(UserKey(index.FindFirstAtOrAfter(InternalKey(*keys.rbegin(), 100, kEntryValue))),
            *keys.rbegin());
}

}  // namespace
}  // namespace teksdb
