// Tests of the configuration file's reading (common/config_file.h) and of
// Redis's word splitting and quoting (common/redis_args.h): directives
// with their file and line, comments and blank lines skipped, names in any
// case, quoted words, includes (relative to the working directory, as
// Redis), and the errors that stop a start: an unreadable file,
// unbalanced quotes, an include with no file or nested too deep. Any bytes
// quoted by QuoteRedisArg read back as the same one word.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "config_file.h"
#include "redis_args.h"

namespace teksdb::server {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/teksdb-config-file-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(ConfigFileTest, DirectivesWithWhereTheyCameFrom) {
  const std::string inner = Write("inner.conf", "maxmemory 1gb\n");
  const std::string path = Write("main.conf", "# a comment\n\n  PORT 7000\nrequirepass \"a b\\x41\"\n"
                                              "save 900 1\ninclude " + inner + "\nbind '127.0.0.1'\n");
  std::vector<ConfigDirective> got;
  std::string error;
  ASSERT_TRUE(ReadConfigFile(path, &got, &error)) << error;
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].name, "port");
  EXPECT_EQ(got[0].args, std::vector<std::string>{"7000"});
  EXPECT_EQ(got[0].where, path + ":3");
  EXPECT_EQ(got[1].args, std::vector<std::string>{"a bA"});
  EXPECT_EQ(got[2].args, (std::vector<std::string>{"900", "1"}));
  EXPECT_EQ(got[3].name, "maxmemory");
  EXPECT_EQ(got[3].where, inner + ":1");
  EXPECT_EQ(got[4].args, std::vector<std::string>{"127.0.0.1"});
}

TEST_F(ConfigFileTest, ErrorsNameTheFileAndLine) {
  std::vector<ConfigDirective> got;
  std::string error;
  EXPECT_FALSE(ReadConfigFile(dir_ + "/missing.conf", &got, &error));
  EXPECT_NE(error.find("missing.conf: cannot read it"), std::string::npos) << error;
  const std::string quotes = Write("quotes.conf", "port 1\nrequirepass \"open\n");
  EXPECT_FALSE(ReadConfigFile(quotes, &got, &error));
  EXPECT_NE(error.find(quotes + ":2: unbalanced quotes"), std::string::npos) << error;
  const std::string bare = Write("bare.conf", "include\n");
  EXPECT_FALSE(ReadConfigFile(bare, &got, &error));
  EXPECT_NE(error.find(bare + ":1: include takes one file"), std::string::npos) << error;
  const std::string loop = dir_ + "/loop.conf";
  Write("loop.conf", "include " + loop + "\n");
  EXPECT_FALSE(ReadConfigFile(loop, &got, &error));
  EXPECT_NE(error.find("includes nested deeper than"), std::string::npos) << error;
}

TEST(RedisArgsTest, SplitsAsRedis) {
  std::vector<std::string> words;
  ASSERT_TRUE(SplitRedisArgs("set \"a\\tb\" 'it\\'s' plain", &words));
  EXPECT_EQ(words, (std::vector<std::string>{"set", "a\tb", "it's", "plain"}));
  EXPECT_FALSE(SplitRedisArgs("set \"open", &words));
  EXPECT_FALSE(SplitRedisArgs("set \"closed\"x", &words));
  ASSERT_TRUE(SplitRedisArgs("   ", &words));
  EXPECT_TRUE(words.empty());
}

TEST(RedisArgsTest, QuotedWordsReadBackWhole) {
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    std::string word(random() % 12, '\0');
    for (char& c : word) c = static_cast<char>(random() % 256);
    std::vector<std::string> words;
    ASSERT_TRUE(SplitRedisArgs("name " + QuoteRedisArg(word), &words)) << QuoteRedisArg(word);
    ASSERT_EQ(words.size(), 2u) << QuoteRedisArg(word);
    EXPECT_EQ(words[1], word);
  }
  EXPECT_EQ(QuoteRedisArg("plain"), "plain");
  EXPECT_EQ(QuoteRedisArg(""), "\"\"");
}

}  // namespace
}  // namespace teksdb::server
