// The RDB objects of server/rdb/: listpacks (every integer and string
// encoding at its bounds, back lengths, Redis's bytes for a known
// listpack), intsets (widths, order), ziplists and zipmaps (built by the
// formats' rules), values of every type (streams with groups, consumers
// and pending entries too) written and read back in each encoding DUMP
// writes, the older encodings read, and damaged input
// (every cut, random bytes flipped, huge lengths) refused or read without
// reading past the end (under ASan in CI). Round trips against
// redis-server itself: tests/server/server_dump_restore_test.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "intset.h"
#include "listpack.h"
#include "rdb_payload.h"
#include "rdb_value.h"
#include "ziplist.h"
#include "zipmap.h"

namespace teksdb::server {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(RdbValueTest, ListpackOfRedisBytes) {
  // redis-server 7.0: HSET h a 1, then DUMP h: a hash listpack (type 16)
  // of "a" as a 6-bit string and 1 as a 7-bit integer, each with its
  // one-byte back length; the footer of RDB version 10 and the CRC64.
  const std::string lp = Bytes({0x0c, 0, 0, 0, 0x02, 0, 0x81, 'a', 0x02, 0x01, 0x01, 0xff});
  std::vector<std::string> entries;
  ASSERT_TRUE(listpack::Decode(lp, &entries));
  EXPECT_EQ(entries, (std::vector<std::string>{"a", "1"}));
  EXPECT_EQ(listpack::Encode({"a", "1"}), lp);
  RedisValue hash;
  hash.type = RedisValue::Type::kHash;
  hash.compact = true;
  hash.fields = {{"a", "1"}};
  EXPECT_EQ(rdb_value::Dump(hash), Bytes({0x10, 0x0c}) + lp +
                                       Bytes({0x0a, 0x00, 0x84, 0xa6, 0x93, 0xe8, 0xaa, 0x17, 0xe4, 0xdb}));
}

TEST(RdbValueTest, ListpackEntriesAtEveryEncodingBound) {
  std::vector<std::string> values = {"0", "127", "128", "-1", "4095", "-4096", "4096", "-4097",
                                     "32767", "-32768", "32768", "8388607", "-8388608", "8388608",
                                     "2147483647", "-2147483648", "2147483648",
                                     "9223372036854775807", "-9223372036854775808",
                                     "9223372036854775808", "007", "-0", "+1", "", "x"};
  for (size_t n : {63, 64, 4095, 4096, 70000}) values.push_back(std::string(n, 's'));
  // Entries whose size puts the back length at lpEncodeBacklen's bounds.
  for (size_t n : {120, 125, 126, 127, 16370, 16378, 16379, 16380, 16381}) {
    values.push_back(std::string(n, 'b'));
  }
  std::vector<std::string_view> views(values.begin(), values.end());
  const std::string lp = listpack::Encode(views);
  std::vector<std::string> back;
  ASSERT_TRUE(listpack::Decode(lp, &back));
  EXPECT_EQ(back, values);
  // Integers are stored as integers: "128" takes 2 bytes of entry, not 4.
  EXPECT_LT(listpack::Encode({"128"}).size(), listpack::Encode({"12x"}).size());
}

TEST(RdbValueTest, DamagedListpacksAreRefused) {
  const std::string lp = listpack::Encode({"hello", "12345", std::string(300, 'z'), "-7"});
  std::vector<std::string> entries;
  for (size_t cut = 0; cut < lp.size(); ++cut) {
    EXPECT_FALSE(listpack::Decode(lp.substr(0, cut), &entries)) << cut;
  }
  std::string wrong_count = lp;
  wrong_count[4] = 3;
  EXPECT_FALSE(listpack::Decode(wrong_count, &entries));
  std::string unknown_count = lp;
  unknown_count[4] = unknown_count[5] = static_cast<char>(0xff);
  EXPECT_TRUE(listpack::Decode(unknown_count, &entries));
  std::string bad_backlen = lp;
  bad_backlen[6 + 1 + 5] ^= 1;  // "hello"'s back length
  EXPECT_FALSE(listpack::Decode(bad_backlen, &entries));
}

TEST(RdbValueTest, IntsetsOfEveryWidth) {
  for (const std::vector<int64_t>& values :
       {std::vector<int64_t>{3, -2, 1}, {40000, -5}, {int64_t{1} << 40, -1}}) {
    const std::string is = intset::Encode(values);
    std::vector<std::string> members;
    ASSERT_TRUE(intset::Decode(is, &members));
    std::vector<int64_t> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(members.size(), sorted.size());
    for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(members[i], std::to_string(sorted[i]));
  }
  EXPECT_EQ(intset::Encode({1, 2}).size(), 8u + 2 * 2);
  EXPECT_EQ(intset::Encode({1, 40000}).size(), 8u + 2 * 4);
  std::vector<std::string> members;
  std::string unsorted = intset::Encode({1, 2});
  std::swap(unsorted[8], unsorted[10]);
  EXPECT_FALSE(intset::Decode(unsorted, &members)) << "out of order";
  EXPECT_FALSE(intset::Decode(Bytes({2, 0, 0, 0, 0, 0, 0, 0}), &members)) << "empty";
  EXPECT_FALSE(intset::Decode(Bytes({3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}), &members)) << "width 3";
  EXPECT_FALSE(intset::Decode(intset::Encode({1, 2}).substr(0, 11), &members)) << "cut";
}

// A ziplist by ziplist.c's rules: prevlen, encoding, data; header; end.
std::string Ziplist(const std::vector<std::string>& encoded_entries) {
  std::string body;
  size_t previous = 0, tail = 10;
  for (const std::string& e : encoded_entries) {
    tail = 10 + body.size();
    std::string entry;
    if (previous < 254) {
      entry.push_back(static_cast<char>(previous));
    } else {
      entry.push_back(static_cast<char>(0xfe));
      for (int i = 0; i < 4; ++i) entry.push_back(static_cast<char>((previous >> (8 * i)) & 0xff));
    }
    entry += e;
    previous = entry.size();
    body += entry;
  }
  std::string zl;
  const size_t total = 10 + body.size() + 1;
  for (int i = 0; i < 4; ++i) zl.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) zl.push_back(static_cast<char>((tail >> (8 * i)) & 0xff));
  zl.push_back(static_cast<char>(encoded_entries.size()));
  zl.push_back(0);
  return zl + body + Bytes({0xff});
}

