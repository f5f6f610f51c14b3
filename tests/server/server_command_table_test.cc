// Tests of teksdb-server's command metadata (command_info.h) against its
// command table (commands.h): every command has exactly one info entry and
// every entry a command; key positions lie within what the arity allows;
// the keys a request names are found (MSET's every other argument, DEL's
// all, none for PING), and the commands that touch every key say so, so
// that EXEC locks what its commands use; subcommands are checked like
// Redis does.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "command_info.h"
#include "commands.h"

namespace teksdb::server {
namespace {

TEST(CommandTableTest, EveryCommandHasOneInfoEntryAndNoEntryLacksACommand) {
  std::set<std::string> names;
  for (const Command& c : CommandTable()) {
    EXPECT_TRUE(names.insert(c.name).second) << "twice in the table: " << c.name;
    EXPECT_NE(FindCommandInfo(c.name), nullptr) << "no COMMAND info for " << c.name;
  }
  EXPECT_EQ(CommandInfoCount(), CommandTable().size());
}

TEST(CommandTableTest, KeyPositionsLieWithinTheArity) {
  for (const Command& c : CommandTable()) {
    const CommandInfo& info = *FindCommandInfo(c.name);
    if (info.first_key == 0) {
      EXPECT_EQ(info.last_key, 0) << c.name;
      continue;
    }
    const int least_args = c.arity > 0 ? c.arity : -c.arity;
    EXPECT_GE(info.key_step, 1) << c.name;
    if (info.first_key >= least_args) continue;  // keys are optional (SUNSUBSCRIBE)
    // A request of the least arity names its first key.
    std::vector<std::string> request{c.name};
    for (int i = 1; i < least_args; ++i) request.push_back("a" + std::to_string(i));
    std::vector<std::string> keys;
    bool whole_keyspace = false;
    AppendRequestKeys(request, &keys, &whole_keyspace);
    ASSERT_FALSE(keys.empty()) << c.name;
    EXPECT_EQ(keys.front(), request[info.first_key]) << c.name;
  }
}

TEST(CommandTableTest, RequestsNameTheirKeys) {
  auto keys_of = [](std::vector<std::string> request, bool* whole = nullptr) {
    std::vector<std::string> keys;
    bool whole_keyspace = false;
    AppendRequestKeys(request, &keys, &whole_keyspace);
    if (whole) *whole = whole_keyspace;
    return keys;
  };
  EXPECT_EQ(keys_of({"MSET", "a", "1", "b", "2"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys_of({"del", "a", "b", "c"}), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(keys_of({"rename", "a", "b"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys_of({"hset", "h", "f", "v", "g", "w"}), (std::vector<std::string>{"h"}));
  EXPECT_EQ(keys_of({"sintercard", "2", "a", "b", "LIMIT", "1"}), (std::vector<std::string>{"a", "b"}));
  // A count past the arguments names no key (as Redis's key specs read it).
  EXPECT_TRUE(keys_of({"sintercard", "5", "a"}).empty());
  EXPECT_TRUE(keys_of({"ping"}).empty());
  for (const char* every : {"keys", "scan", "dbsize", "flushall", "flushdb"}) {
    bool whole = false;
    keys_of({every, "x"}, &whole);
    EXPECT_TRUE(whole) << every;
  }
  bool whole = true;
  keys_of({"get", "x"}, &whole);
  EXPECT_FALSE(whole);
}

TEST(CommandTableTest, SubcommandsAreCheckedAsRedisDoes) {
  EXPECT_EQ(SubcommandError({"COMMAND", "COUNT"}), "");
  EXPECT_EQ(SubcommandError({"command"}), "");
  EXPECT_EQ(SubcommandError({"COMMAND", "GETKEYS", "GET"}),
            "ERR wrong number of arguments for 'command|getkeys' command");
  EXPECT_EQ(SubcommandError({"client", "Bogus"}), "ERR unknown subcommand 'Bogus'. Try CLIENT HELP.");
  EXPECT_EQ(SubcommandError({"CONFIG", "get"}),
            "ERR wrong number of arguments for 'config|get' command");
  EXPECT_EQ(SubcommandError({"get", "anything"}), "");
}

}  // namespace
}  // namespace teksdb::server
