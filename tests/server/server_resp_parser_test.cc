// Tests of teksdb-server's RespParser against what Redis accepts and
// refuses: multibulk and inline requests, whole or a byte at a time,
// pipelined; empty requests ignored; Redis's protocol errors for malformed
// lengths, a missing '$', unbalanced quotes and the size limits; and bulks
// that complete only when their last byte comes; commands given back
// (Recycle) lend their buffers to the next ones, which still parse whole,
// and only small buffers, a bounded number of them, are kept. Before
// authentication, Redis 7.0's limits (10 arguments, 16 KiB bulks); a
// smaller proto-max-bulk-len refuses longer bulks; held_bytes counts what
// the command being read holds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "resp_parser.h"

namespace teksdb::server {
namespace {

using Commands = std::vector<std::vector<std::string>>;

// Feeds `input` in pieces of `piece` bytes; returns the commands and the
// error, if any.
Commands Parse(const std::string& input, size_t piece, std::string* error = nullptr) {
  RespParser parser;
  Commands commands;
  size_t pos = 0;
  while (true) {
    if (parser.HasCommand()) {
      commands.push_back(parser.TakeCommand());
      continue;
    }
    if (!parser.error().empty() || pos == input.size()) break;
    const size_t n = std::min(piece, input.size() - pos);
    size_t used = 0;
    while (used < n && !parser.HasCommand() && parser.error().empty()) {
      used += parser.Consume(input.data() + pos + used, n - used);
    }
    pos += used;
  }
  if (error != nullptr) *error = parser.error();
  return commands;
}

std::string Bulk(const std::string& arg) {
  return "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
}

// One command taken from `parser` after feeding it `input` whole.
std::vector<std::string> TakeOne(RespParser* parser, const std::string& input) {
  EXPECT_EQ(parser->Consume(input.data(), input.size()), input.size());
  EXPECT_TRUE(parser->HasCommand());
  return parser->TakeCommand();
}

TEST(RespParserTest, RecycledCommandsLendTheirBuffers) {
  RespParser parser;
  const std::string key(40, 'k'), value(200, 'v'), huge(100000, 'h');
  std::vector<std::string> first = TakeOne(&parser, "*3\r\n" + Bulk("SET") + Bulk(key) + Bulk(value));
  ASSERT_EQ(first, (std::vector<std::string>{"SET", key, value}));
  const char* value_buffer = first[2].data();
  parser.Recycle(std::move(first));
  // The next command's long arguments reuse the kept buffers.
  std::vector<std::string> second = TakeOne(&parser, "*2\r\n" + Bulk("GET") + Bulk("other-key-of-20-bytes"));
  EXPECT_EQ(second, (std::vector<std::string>{"GET", "other-key-of-20-bytes"}));
  std::vector<std::string> third = TakeOne(&parser, "*2\r\n" + Bulk("GET") + Bulk(std::string(30, 'x')));
  EXPECT_EQ(third[1], std::string(30, 'x'));
  bool reused = false;
  for (const auto* command : {&second, &third}) {
    for (const std::string& arg : *command) reused |= arg.data() == value_buffer;
  }
  EXPECT_TRUE(reused);

  // Commands with a huge argument, or more arguments than are kept, parse
  // whole after and between recycling.
  std::vector<std::string> big = TakeOne(&parser, "*2\r\n" + Bulk("SET") + Bulk(huge));
  EXPECT_EQ(big[1], huge);
  parser.Recycle(std::move(big));
  std::vector<std::string> many;
  std::string input = "*200\r\n";
  for (int i = 0; i < 200; ++i) input += Bulk(std::string(100, static_cast<char>('a' + i % 26)));
  many = TakeOne(&parser, input);
  ASSERT_EQ(many.size(), 200u);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(many[i], std::string(100, static_cast<char>('a' + i % 26)));
  }
  parser.Recycle(std::move(many));
  parser.Recycle(std::move(second));
  parser.Recycle(std::move(third));
  const std::vector<std::string> after =
      TakeOne(&parser, "*3\r\n" + Bulk("HSET") + Bulk(key) + Bulk(value));
  EXPECT_EQ(after, (std::vector<std::string>{"HSET", key, value}));
}

TEST(RespParserTest, MultibulkWholeAndByteByByte) {
  const std::string input = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nv\r\nv!\r\n";
  const Commands want = {{"SET", "k", "v\r\nv!"}};
  for (size_t piece : {input.size(), size_t{1}, size_t{2}, size_t{7}}) {
    EXPECT_EQ(Parse(input, piece), want) << "pieces of " << piece;
  }
}

TEST(RespParserTest, PipelinedMixOfMultibulkAndInline) {
  const std::string input = "*1\r\n$4\r\nPING\r\nGET a\r\n\r\n*0\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n";
  const Commands want = {{"PING"}, {"GET", "a"}, {"ECHO", ""}};
  EXPECT_EQ(Parse(input, input.size()), want);
  EXPECT_EQ(Parse(input, 1), want);
}

TEST(RespParserTest, InlineQuotingAsRedis) {
  EXPECT_EQ(Parse("set \"a b\" 'c\\'d' \"\\x41\\n\"\n", 100),
            (Commands{{"set", "a b", "c'd", "A\n"}}));
  EXPECT_EQ(Parse("  ping  \r\n", 100), (Commands{{"ping"}}));
}

TEST(RespParserTest, ProtocolErrorsNameTheProblem) {
  const std::pair<std::string, std::string> cases[] = {
      {"*x\r\n", "Protocol error: invalid multibulk length"},
      {"*1048577\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\n+3\r\n", "Protocol error: expected '$', got '+'"},
      {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$536870913\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$03\r\n", "Protocol error: invalid bulk length"},
      {"set \"a\n", "Protocol error: unbalanced quotes in request"},
      {"set \"a\"b\n", "Protocol error: unbalanced quotes in request"},
  };
  for (const auto& [input, want] : cases) {
    std::string error;
    Parse(input, 1, &error);
    EXPECT_EQ(error, want) << input;
  }
}

TEST(RespParserTest, LinesPastTheLimitAreRefused) {
  std::string error;
  Parse(std::string(RespParser::kMaxInlineLength + 10, 'a'), 4096, &error);
  EXPECT_EQ(error, "Protocol error: too big inline request");
  Parse("*1\r\n$" + std::string(RespParser::kMaxInlineLength + 10, '1'), 4096, &error);
  EXPECT_EQ(error, "Protocol error: too big bulk count string");
}

TEST(RespParserTest, ABulkWaitsForAllItsBytes) {
  // The largest bulk Redis allows is accepted on its header alone.
  RespParser huge;
  const std::string header = "*1\r\n$536870912\r\nabc";
  EXPECT_EQ(huge.Consume(header.data(), header.size()), header.size());
  EXPECT_FALSE(huge.HasCommand());
  EXPECT_TRUE(huge.error().empty());
  // A small one completes exactly when its last byte and "\r\n" arrive.
  RespParser parser;
  const std::string input = "*1\r\n$10\r\n0123456789\r\n";
  for (size_t i = 0; i < input.size(); ++i) {
    ASSERT_FALSE(parser.HasCommand()) << "complete after " << i << " bytes";
    EXPECT_EQ(parser.Consume(input.data() + i, 1), 1u);
  }
  ASSERT_TRUE(parser.HasCommand());
  EXPECT_EQ(parser.TakeCommand(), (std::vector<std::string>{"0123456789"}));
}

TEST(RespParserTest, ConsumesNothingWhileACommandWaits) {
  RespParser parser;
  const std::string input = "PING\r\nPING\r\n";
  const size_t used = parser.Consume(input.data(), input.size());
  EXPECT_EQ(used, 6u);
  ASSERT_TRUE(parser.HasCommand());
  EXPECT_EQ(parser.Consume(input.data() + used, input.size() - used), 0u);
  EXPECT_EQ(parser.TakeCommand(), (std::vector<std::string>{"PING"}));
}

// Feeds `input` whole under set_limits(max_bulk, unauthenticated); the
// error, or "" with the commands in *commands.
std::string ParseLimited(const std::string& input, size_t max_bulk, bool unauthenticated,
                         Commands* commands = nullptr) {
  RespParser parser;
  parser.set_limits(max_bulk, unauthenticated);
  size_t pos = 0;
  while (pos < input.size() || parser.HasCommand()) {
    if (parser.HasCommand()) {
      if (commands != nullptr) commands->push_back(parser.TakeCommand());
      else parser.TakeCommand();
      continue;
    }
    if (!parser.error().empty()) break;
    pos += parser.Consume(input.data() + pos, input.size() - pos);
  }
  return parser.error();
}

std::string Multibulk(size_t arguments, size_t bulk) {
  std::string out = "*" + std::to_string(arguments) + "\r\n";
  for (size_t i = 0; i < arguments; ++i) {
    out += "$" + std::to_string(bulk) + "\r\n" + std::string(bulk, 'x') + "\r\n";
  }
  return out;
}

TEST(RespParserTest, UnauthenticatedLimitsAsRedis) {
  const size_t max = RespParser::kMaxBulkLength;
  EXPECT_EQ(ParseLimited(Multibulk(10, 16384), max, true), "");
  EXPECT_EQ(ParseLimited(Multibulk(11, 1), max, true),
            "Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(ParseLimited(Multibulk(2, 16385), max, true),
            "Protocol error: unauthenticated bulk length");
  // The header alone is refused: nothing of a huge bulk is waited for.
  EXPECT_EQ(ParseLimited("*1\r\n$536870912\r\n", max, true),
            "Protocol error: unauthenticated bulk length");
  EXPECT_EQ(ParseLimited("*1048576\r\n", max, true),
            "Protocol error: unauthenticated multibulk length");
  // Authenticated, the same requests parse.
  EXPECT_EQ(ParseLimited(Multibulk(11, 1), max, false), "");
  EXPECT_EQ(ParseLimited(Multibulk(2, 16385), max, false), "");
}

TEST(RespParserTest, ProtoMaxBulkLenRefusesLongerBulks) {
  EXPECT_EQ(ParseLimited(Multibulk(1, 1024), 1024, false), "");
  EXPECT_EQ(ParseLimited(Multibulk(1, 1025), 1024, false), "Protocol error: invalid bulk length");
}

TEST(RespParserTest, HeldBytesCountTheCommandBeingRead) {
  RespParser parser;
  EXPECT_EQ(parser.held_bytes(), 0u);
  const std::string head = "*2\r\n$3\r\nSET\r\n$100000\r\n";
  parser.Consume(head.data(), head.size());
  const size_t before = parser.held_bytes();
  EXPECT_GE(before, 3u);
  const std::string part(50000, 'v');
  parser.Consume(part.data(), part.size());
  EXPECT_GE(parser.held_bytes(), before + 50000);
  EXPECT_EQ(parser.first_bytes(), "SET");
  parser.Consume(part.data(), part.size());
  parser.Consume("\r\n", 2);
  ASSERT_TRUE(parser.HasCommand());
  parser.TakeCommand();
  EXPECT_EQ(parser.held_bytes(), 0u);
}

}  // namespace
}  // namespace teksdb::server