TEST(RdbValueTest, ZiplistsOfEveryEncoding) {
  const std::string big(300, 'q');  // a 14-bit length, and a 5-byte prevlen after it
  const std::string zl = Ziplist({
      Bytes({0x03}) + "abc",
      Bytes({0x40 | (300 >> 8), 300 & 0xff}) + big,
      Bytes({0xf1}),                          // immediate 0
      Bytes({0xfd}),                          // immediate 12
      Bytes({0xfe, 0x80}),                    // int8 -128
      Bytes({0xc0, 0x00, 0x80}),              // int16 -32768
      Bytes({0xf0, 0xff, 0xff, 0x7f}),        // int24 8388607
      Bytes({0xd0, 0x00, 0x00, 0x00, 0x80}),  // int32 min
      Bytes({0xe0, 1, 0, 0, 0, 0, 0, 0, 0}),  // int64 1
  });
  std::vector<std::string> entries;
  ASSERT_TRUE(ziplist::Decode(zl, &entries));
  EXPECT_EQ(entries, (std::vector<std::string>{"abc", big, "0", "12", "-128", "-32768", "8388607",
                                               "-2147483648", "1"}));
  for (size_t cut = 0; cut < zl.size(); ++cut) {
    EXPECT_FALSE(ziplist::Decode(zl.substr(0, cut), &entries)) << cut;
  }
  std::string bad_prevlen = zl;
  bad_prevlen[10 + 5] = 9;  // the second entry's prevlen (the first took 5 bytes)
  EXPECT_FALSE(ziplist::Decode(bad_prevlen, &entries));
}

