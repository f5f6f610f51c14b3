// AclCommands implementation: Redis 7.0's subcommands (and CLIENT's that
// 7.2 added), with their categories as COMMAND INFO gives them on
// redis-server 7.0 (the commands take theirs from command_info.cc's table).
#include "acl_catalog.h"

#include <cstring>
#include <string_view>

#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"

namespace teksdb::server {
namespace {

struct NamedCategories {
  const char* name;
  const char* categories;
};

// Every subcommand of Redis 7.0 (and CLIENT's that 7.2 added), by container.
const NamedCategories kSubcommandCategories[] = {
    {"acl|cat", "@slow"}, {"acl|deluser", "@admin @slow @dangerous"},
    {"acl|dryrun", "@admin @slow @dangerous"}, {"acl|genpass", "@slow"},
    {"acl|getuser", "@admin @slow @dangerous"}, {"acl|help", "@slow"},
    {"acl|list", "@admin @slow @dangerous"}, {"acl|load", "@admin @slow @dangerous"},
    {"acl|log", "@admin @slow @dangerous"}, {"acl|save", "@admin @slow @dangerous"},
    {"acl|setuser", "@admin @slow @dangerous"}, {"acl|users", "@admin @slow @dangerous"},
    {"acl|whoami", "@slow"}, {"client|caching", "@slow @connection"},
    {"client|getname", "@slow @connection"}, {"client|getredir", "@slow @connection"},
    {"client|help", "@slow @connection"}, {"client|id", "@slow @connection"},
    {"client|info", "@slow @connection"}, {"client|kill", "@admin @slow @dangerous @connection"},
    {"client|list", "@admin @slow @dangerous @connection"},
    {"client|no-evict", "@admin @slow @dangerous @connection"},
    {"client|no-touch", "@slow @connection"}, {"client|setinfo", "@slow @connection"},
    {"client|pause", "@admin @slow @dangerous @connection"}, {"client|reply", "@slow @connection"},
    {"client|setname", "@slow @connection"}, {"client|tracking", "@slow @connection"},
    {"client|trackinginfo", "@slow @connection"},
    {"client|unblock", "@admin @slow @dangerous @connection"},
    {"client|unpause", "@admin @slow @dangerous @connection"},
    {"cluster|addslots", "@admin @slow @dangerous"},
    {"cluster|addslotsrange", "@admin @slow @dangerous"},
    {"cluster|bumpepoch", "@admin @slow @dangerous"},
    {"cluster|count-failure-reports", "@admin @slow @dangerous"},
    {"cluster|countkeysinslot", "@slow"}, {"cluster|delslots", "@admin @slow @dangerous"},
    {"cluster|delslotsrange", "@admin @slow @dangerous"},
    {"cluster|failover", "@admin @slow @dangerous"},
    {"cluster|flushslots", "@admin @slow @dangerous"},
    {"cluster|forget", "@admin @slow @dangerous"}, {"cluster|getkeysinslot", "@slow"},
    {"cluster|help", "@slow"}, {"cluster|info", "@slow"}, {"cluster|keyslot", "@slow"},
    {"cluster|links", "@slow"}, {"cluster|meet", "@admin @slow @dangerous"},
    {"cluster|myid", "@slow"}, {"cluster|nodes", "@slow"},
    {"cluster|replicas", "@admin @slow @dangerous"},
    {"cluster|replicate", "@admin @slow @dangerous"}, {"cluster|reset", "@admin @slow @dangerous"},
    {"cluster|saveconfig", "@admin @slow @dangerous"},
    {"cluster|set-config-epoch", "@admin @slow @dangerous"},
    {"cluster|setslot", "@admin @slow @dangerous"}, {"cluster|shards", "@slow"},
    {"cluster|slaves", "@admin @slow @dangerous"}, {"cluster|slots", "@slow"},
    {"command|count", "@slow @connection"}, {"command|docs", "@slow @connection"},
    {"command|getkeys", "@slow @connection"}, {"command|getkeysandflags", "@slow @connection"},
    {"command|help", "@slow @connection"}, {"command|info", "@slow @connection"},
    {"command|list", "@slow @connection"}, {"config|get", "@admin @slow @dangerous"},
    {"config|help", "@slow"}, {"config|resetstat", "@admin @slow @dangerous"},
    {"config|rewrite", "@admin @slow @dangerous"}, {"config|set", "@admin @slow @dangerous"},
    {"function|delete", "@write @slow @scripting"}, {"function|dump", "@slow @scripting"},
    {"function|flush", "@write @slow @scripting"}, {"function|help", "@slow @scripting"},
    {"function|kill", "@slow @scripting"}, {"function|list", "@slow @scripting"},
    {"function|load", "@write @slow @scripting"}, {"function|restore", "@write @slow @scripting"},
    {"function|stats", "@slow @scripting"}, {"latency|doctor", "@admin @slow @dangerous"},
    {"latency|graph", "@admin @slow @dangerous"}, {"latency|help", "@slow"},
    {"latency|histogram", "@admin @slow @dangerous"},
    {"latency|history", "@admin @slow @dangerous"}, {"latency|latest", "@admin @slow @dangerous"},
    {"latency|reset", "@admin @slow @dangerous"}, {"memory|doctor", "@slow"},
    {"memory|help", "@slow"}, {"memory|malloc-stats", "@slow"}, {"memory|purge", "@slow"},
    {"memory|stats", "@slow"}, {"memory|usage", "@read @slow"}, {"module|help", "@slow"},
    {"module|list", "@admin @slow @dangerous"}, {"module|load", "@admin @slow @dangerous"},
    {"module|loadex", "@admin @slow @dangerous"}, {"module|unload", "@admin @slow @dangerous"},
    {"object|encoding", "@keyspace @read @slow"}, {"object|freq", "@keyspace @read @slow"},
    {"object|help", "@keyspace @slow"}, {"object|idletime", "@keyspace @read @slow"},
    {"object|refcount", "@keyspace @read @slow"}, {"pubsub|channels", "@pubsub @slow"},
    {"pubsub|help", "@slow"}, {"pubsub|numpat", "@pubsub @slow"},
    {"pubsub|numsub", "@pubsub @slow"}, {"pubsub|shardchannels", "@pubsub @slow"},
    {"pubsub|shardnumsub", "@pubsub @slow"}, {"script|debug", "@slow @scripting"},
    {"script|exists", "@slow @scripting"}, {"script|flush", "@slow @scripting"},
    {"script|help", "@slow @scripting"}, {"script|kill", "@slow @scripting"},
    {"script|load", "@slow @scripting"}, {"slowlog|get", "@admin @slow @dangerous"},
    {"slowlog|help", "@slow"}, {"slowlog|len", "@admin @slow @dangerous"},
    {"slowlog|reset", "@admin @slow @dangerous"}, {"xgroup|create", "@write @stream @slow"},
    {"xgroup|createconsumer", "@write @stream @slow"},
    {"xgroup|delconsumer", "@write @stream @slow"}, {"xgroup|destroy", "@write @stream @slow"},
    {"xgroup|help", "@stream @slow"}, {"xgroup|setid", "@write @stream @slow"},
    {"xinfo|consumers", "@read @stream @slow"}, {"xinfo|groups", "@read @stream @slow"},
    {"xinfo|help", "@stream @slow"}, {"xinfo|stream", "@read @stream @slow"},
};

AclCommandSet Build() {
  AclCommandSet set;
  auto add = [&](const char* name, const char* categories, bool no_auth) {
    const int id = set.Add(name, AclCategoryBits(categories), no_auth);
    const std::string prefix = std::string(name) + "|";
    for (const NamedCategories& sub : kSubcommandCategories) {
      if (std::strncmp(sub.name, prefix.c_str(), prefix.size()) == 0) {
        set.Add(sub.name, AclCategoryBits(sub.categories), false, id);
      }
    }
  };
  for (const Command& command : CommandTable()) {
    const CommandInfo& info = *FindCommandInfo(command.name);
    add(command.name, info.acl_categories, std::strstr(info.flags, "no_auth") != nullptr);
  }
  return set;
}

}  // namespace

const AclCommandSet& AclCommands() {
  static const AclCommandSet set = Build();
  return set;
}

int AclCommandId(size_t table_index, const std::vector<std::string>& args) {
  static const std::vector<int> ids = [] {
    std::vector<int> by_index;
    for (const Command& command : CommandTable()) by_index.push_back(AclCommands().Find(command.name));
    return by_index;
  }();
  const int id = ids[table_index];
  if (args.size() < 2 || AclCommands()[id].subcommands.empty()) return id;
  const int sub = AclCommands().Find(AclCommands()[id].name + "|" + AsciiLower(args[1]));
  return sub >= 0 ? sub : id;
}

}  // namespace teksdb::server
