// rdb_payload (server/rdb/rdb_payload.h): Redis's CRC64 (its check value),
// RDB strings in every length and integer encoding and LZF-compressed (as
// Redis writes long strings, and as AppendString writes them), doubles,
// payload footers, and damaged input refused
// without a crash (random payloads too, under ASan in CI).
#include "rdb_payload.h"

#include <gtest/gtest.h>

extern "C" {
#include <liblzf/lzf.h>
}

#include <cmath>
#include <random>
#include <string>

namespace teksdb::server::rdb_payload {
namespace {

TEST(RdbPayloadTest, Crc64IsRedisCrc64Jones) {
  // Redis's crc64.c test: crc64(0, "123456789") == 0xe9c6d914c4b8d9ca.
  EXPECT_EQ(Crc64(0, "123456789"), 0xe9c6d914c4b8d9caULL);
  EXPECT_EQ(Crc64(Crc64(0, "1234"), "56789"), 0xe9c6d914c4b8d9caULL);
}

TEST(RdbPayloadTest, StringsOfEveryLengthEncodingRoundTrip) {
  for (size_t n : {0, 1, 63, 64, 16383, 16384, 70000}) {
    std::string body;
    const std::string s(n, 'x');
    AppendString(&body, s);
    AppendString(&body, "next");
    size_t pos = 0;
    std::string got;
    ASSERT_TRUE(ReadString(body, &pos, &got)) << n;
    EXPECT_EQ(got, s);
    ASSERT_TRUE(ReadString(body, &pos, &got));
    EXPECT_EQ(got, "next");
    EXPECT_EQ(pos, body.size());
  }
}

TEST(RdbPayloadTest, IntegerEncodedStringsReadAsTheirDecimalText) {
  const std::pair<std::string, std::string> cases[] = {
      {std::string("\xc0\x7f", 2), "127"},
      {std::string("\xc0\x80", 2), "-128"},
      {std::string("\xc1\x00\x80", 3), "-32768"},
      {std::string("\xc2\x15\xcd\x5b\x07", 5), "123456789"},
  };
  for (const auto& [body, text] : cases) {
    size_t pos = 0;
    std::string got;
    ASSERT_TRUE(ReadString(body, &pos, &got)) << text;
    EXPECT_EQ(got, text);
  }
}

TEST(RdbPayloadTest, AppendStringWritesWhatRedisWrites) {
  // Integers of up to 32 bits in their encoding; not "007" or "-0", nor
  // longer ones; a long compressible string LZF-compressed; random bytes
  // plain.
  const std::pair<std::string, std::string> cases[] = {
      {"127", std::string("\xc0\x7f", 2)},
      {"-32768", std::string("\xc1\x00\x80", 3)},
      {"123456789", std::string("\xc2\x15\xcd\x5b\x07", 5)},
      {"007", std::string("\x03" "007", 4)},
      {"-0", std::string("\x02-0", 3)},
      {"4294967296", std::string("\x0a" "4294967296", 11)},
  };
  for (const auto& [text, bytes] : cases) {
    std::string body;
    AppendString(&body, text);
    EXPECT_EQ(body, bytes) << text;
  }
  const std::string compressible(1000, 'a');
  std::string body;
  AppendString(&body, compressible);
  EXPECT_EQ(static_cast<uint8_t>(body[0]), 0xc3);
  EXPECT_LT(body.size(), 100u);
  std::mt19937 rng(7);
  std::string random_bytes(300, '\0');
  for (char& c : random_bytes) c = static_cast<char>(rng());
  for (const std::string& s : {compressible, random_bytes}) {
    std::string out;
    AppendString(&out, s);
    size_t pos = 0;
    std::string got;
    ASSERT_TRUE(ReadString(out, &pos, &got));
    EXPECT_EQ(got, s);
    EXPECT_EQ(pos, out.size());
  }
}

TEST(RdbPayloadTest, LzfLengthsPastWhatTheBlockCanHoldAreRefusedBeforeAllocating) {
  // 4 compressed bytes cannot give 100 MB: refused without allocating it.
  const std::string body("\xc3\x04\x80\x05\xf5\xe1\x00" "abcd", 11);
  size_t pos = 0;
  std::string got;
  EXPECT_FALSE(ReadString(body, &pos, &got));
}

TEST(RdbPayloadTest, DoublesBinaryAndText) {
  std::string body;
  AppendBinaryDouble(&body, -2.5);
  body += std::string("\x03" "1.5", 4) + "\xfe\xff\xfd" + std::string("\x02" "zz", 3);
  size_t pos = 0;
  double v;
  ASSERT_TRUE(ReadBinaryDouble(body, &pos, &v));
  EXPECT_EQ(v, -2.5);
  ASSERT_TRUE(ReadTextDouble(body, &pos, &v));
  EXPECT_EQ(v, 1.5);
  ASSERT_TRUE(ReadTextDouble(body, &pos, &v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  ASSERT_TRUE(ReadTextDouble(body, &pos, &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  ASSERT_TRUE(ReadTextDouble(body, &pos, &v));
  EXPECT_TRUE(std::isnan(v));
  EXPECT_FALSE(ReadTextDouble(body, &pos, &v)) << "not a number";
}

TEST(RdbPayloadTest, LzfCompressedStringsAreDecompressed) {
  std::string original;
  for (int i = 0; i < 200; ++i) original += "function library code " + std::to_string(i % 7) + "\n";
  std::string compressed(original.size(), '\0');
  const unsigned int clen = lzf_compress(original.data(), static_cast<unsigned int>(original.size()),
                                         compressed.data(), static_cast<unsigned int>(compressed.size()));
  ASSERT_GT(clen, 0u);
  compressed.resize(clen);
  std::string body("\xc3", 1);
  // The lengths, in RDB's length encoding (both over 64: 14-bit or 32-bit).
  auto length = [](std::string* out, uint32_t n) {
    out->push_back(static_cast<char>(0x80));
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((n >> shift) & 0xff));
  };
  length(&body, clen);
  length(&body, static_cast<uint32_t>(original.size()));
  body += compressed;
  size_t pos = 0;
  std::string got;
  ASSERT_TRUE(ReadString(body, &pos, &got));
  EXPECT_EQ(got, original);
  EXPECT_EQ(pos, body.size());
  // The wrong uncompressed length, or a block cut short, is refused.
  std::string wrong = body;
  wrong[10] = static_cast<char>(wrong[10] + 1);  // the low byte of the length
  pos = 0;
  EXPECT_FALSE(ReadString(wrong, &pos, &got));
  pos = 0;
  EXPECT_FALSE(ReadString(body.substr(0, body.size() - 1), &pos, &got));
}

TEST(RdbPayloadTest, FootersCheckVersionAndChecksum) {
  std::string payload;
  payload.push_back(static_cast<char>(245));
  AppendString(&payload, "#!lua name=x\nredis.register_function('f', function() end)");
  const std::string body = payload;
  AppendFooter(&payload);
  std::string_view got;
  ASSERT_TRUE(CheckFooter(payload, &got));
  EXPECT_EQ(got, body);
  for (size_t i = 0; i < payload.size(); ++i) {
    std::string damaged = payload;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    EXPECT_FALSE(CheckFooter(damaged, &got)) << "byte " << i;
  }
  std::string newer = body;
  newer.push_back(static_cast<char>(kNewestRdbVersion + 1));
  newer.push_back('\0');
  const uint64_t crc = Crc64(0, newer);
  for (int i = 0; i < 8; ++i) newer.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  EXPECT_FALSE(CheckFooter(newer, &got)) << "a newer RDB version";
  EXPECT_FALSE(CheckFooter("short", &got));
}

TEST(RdbPayloadTest, RandomBodiesNeverReadPastTheirEnd) {
  std::mt19937 rng(20261127);
  for (int round = 0; round < 20000; ++round) {
    std::string body(rng() % 24, '\0');
    for (char& c : body) c = static_cast<char>(rng());
    size_t pos = 0;
    std::string got;
    while (pos < body.size() && ReadString(body, &pos, &got)) {
      ASSERT_LE(pos, body.size());
    }
  }
}

}  // namespace
}  // namespace teksdb::server::rdb_payload