TEST(RdbValueTest, Zipmaps) {
  // {"f": "v", "name": "value"} with 2 free bytes after "value".
  const std::string zm = Bytes({2, 1}) + "f" + Bytes({1, 0}) + "v" + Bytes({4}) + "name" +
                         Bytes({5, 2}) + "value" + "xx" + Bytes({0xff});
  std::vector<std::pair<std::string, std::string>> pairs;
  ASSERT_TRUE(zipmap::Decode(zm, &pairs));
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1], (std::pair<std::string, std::string>{"name", "value"}));
  for (size_t cut = 0; cut < zm.size(); ++cut) {
    EXPECT_FALSE(zipmap::Decode(zm.substr(0, cut), &pairs)) << cut;
  }
}

RedisValue RandomValue(std::mt19937& rng) {
  auto text = [&](size_t max) {
    std::string s(rng() % max + 1, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? rng() : 'a' + rng() % 3);
    if (rng() % 4 == 0) s = std::to_string(static_cast<int64_t>(rng()) - (1 << 30));
    return s;
  };
  RedisValue v;
  v.type = static_cast<RedisValue::Type>(rng() % 6);
  if (v.type == RedisValue::Type::kStream) {
    RedisStream& s = v.stream;
    RedisStream::Id id{1 + rng() % 1000, 0};
    const size_t n = rng() % 3 == 0 ? 150 + rng() % 200 : rng() % 20;
    for (size_t i = 0; i < n; ++i) {
      id = rng() % 2 ? RedisStream::Id{id.ms, id.seq + 1} : RedisStream::Id{id.ms + 1 + rng() % 50, 0};
      RedisStream::Entry e{id, {}};
      const size_t fields = 1 + rng() % 3;
      for (size_t f = 0; f < fields; ++f) e.fields.emplace_back(rng() % 2 ? "f" : text(8), text(30));
      s.entries.push_back(std::move(e));
    }
    s.last_id = s.entries.empty() ? RedisStream::Id{5, 5} : s.entries.back().id;
    s.first_id = s.entries.empty() ? RedisStream::Id{} : s.entries.front().id;
    s.max_deleted = RedisStream::Id{rng() % 3, 0};
    s.entries_added = n + rng() % 5;
    for (size_t g = 0; g < rng() % 3; ++g) {
      RedisStream::Group group{"group" + std::to_string(g), s.last_id,
                               static_cast<int64_t>(rng() % 5) - 1, {}, {}};
      group.consumers = {{"alice", 1700000000000}, {"bob", 1700000000001}};
      for (const RedisStream::Entry& e : s.entries) {
        if (rng() % 3 == 0) {
          group.pending.push_back({e.id, 1700000000000 + static_cast<int64_t>(rng() % 1000),
                                   rng() % 4, rng() % 2 ? "alice" : "bob"});
        }
      }
      s.groups.push_back(std::move(group));
    }
    return v;
  }
  v.compact = rng() % 2 == 0;
  const size_t n = rng() % 3 == 0 ? 600 + rng() % 600 : 1 + rng() % 20;
  std::set<std::string> seen;
  for (size_t i = 0; i < n; ++i) {
    std::string m = v.type == RedisValue::Type::kSet && v.compact ? std::to_string(rng() % 100000)
                                                                   : text(40);
    if (v.type != RedisValue::Type::kList && !seen.insert(m).second) continue;
    switch (v.type) {
      case RedisValue::Type::kString: v.string = text(5000); break;
      case RedisValue::Type::kList:
      case RedisValue::Type::kSet: v.elements.push_back(m); break;
      case RedisValue::Type::kZSet: {
        const double scores[] = {static_cast<double>(rng() % 100), (rng() % 10000) / 7.0,
                                 HUGE_VAL, -HUGE_VAL, 1e300};
        v.scored.emplace_back(m, scores[rng() % 5]);
        break;
      }
      case RedisValue::Type::kHash: v.fields.emplace_back(m, text(100)); break;
      case RedisValue::Type::kStream: break;
    }
  }
  // Half the hashes have field deadlines (Redis 7.4's types 24 and 25),
  // some fields none.
  if (v.type == RedisValue::Type::kHash && rng() % 2 == 0) {
    for (size_t i = 0; i < v.fields.size(); ++i) {
      v.field_deadlines.push_back(rng() % 3 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % (1ULL << 46)));
    }
  }
  return v;
}

