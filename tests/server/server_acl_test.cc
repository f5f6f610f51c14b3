// Tests of teksdb-server's ACL model (state/acl_*.h) over a small command
// set: rules as Redis 7.0 takes them (errors, quirks, selectors, key
// access, first arguments), the descriptions ACL LIST gives back (and a
// randomized round trip: a description, applied to a new user, allows
// exactly what the user it describes allows), checks of requests,
// passwords, the registry (SETUSER all or nothing, the ACL file's
// errors, requirepass) and ACL LOG's grouping.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "acl_command_set.h"
#include "acl_log.h"
#include "acl_user.h"
#include "acl_users.h"

namespace teksdb::server {
namespace {

const AclCommandSet& Commands() {
  static const AclCommandSet set = [] {
    AclCommandSet s;
    s.Add("get", AclCategoryBits("@read @string @fast"), false);
    s.Add("set", AclCategoryBits("@write @string @slow"), false);
    s.Add("incr", AclCategoryBits("@write @string @fast"), false);
    s.Add("hget", AclCategoryBits("@read @hash @fast"), false);
    s.Add("publish", AclCategoryBits("@pubsub @fast"), false);
    s.Add("select", AclCategoryBits("@fast @connection"), false);
    s.Add("auth", AclCategoryBits("@fast @connection"), true);
    s.Add("flushall", AclCategoryBits("@keyspace @write @slow @dangerous"), false);
    const int config = s.Add("config", AclCategoryBits("@slow"), false);
    s.Add("config|get", AclCategoryBits("@admin @slow @dangerous"), false, config);
    s.Add("config|set", AclCategoryBits("@admin @slow @dangerous"), false, config);
    s.Add("config|help", AclCategoryBits("@slow"), false, config);
    return s;
  }();
  return set;
}

AclUser NewUser(const std::vector<std::string>& rules) {
  AclUser user("u", Commands(), false);
  const std::string error = user.ApplyRules(rules, false);
  EXPECT_EQ(error, "");
  return user;
}

// The verdict on `args` with every argument after the name a key needing
// `access` (none if `keys` is false) and no channel but PUBLISH's.
AclVerdict Check(const AclUser& user, const std::vector<std::string>& args, uint8_t access,
                 bool keys = true) {
  std::string name = args[0];
  if (args.size() > 1 && Commands().Find(name + "|" + args[1]) >= 0) name += "|" + args[1];
  return user.Check(
      Commands().Find(name), args,
      [&] {
        std::vector<AclKey> k;
        for (size_t i = 1; keys && i < args.size(); ++i) k.push_back({i, access});
        return k;
      },
      [&] {
        std::vector<AclChannel> c;
        if (args[0] == "publish") c.push_back({1, false});
        return c;
      });
}

TEST(AclSelectorTest, NewUserIsOffAndMayDoNothing) {
  AclUser user("u", Commands(), false);
  EXPECT_EQ(user.Describe(), "off resetchannels -@all");
  EXPECT_FALSE(user.enabled());
  EXPECT_EQ(Check(user, {"get", "k"}, AclSelector::kRead).reason, AclVerdict::kCommand);
  // AUTH is every user's ("no_auth").
  EXPECT_TRUE(Check(user, {"auth", "p"}, 0, false).allowed());
}

TEST(AclSelectorTest, DefaultUserIsRedisOne) {
  const AclUser user = AclUser::Default(Commands());
  EXPECT_EQ(user.Describe(), "on nopass ~* &* +@all");
  EXPECT_TRUE(Check(user, {"flushall"}, 0, false).allowed());
  EXPECT_TRUE(Check(user, {"publish", "any", "m"}, 0, false).allowed());
}

TEST(AclSelectorTest, CategoriesCommandsAndSubcommandsDescribeBack) {
  EXPECT_EQ(NewUser({"+@all", "-@string", "+incr"}).selectors()[0].DescribeCommands(),
            "+@all -@string +incr");
  EXPECT_EQ(NewUser({"-@all", "+@string", "-incr"}).selectors()[0].DescribeCommands(),
            "-@all +@string -incr");
  // A container allowed whole engulfs its subcommands; one subcommand
  // stays one.
  EXPECT_EQ(NewUser({"+config|get"}).selectors()[0].DescribeCommands(), "-@all +config|get");
  EXPECT_EQ(NewUser({"+config|get", "+config"}).selectors()[0].DescribeCommands(),
            "-@all +@admin +config");
  const AclUser user = NewUser({"+@all", "-config|set"});
  EXPECT_TRUE(Check(user, {"config", "get", "x"}, 0, false).allowed());
  EXPECT_EQ(Check(user, {"config", "set", "x", "y"}, 0, false).reason, AclVerdict::kCommand);
}

TEST(AclSelectorTest, FirstArgumentsOfADeniedCommand) {
  const AclUser user = NewUser({"+@all", "-select", "+select|0"});
  EXPECT_TRUE(Check(user, {"select", "0"}, 0, false).allowed());
  EXPECT_FALSE(Check(user, {"select", "1"}, 0, false).allowed());
  EXPECT_EQ(user.selectors()[0].DescribeCommands(), "+@all -select +select|0");
  AclUser other("o", Commands(), false);
  EXPECT_EQ(other.Apply("+config|get|x", false), AclRuleError::kFirstArgOfSubcommand);
  EXPECT_EQ(other.Apply("+select|", false), AclRuleError::kSyntax);
  EXPECT_EQ(other.Apply("-select|0", false), AclRuleError::kUnknownCommand);
}

TEST(AclSelectorTest, KeyPatternsAndTheirAccess) {
  const AclUser user = NewUser({"+@all", "%R~r*", "%W~w*", "~rw*", "%R~both", "%W~both"});
  EXPECT_EQ(user.selectors()[0].DescribeKeys(), "%R~r* %W~w* ~rw* ~both");
  EXPECT_TRUE(Check(user, {"get", "read"}, AclSelector::kRead).allowed());
  EXPECT_EQ(Check(user, {"get", "write"}, AclSelector::kRead).reason, AclVerdict::kKey);
  EXPECT_TRUE(Check(user, {"set", "write"}, AclSelector::kWrite).allowed());
  EXPECT_TRUE(Check(user, {"set", "rw1"}, AclSelector::kReadWrite).allowed());
  EXPECT_EQ(Check(user, {"set", "read"}, AclSelector::kReadWrite).reason, AclVerdict::kKey);
  // An existence test needs neither: any pattern that matches.
  EXPECT_TRUE(Check(user, {"get", "write"}, 0).allowed());
  const AclVerdict denied = Check(user, {"get", "read", "nothing"}, AclSelector::kRead);
  EXPECT_EQ(denied.reason, AclVerdict::kKey);
  EXPECT_EQ(denied.position, 2u);
  AclUser all("a", Commands(), false);
  EXPECT_EQ(all.Apply("allkeys", false), AclRuleError::kNone);
  EXPECT_EQ(all.Apply("~x", false), AclRuleError::kKeyAfterAllKeys);
  AclUser some("s", Commands(), false);
  EXPECT_EQ(some.Apply("%X~x", false), AclRuleError::kSyntax);
  EXPECT_EQ(some.Apply("%~x", false), AclRuleError::kSyntax);
  EXPECT_EQ(some.Apply("%R", false), AclRuleError::kSyntax);
}

TEST(AclSelectorTest, ChannelsArePatternsForChannelsAndLiteralForPatterns) {
  const AclUser user = NewUser({"+@all", "&news.*"});
  EXPECT_TRUE(user.AllowsChannel("news.a", false));
  EXPECT_FALSE(user.AllowsChannel("news.a", true));
  EXPECT_TRUE(user.AllowsChannel("news.*", true));
  EXPECT_EQ(Check(user, {"publish", "sport", "m"}, 0, false).reason, AclVerdict::kChannel);
  AclUser all("a", Commands(), true);  // acl-pubsub-default allchannels
  EXPECT_EQ(all.Apply("&x", true), AclRuleError::kChannelAfterAll);
}

TEST(AclSelectorTest, SelectorsAreAlternativesAndTheGravestDenialIsReported) {
  const AclUser user = NewUser({"-@all", "+get", "~a*", "(+set ~b*)"});
  EXPECT_EQ(user.Describe(), "off ~a* resetchannels -@all +get (~b* resetchannels -@all +set)");
  EXPECT_TRUE(Check(user, {"get", "a1"}, AclSelector::kRead).allowed());
  EXPECT_TRUE(Check(user, {"set", "b1"}, AclSelector::kWrite).allowed());
  // get b1: the root selector denies the key, the other the command: a key.
  EXPECT_EQ(Check(user, {"get", "b1"}, AclSelector::kRead).reason, AclVerdict::kKey);
  EXPECT_EQ(Check(user, {"incr", "a1"}, AclSelector::kReadWrite).reason, AclVerdict::kCommand);
  AclUser cleared = user;
  EXPECT_EQ(cleared.Apply("clearselectors", false), AclRuleError::kNone);
  EXPECT_EQ(cleared.selectors().size(), 1u);
}

TEST(AclUserTest, RulesApplyAllOrNone) {
  AclUser user = NewUser({"on", ">pw", "+get"});
  EXPECT_EQ(user.ApplyRules({"+set", "+nosuchcommand"}, false),
            "Error in ACL SETUSER modifier '+nosuchcommand': Unknown command or category name in ACL");
  EXPECT_EQ(user.selectors()[0].DescribeCommands(), "-@all +get");
  EXPECT_EQ(user.ApplyRules({"(+get", "~x"}, false),
            "Unmatched parenthesis in acl selector starting at '(+get'.");
  EXPECT_EQ(user.ApplyRules({"(+set", "~x)"}, false), "");
  EXPECT_EQ(user.selectors().size(), 2u);
}

TEST(AclUserTest, PasswordsAreKeptHashed) {
  AclUser user = NewUser({"on", ">secret"});
  EXPECT_EQ(user.password_hashes(), std::vector<std::string>{AclPasswordHash("secret")});
  EXPECT_EQ(AclPasswordHash("secret").size(), 64u);
  EXPECT_EQ(user.Describe().find("secret"), std::string::npos);
  EXPECT_TRUE(user.Accepts("secret"));
  EXPECT_FALSE(user.Accepts("Secret"));
  EXPECT_EQ(user.Apply("#" + std::string(64, 'A'), false), AclRuleError::kBadHash);
  EXPECT_EQ(user.Apply("#" + AclPasswordHash("other"), false), AclRuleError::kNone);
  EXPECT_TRUE(user.Accepts("other"));
  EXPECT_EQ(user.Apply("<missing", false), AclRuleError::kNoSuchPassword);
  EXPECT_EQ(user.Apply("!" + AclPasswordHash("secret"), false), AclRuleError::kNone);
  EXPECT_FALSE(user.Accepts("secret"));
  EXPECT_EQ(user.Apply("nopass", false), AclRuleError::kNone);
  EXPECT_TRUE(user.Accepts("anything"));
  EXPECT_EQ(user.Apply("off", false), AclRuleError::kNone);
  EXPECT_FALSE(user.Accepts("anything"));
  EXPECT_EQ(user.Apply("reset", false), AclRuleError::kNone);
  EXPECT_EQ(user.Describe(), "off sanitize-payload resetchannels -@all");
}

// Redis aborts if a description does not give back the user's bitmap;
// here: random rules, their description applied to a new user, and every
// command and first argument compared.
TEST(AclUserTest, DescriptionsRoundTripOverRandomRules) {
  const std::vector<std::string> pieces = {
      "+@all",   "-@all",        "+@read",     "-@write",   "+@string",     "-@fast",
      "+@admin", "-@dangerous",  "+get",       "-set",      "+config|get",  "-config|set",
      "+config", "-config",      "+select|0",  "+select|1", "-@connection", "+@slow",
      "~k*",     "%R~r*",        "%W~w*",      "&ch",       "resetkeys",    "allchannels"};
  std::mt19937 random(20261128);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> rules;
    const int n = static_cast<int>(random() % 8) + 1;
    for (int i = 0; i < n; ++i) rules.push_back(pieces[random() % pieces.size()]);
    AclUser user("u", Commands(), false);
    std::string error = user.ApplyRules(rules, false);
    if (!error.empty()) continue;  // "~k*" after "allkeys", ...
    AclUser again("u", Commands(), false);
    std::vector<std::string> described;
    std::string word;
    for (const char c : user.selectors()[0].Describe() + " ") {
      if (c != ' ') {
        word += c;
      } else if (!word.empty()) {
        described.push_back(word);
        word.clear();
      }
    }
    ASSERT_EQ(again.ApplyRules(described, false), "") << user.Describe();
    for (int id = 0; id < Commands().size(); ++id) {
      for (const char* first : {"0", "1", "get"}) {
        const std::vector<std::string> args = {Commands()[id].name, first, "x"};
        EXPECT_EQ(user.selectors()[0].AllowsCommand(id, args),
                  again.selectors()[0].AllowsCommand(id, args))
            << "seed 20261128 round " << round << ": " << user.Describe() << " / "
            << again.Describe() << " on " << Commands()[id].name << " " << first;
      }
    }
    EXPECT_EQ(user.selectors()[0].Describe(), again.selectors()[0].Describe());
  }
}

TEST(AclUsersTest, SetUserDeleteAndVersions) {
  AclUsers users(Commands());
  EXPECT_FALSE(users.AuthRequired());
  const uint64_t v0 = users.version();
  std::shared_ptr<const AclUser> before, after;
  EXPECT_EQ(users.SetUser("bob", {"on", ">pw", "+get", "~k"}, &before, &after), "");
  EXPECT_EQ(before, nullptr);
  EXPECT_GT(users.version(), v0);
  EXPECT_NE(users.SetUser("bob", {"+nosuch"}, &before, &after), "");
  EXPECT_EQ(users.Find("bob")->Describe(), after->Describe());
  EXPECT_EQ(users.Delete({"default", "bob", "nobody"}), std::vector<std::string>{"bob"});
  EXPECT_EQ(users.Find("bob"), nullptr);
  EXPECT_NE(users.Find("default"), nullptr);
}

TEST(AclUsersTest, RequirePassIsTheDefaultUsersPassword) {
  AclUsers users(Commands());
  users.SetRequirePass("pw");
  EXPECT_TRUE(users.AuthRequired());
  EXPECT_TRUE(users.Find("default")->Accepts("pw"));
  // The same value again leaves a password added since in place.
  std::shared_ptr<const AclUser> before, after;
  EXPECT_EQ(users.SetUser("default", {">second"}, &before, &after), "");
  users.SetRequirePass("pw");
  EXPECT_TRUE(users.Find("default")->Accepts("second"));
  users.SetRequirePass("");
  EXPECT_FALSE(users.AuthRequired());
  EXPECT_TRUE(users.DefaultNoPass());
}

TEST(AclUsersTest, AclFileLoadsWholeOrNotAtAll) {
  AclUsers users(Commands());
  std::vector<std::string> replaced;
  std::shared_ptr<const AclUser> before, after;
  ASSERT_EQ(users.SetUser("old", {"on"}, &before, &after), "");
  EXPECT_EQ(users.Load("user alice on >a ~* +@all\n\nuser bob off +get\n", "users.acl", &replaced), "");
  EXPECT_EQ(replaced, std::vector<std::string>{"old"});
  EXPECT_EQ(users.Find("old"), nullptr);
  ASSERT_NE(users.Find("alice"), nullptr);
  EXPECT_EQ(users.Find("default")->Describe(), "on nopass ~* &* +@all");  // made, as Redis
  const std::string errors = users.Load(
      "user carol on\nalice on\nuser erin +nosuch\nuser dave on\nuser carol on\n", "users.acl",
      &replaced);
  EXPECT_NE(errors.find("users.acl:2 should start with user keyword"), std::string::npos) << errors;
  EXPECT_NE(errors.find("users.acl:3: Error in applying operation '+nosuch'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("Duplicate user 'carol' found on line 5"), std::string::npos) << errors;
  EXPECT_NE(errors.find("no change to the previously active ACL rules was performed"), std::string::npos);
  EXPECT_EQ(users.Find("carol"), nullptr);
  EXPECT_NE(users.Find("alice"), nullptr);
  std::vector<std::string> lines = users.Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], "user bob off resetchannels -@all +get");
}

TEST(AclUsersTest, ConfiguredUsersResetTheDefaultOne) {
  AclUsers users(Commands());
  EXPECT_EQ(users.LoadConfigured({{"default", "on", "nopass", "~*", "+@all"}, {"app", "on", ">p"}}), "");
  EXPECT_EQ(users.Find("default")->Describe(), "on nopass sanitize-payload ~* resetchannels +@all");
  EXPECT_EQ(users.LoadConfigured({{"x"}, {"x"}}),
            "Duplicate user found. A user can only be defined once in config files");
}

TEST(AclLogTest, SimilarEventsCountOnceAndTheLogIsBounded) {
  AclLog log;
  log.set_max_len(3);
  auto event = [](const std::string& object, int64_t at_ms) {
    AclLog::Entry e;
    e.reason = "command";
    e.context = "toplevel";
    e.object = object;
    e.username = "bob";
    e.at_ms = at_ms;
    return e;
  };
  log.Add(event("get", 1000));
  log.Add(event("get", 2000));
  ASSERT_EQ(log.Newest(10).size(), 1u);
  EXPECT_EQ(log.Newest(10)[0].count, 2u);
  EXPECT_EQ(log.Newest(10)[0].at_ms, 2000);
  log.Add(event("get", 200000));  // more than 60 s later: a new entry
  EXPECT_EQ(log.Newest(10).size(), 2u);
  for (const char* object : {"a", "b", "c"}) log.Add(event(object, 200000));
  EXPECT_EQ(log.Newest(10).size(), 3u);
  EXPECT_EQ(log.Newest(1)[0].object, "c");
  log.Reset();
  EXPECT_TRUE(log.Newest(10).empty());
}

}  // namespace
}  // namespace teksdb::server
