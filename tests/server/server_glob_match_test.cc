// Tests of teksdb-server's GlobMatch (KEYS, CONFIG GET): Redis's pattern
// language, and no blow-up on patterns that make naive backtracking
// exponential.
#include <gtest/gtest.h>

#include <string>

#include "glob_match.h"

namespace teksdb::server {
namespace {

TEST(GlobMatchTest, RedisPatterns) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("h?llo", "hello"));
  EXPECT_TRUE(GlobMatch("h*llo", "heeeello"));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo"));
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo"));
  EXPECT_TRUE(GlobMatch("h\\*llo", "h*llo"));
  EXPECT_FALSE(GlobMatch("h\\*llo", "hello"));
  EXPECT_FALSE(GlobMatch("user:*", "session:1"));
  EXPECT_TRUE(GlobMatch("*:*:*", "a:b:c"));
  EXPECT_FALSE(GlobMatch("a?", "a"));
}

TEST(GlobMatchTest, ManyStarsStayPolynomial) {
  const std::string subject(2000, 'a');
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", subject));
}

}  // namespace
}  // namespace teksdb::server