void ExpectSame(const RedisValue& a, const RedisValue& b) {
  ASSERT_EQ(a.type, b.type);
  EXPECT_EQ(a.string, b.string);
  // An intset keeps its members in order.
  std::vector<std::string> ea = a.elements, eb = b.elements;
  if (a.type == RedisValue::Type::kSet) {
    std::sort(ea.begin(), ea.end());
    std::sort(eb.begin(), eb.end());
  }
  EXPECT_EQ(ea, eb);
  EXPECT_EQ(a.fields, b.fields);
  EXPECT_EQ(a.field_deadlines, b.field_deadlines);
  ASSERT_EQ(a.scored.size(), b.scored.size());
  // A large sorted set is written from the highest score down, as Redis's
  // skip list is.
  std::vector<std::pair<std::string, double>> sa = a.scored, sb = b.scored;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  EXPECT_EQ(sa, sb);
  const RedisStream &x = a.stream, &y = b.stream;
  ASSERT_EQ(x.entries.size(), y.entries.size());
  for (size_t i = 0; i < x.entries.size(); ++i) {
    EXPECT_TRUE(x.entries[i].id == y.entries[i].id);
    EXPECT_EQ(x.entries[i].fields, y.entries[i].fields);
  }
  EXPECT_TRUE(x.last_id == y.last_id && x.first_id == y.first_id && x.max_deleted == y.max_deleted);
  EXPECT_EQ(x.entries_added, y.entries_added);
  ASSERT_EQ(x.groups.size(), y.groups.size());
  for (size_t g = 0; g < x.groups.size(); ++g) {
    EXPECT_EQ(x.groups[g].name, y.groups[g].name);
    EXPECT_EQ(x.groups[g].entries_read, y.groups[g].entries_read);
    ASSERT_EQ(x.groups[g].pending.size(), y.groups[g].pending.size());
    for (size_t p = 0; p < x.groups[g].pending.size(); ++p) {
      EXPECT_EQ(x.groups[g].pending[p].consumer, y.groups[g].pending[p].consumer);
      EXPECT_EQ(x.groups[g].pending[p].delivery_count, y.groups[g].pending[p].delivery_count);
      EXPECT_EQ(x.groups[g].pending[p].delivery_ms, y.groups[g].pending[p].delivery_ms);
    }
    EXPECT_EQ(x.groups[g].consumers.size(), y.groups[g].consumers.size());
  }
}

TEST(RdbValueTest, ValuesOfEveryTypeAndEncodingRoundTrip) {
  std::mt19937 rng(20261128);
  for (int round = 0; round < 300; ++round) {
    const RedisValue v = RandomValue(rng);
    RedisValue back;
    ASSERT_EQ(rdb_value::Restore(rdb_value::Dump(v), &back), rdb_value::RestoreResult::kOk) << round;
    ExpectSame(v, back);
  }
}

TEST(RdbValueTest, HashFieldDeadlinesOfRedis74AreReadAndWrittenAtItsVersion) {
  // DUMP of a small hash from redis-server 7.4.1 after HSET h a 1 b 2 c 3,
  // HPEXPIREAT h 4102444800000 FIELDS 1 a, HPEXPIREAT h 4102444801000
  // FIELDS 1 c: RDB_TYPE_HASH_LISTPACK_EX, its fields by deadline.
  const std::string redis =
      Bytes({0x19, 0x00, 0xd8, 0xc3, 0x2c, 0xbb, 0x03, 0x00, 0x00, 0x2c, 0x2c, 0x00, 0x00, 0x00,
             0x09, 0x00, 0x81, 0x61, 0x02, 0x01, 0x01, 0xf4, 0x00, 0xd8, 0xc3, 0x2c, 0xbb, 0x03,
             0x00, 0x00, 0x09, 0x81, 0x63, 0x02, 0x03, 0x01, 0xf4, 0xe8, 0xdb, 0xc3, 0x2c, 0xbb,
             0x03, 0x00, 0x00, 0x09, 0x81, 0x62, 0x02, 0x02, 0x01, 0x00, 0x01, 0xff, 0x0c, 0x00,
             0x51, 0x9f, 0x85, 0x61, 0x65, 0x4e, 0x6c, 0xd8});
  RedisValue v;
  ASSERT_EQ(rdb_value::Restore(redis, &v), rdb_value::RestoreResult::kOk);
  EXPECT_TRUE(v.compact);
  const std::vector<std::pair<std::string, std::string>> fields = {{"a", "1"}, {"c", "3"}, {"b", "2"}};
  EXPECT_EQ(v.fields, fields);
  EXPECT_EQ(v.field_deadlines, (std::vector<int64_t>{4102444800000, 4102444801000, 0}));
  // Written back at RDB version 12, as Redis 7.4 writes it; a hash
  // without deadlines stays at Redis 7.0's 10.
  const std::string dumped = rdb_value::Dump(v);
  EXPECT_EQ(static_cast<uint8_t>(dumped[dumped.size() - 10]), rdb_payload::kHashFieldsRdbVersion);
  v.field_deadlines.clear();
  const std::string plain = rdb_value::Dump(v);
  EXPECT_EQ(static_cast<uint8_t>(plain[plain.size() - 10]), rdb_payload::kRdbVersion);
  // A deadline past the range Redis 7.4 keeps is refused, named.
  RedisValue large;
  large.type = RedisValue::Type::kHash;
  large.fields = {{"f", "v"}};
  large.field_deadlines = {int64_t{1} << 50};
  std::string error;
  EXPECT_EQ(rdb_value::Restore(rdb_value::Dump(large), &v, true, &error),
            rdb_value::RestoreResult::kBadData);
  EXPECT_NE(error.find("deadline"), std::string::npos) << error;
}

TEST(RdbValueTest, OlderEncodingsAreRead) {
  // RDB_TYPE_LIST (1), RDB_TYPE_ZSET (3, text scores), a quicklist of
  // ziplists (14), a hash ziplist (13), a zset ziplist (12).
  std::string body = Bytes({1});
  rdb_payload::AppendLength(&body, 2);
  rdb_payload::AppendString(&body, "x");
  rdb_payload::AppendString(&body, "y");
  RedisValue v;
  std::string error;
  size_t pos = 1;
  ASSERT_TRUE(rdb_value::Read(1, body, &pos, &v, &error)) << error;
  EXPECT_EQ(v.elements, (std::vector<std::string>{"x", "y"}));

  body = Bytes({1, 1}) + "m" + Bytes({3}) + "2.5";
  pos = 0;
  ASSERT_TRUE(rdb_value::Read(3, body, &pos, &v, &error)) << error;
  ASSERT_EQ(v.scored.size(), 1u);
  EXPECT_EQ(v.scored[0].second, 2.5);

  const std::string zl = Ziplist({Bytes({0x01}) + "f", Bytes({0xf3})});  // "f", 2
  body.clear();
  rdb_payload::AppendLength(&body, 1);
  rdb_payload::AppendString(&body, zl);
  pos = 0;
  ASSERT_TRUE(rdb_value::Read(14, body, &pos, &v, &error)) << error;
  EXPECT_EQ(v.elements, (std::vector<std::string>{"f", "2"}));
  body.clear();
  rdb_payload::AppendString(&body, zl);
  pos = 0;
  ASSERT_TRUE(rdb_value::Read(13, body, &pos, &v, &error)) << error;
  EXPECT_EQ(v.fields, (std::vector<std::pair<std::string, std::string>>{{"f", "2"}}));
  pos = 0;
  ASSERT_TRUE(rdb_value::Read(12, body, &pos, &v, &error)) << error;
  EXPECT_EQ(v.scored[0], (std::pair<std::string, double>{"f", 2}));
}

TEST(RdbValueTest, WhatRedisRefusesIsRefused) {
  auto refused = [](uint8_t type, const std::string& body, const char* why) {
    RedisValue v;
    std::string error;
    size_t pos = 0;
    EXPECT_FALSE(rdb_value::Read(type, body, &pos, &v, &error)) << why;
    EXPECT_FALSE(error.empty()) << why;
  };
  refused(2, Bytes({0}), "an empty set");
  refused(2, Bytes({2, 1}) + "a" + Bytes({1}) + "a", "duplicate set members");
  refused(4, Bytes({2, 1}) + "f" + Bytes({1}) + "v" + Bytes({1}) + "f" + Bytes({1}) + "w",
          "duplicate hash fields");
  std::string nan_score = Bytes({1, 1}) + "m";
  rdb_payload::AppendBinaryDouble(&nan_score, std::nan(""));
  refused(5, nan_score, "a NaN score");
  refused(15, Bytes({0}), "a stream cut short");
  refused(7, Bytes({0}), "a module value");
  refused(42, Bytes({0}), "an unknown type");
  std::string odd;
  rdb_payload::AppendString(&odd, listpack::Encode({"f", "v", "g"}));
  refused(16, odd, "a hash listpack of an odd count");
  std::string huge = Bytes({0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  refused(1, huge, "a list claiming 2^64 elements");
  refused(0, Bytes({0x80, 0xff, 0xff, 0xff, 0xff}) + "ab", "a string claiming 4 GB");
}

TEST(RdbValueTest, RestoreNamesWhatFailedInRedisWords) {
  // A hash listpack with a field twice: Redis's log says "Hash listpack
  // integrity check failed" (sanitized) or "listpack with dup elements".
  std::string body = Bytes({16});
  rdb_payload::AppendString(&body, listpack::Encode({"f", "1", "f", "2"}));
  rdb_payload::AppendFooter(&body);
  RedisValue v;
  std::string error;
  ASSERT_EQ(rdb_value::Restore(body, &v, true, &error), rdb_value::RestoreResult::kBadData);
  EXPECT_EQ(error, "Hash listpack integrity check failed: listpack with dup elements");
  // A damaged checksum: refused, unless the checksum is not verified
  // (DEBUG SET-SKIP-CHECKSUM-VALIDATION), the object itself checked whole.
  std::mt19937 rng(3);
  std::string bad_crc = rdb_value::Dump(RandomValue(rng));
  bad_crc.back() = static_cast<char>(bad_crc.back() ^ 1);
  EXPECT_EQ(rdb_value::Restore(bad_crc, &v), rdb_value::RestoreResult::kBadFooter);
  EXPECT_EQ(rdb_value::Restore(bad_crc, &v, false), rdb_value::RestoreResult::kOk);
}

TEST(RdbValueTest, DamagedPayloadsNeverReadPastTheirEnd) {
  std::mt19937 rng(11);
  for (int round = 0; round < 400; ++round) {
    const std::string dump = rdb_value::Dump(RandomValue(rng));
    std::string body = dump.substr(0, dump.size() - 10);
    const int how = static_cast<int>(rng() % 3);
    if (how == 0) {
      body.resize(rng() % body.size());
    } else if (how == 1) {
      for (int i = 0; i < 3; ++i) body[rng() % body.size()] = static_cast<char>(rng());
    } else {
      body.insert(rng() % body.size(), Bytes({0x81, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
    }
    rdb_payload::AppendFooter(&body);
    RedisValue v;
    const rdb_value::RestoreResult result = rdb_value::Restore(body, &v);
    EXPECT_NE(result, rdb_value::RestoreResult::kBadFooter);
  }
}

}  // namespace
}  // namespace teksdb::server
