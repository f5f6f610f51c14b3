// CommandInfo implementation: the table (one line per command the server
// runs; tests/server/server_command_table_test.cc checks it covers exactly
// CommandTable(), and the differential test compares COMMAND INFO with
// Redis's), the subcommands, and the COMMAND command.
#include "command_info.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <iterator>
#include <sstream>

#include "acl_catalog.h"
#include "ascii_case.h"
#include "commands.h"
#include "glob_match.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Redis 7.0's COMMAND output for these names: flags, first key, last key,
// step, ACL categories; then whole_keyspace and numkeys_index.
const CommandInfo kCommands[] = {
    {"acl", "", 0, 0, 0, "@slow"},
    {"append", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"auth", "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@fast @connection"},
    {"bgrewriteaof", "admin noscript no_async_loading", 0, 0, 0, "@admin @slow @dangerous"},
    {"bgsave", "admin noscript no_async_loading", 0, 0, 0, "@admin @slow @dangerous"},
    {"bitcount", "readonly", 1, 1, 1, "@read @bitmap @slow"},
    {"bitfield", "write denyoom", 1, 1, 1, "@write @bitmap @slow"},
    {"bitfield_ro", "readonly fast", 1, 1, 1, "@read @bitmap @fast"},
    {"bitop", "write denyoom", 2, -1, 1, "@write @bitmap @slow"},
    {"bitpos", "readonly", 1, 1, 1, "@read @bitmap @slow"},
    {"blmove", "write denyoom noscript blocking", 1, 2, 1, "@write @list @slow @blocking"},
    {"blmpop", "write blocking movablekeys", 0, 0, 0, "@write @list @slow @blocking", false, 2},
    {"blpop", "write noscript blocking", 1, -2, 1, "@write @list @slow @blocking"},
    {"brpop", "write noscript blocking", 1, -2, 1, "@write @list @slow @blocking"},
    {"brpoplpush", "write denyoom noscript blocking", 1, 2, 1, "@write @list @slow @blocking"},
    {"bzmpop", "write blocking movablekeys", 0, 0, 0, "@write @sortedset @slow @blocking", false, 2},
    {"bzpopmax", "write noscript blocking fast", 1, -2, 1, "@write @sortedset @fast @blocking"},
    {"bzpopmin", "write noscript blocking fast", 1, -2, 1, "@write @sortedset @fast @blocking"},
    {"client", "", 0, 0, 0, "@slow"},
    {"command", "loading stale", 0, 0, 0, "@slow @connection"},
    {"config", "", 0, 0, 0, "@slow"},
    {"copy", "write denyoom", 1, 2, 1, "@keyspace @write @slow"},
    {"dbsize", "readonly fast", 0, 0, 0, "@keyspace @read @fast", true},
    {"debug", "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous"},
    {"decr", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"decrby", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"del", "write", 1, -1, 1, "@keyspace @write @slow"},
    {"discard", "noscript loading stale fast allow_busy", 0, 0, 0, "@fast @transaction"},
    {"dump", "readonly", 1, 1, 1, "@keyspace @read @slow"},
    {"echo", "loading stale fast", 0, 0, 0, "@fast @connection"},
    {"eval", "noscript stale skip_monitor no_mandatory_keys movablekeys", 0, 0, 0, "@slow @scripting", true, 2},
    {"eval_ro", "readonly noscript stale skip_monitor no_mandatory_keys movablekeys", 0, 0, 0, "@slow @scripting", true, 2},
    {"evalsha", "noscript stale skip_monitor no_mandatory_keys movablekeys", 0, 0, 0, "@slow @scripting", true, 2},
    {"evalsha_ro", "readonly noscript stale skip_monitor no_mandatory_keys movablekeys", 0, 0, 0, "@slow @scripting", true, 2},
    {"exec", "noscript loading stale skip_slowlog", 0, 0, 0, "@slow @transaction"},
    {"exists", "readonly fast", 1, -1, 1, "@keyspace @read @fast"},
    {"expire", "write fast", 1, 1, 1, "@keyspace @write @fast"},
    {"expireat", "write fast", 1, 1, 1, "@keyspace @write @fast"},
    {"expiretime", "readonly fast", 1, 1, 1, "@keyspace @read @fast"},
    {"failover", "admin noscript stale", 0, 0, 0, "@admin @slow @dangerous"},
    {"fcall", "noscript stale skip_monitor no_mandatory_keys movablekeys", 0, 0, 0, "@slow @scripting", true, 2},
    {"fcall_ro", "readonly noscript stale skip_monitor no_mandatory_keys movablekeys", 0, 0, 0, "@slow @scripting", true, 2},
    {"flushall", "write", 0, 0, 0, "@keyspace @write @slow @dangerous", true},
    {"flushdb", "write", 0, 0, 0, "@keyspace @write @slow @dangerous", true},
    {"function", "", 0, 0, 0, "@slow"},
    {"geoadd", "write denyoom", 1, 1, 1, "@write @geo @slow"},
    {"geodist", "readonly", 1, 1, 1, "@read @geo @slow"},
    {"geohash", "readonly", 1, 1, 1, "@read @geo @slow"},
    {"geopos", "readonly", 1, 1, 1, "@read @geo @slow"},
    {"georadius", "write denyoom movablekeys", 1, 1, 1, "@write @geo @slow"},
    {"georadius_ro", "readonly", 1, 1, 1, "@read @geo @slow"},
    {"georadiusbymember", "write denyoom movablekeys", 1, 1, 1, "@write @geo @slow"},
    {"georadiusbymember_ro", "readonly", 1, 1, 1, "@read @geo @slow"},
    {"geosearch", "readonly", 1, 1, 1, "@read @geo @slow"},
    {"geosearchstore", "write denyoom", 1, 2, 1, "@write @geo @slow"},
    {"get", "readonly fast", 1, 1, 1, "@read @string @fast"},
    {"getbit", "readonly fast", 1, 1, 1, "@read @bitmap @fast"},
    {"getdel", "write fast", 1, 1, 1, "@write @string @fast"},
    {"getex", "write fast", 1, 1, 1, "@write @string @fast"},
    {"getrange", "readonly", 1, 1, 1, "@read @string @slow"},
    {"getset", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"hdel", "write fast", 1, 1, 1, "@write @hash @fast"},
    {"hello", "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@fast @connection"},
    {"hexists", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hexpire", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hexpireat", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hexpiretime", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hget", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hgetall", "readonly", 1, 1, 1, "@read @hash @slow"},
    {"hincrby", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hincrbyfloat", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hkeys", "readonly", 1, 1, 1, "@read @hash @slow"},
    {"hlen", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hmget", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hmset", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hpersist", "write fast", 1, 1, 1, "@write @hash @fast"},
    {"hpexpire", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hpexpireat", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hpexpiretime", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hpttl", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hrandfield", "readonly", 1, 1, 1, "@read @hash @slow"},
    {"hscan", "readonly", 1, 1, 1, "@read @hash @slow"},
    {"hset", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hsetnx", "write denyoom fast", 1, 1, 1, "@write @hash @fast"},
    {"hstrlen", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"httl", "readonly fast", 1, 1, 1, "@read @hash @fast"},
    {"hvals", "readonly", 1, 1, 1, "@read @hash @slow"},
    {"incr", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"incrby", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"incrbyfloat", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"info", "loading stale", 0, 0, 0, "@slow @dangerous"},
    {"keys", "readonly", 0, 0, 0, "@keyspace @read @slow @dangerous", true},
    {"lastsave", "loading stale fast", 0, 0, 0, "@admin @fast @dangerous"},
    {"latency", "", 0, 0, 0, "@slow"},
    {"lcs", "readonly", 1, 2, 1, "@read @string @slow"},
    {"lindex", "readonly", 1, 1, 1, "@read @list @slow"},
    {"linsert", "write denyoom", 1, 1, 1, "@write @list @slow"},
    {"llen", "readonly fast", 1, 1, 1, "@read @list @fast"},
    {"lmove", "write denyoom", 1, 2, 1, "@write @list @slow"},
    {"lmpop", "write movablekeys", 0, 0, 0, "@write @list @slow", false, 1},
    {"lolwut", "readonly fast", 0, 0, 0, "@read @fast"},
    {"lpop", "write fast", 1, 1, 1, "@write @list @fast"},
    {"lpos", "readonly", 1, 1, 1, "@read @list @slow"},
    {"lpush", "write denyoom fast", 1, 1, 1, "@write @list @fast"},
    {"lpushx", "write denyoom fast", 1, 1, 1, "@write @list @fast"},
    {"lrange", "readonly", 1, 1, 1, "@read @list @slow"},
    {"lrem", "write", 1, 1, 1, "@write @list @slow"},
    {"lset", "write denyoom", 1, 1, 1, "@write @list @slow"},
    {"ltrim", "write", 1, 1, 1, "@write @list @slow"},
    {"memory", "", 0, 0, 0, "@slow"},
    {"mget", "readonly fast", 1, -1, 1, "@read @string @fast"},
    {"migrate", "write movablekeys", 3, 3, 1, "@keyspace @write @slow @dangerous"},
    {"module", "", 0, 0, 0, "@slow"},
    {"cluster", "", 0, 0, 0, "@slow"},
    {"readonly", "loading stale fast", 0, 0, 0, "@fast @connection"},
    {"readwrite", "loading stale fast", 0, 0, 0, "@fast @connection"},
    {"asking", "fast", 0, 0, 0, "@fast @connection"},
    {"monitor", "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous"},
    {"move", "write fast", 1, 1, 1, "@keyspace @write @fast"},
    {"mset", "write denyoom", 1, -1, 2, "@write @string @slow"},
    {"msetnx", "write denyoom", 1, -1, 2, "@write @string @slow"},
    {"multi", "noscript loading stale fast allow_busy", 0, 0, 0, "@fast @transaction"},
    {"object", "", 0, 0, 0, "@slow"},
    {"persist", "write fast", 1, 1, 1, "@keyspace @write @fast"},
    {"pexpire", "write fast", 1, 1, 1, "@keyspace @write @fast"},
    {"pexpireat", "write fast", 1, 1, 1, "@keyspace @write @fast"},
    {"pexpiretime", "readonly fast", 1, 1, 1, "@keyspace @read @fast"},
    {"pfadd", "write denyoom fast", 1, 1, 1, "@write @hyperloglog @fast"},
    {"pfcount", "readonly", 1, -1, 1, "@read @hyperloglog @slow"},
    {"pfdebug", "write denyoom admin", 2, 2, 1, "@write @hyperloglog @admin @slow @dangerous"},
    {"pfmerge", "write denyoom", 1, -1, 1, "@write @hyperloglog @slow"},
    {"pfselftest", "admin", 0, 0, 0, "@hyperloglog @admin @slow @dangerous"},
    {"ping", "fast", 0, 0, 0, "@fast @connection"},
    {"psetex", "write denyoom", 1, 1, 1, "@write @string @slow"},
    {"psubscribe", "pubsub noscript loading stale", 0, 0, 0, "@pubsub @slow"},
    {"psync", "admin noscript no_async_loading no_multi", 0, 0, 0, "@admin @slow @dangerous"},
    {"pttl", "readonly fast", 1, 1, 1, "@keyspace @read @fast"},
    {"publish", "pubsub loading stale fast", 0, 0, 0, "@pubsub @fast"},
    {"pubsub", "", 0, 0, 0, "@slow"},
    {"punsubscribe", "pubsub noscript loading stale", 0, 0, 0, "@pubsub @slow"},
    {"quit", "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@fast @connection"},
    {"randomkey", "readonly", 0, 0, 0, "@keyspace @read @slow", true},
    {"rename", "write", 1, 2, 1, "@keyspace @write @slow"},
    {"renamenx", "write fast", 1, 2, 1, "@keyspace @write @fast"},
    {"replconf", "admin noscript loading stale allow_busy", 0, 0, 0, "@admin @slow @dangerous"},
    {"replicaof", "admin noscript stale no_async_loading", 0, 0, 0, "@admin @slow @dangerous"},
    {"reset", "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@fast @connection"},
    {"restore", "write denyoom", 1, 1, 1, "@keyspace @write @slow @dangerous"},
    {"restore-asking", "write denyoom asking", 1, 1, 1, "@keyspace @write @slow @dangerous"},
    {"role", "noscript loading stale fast", 0, 0, 0, "@admin @fast @dangerous"},
    {"rpop", "write fast", 1, 1, 1, "@write @list @fast"},
    {"rpoplpush", "write denyoom", 1, 2, 1, "@write @list @slow"},
    {"rpush", "write denyoom fast", 1, 1, 1, "@write @list @fast"},
    {"rpushx", "write denyoom fast", 1, 1, 1, "@write @list @fast"},
    {"sadd", "write denyoom fast", 1, 1, 1, "@write @set @fast"},
    {"save", "admin noscript no_async_loading no_multi", 0, 0, 0, "@admin @slow @dangerous"},
    {"scan", "readonly", 0, 0, 0, "@keyspace @read @slow", true},
    {"scard", "readonly fast", 1, 1, 1, "@read @set @fast"},
    {"script", "", 0, 0, 0, "@slow"},
    {"sdiff", "readonly", 1, -1, 1, "@read @set @slow"},
    {"sdiffstore", "write denyoom", 1, -1, 1, "@write @set @slow"},
    {"select", "loading stale fast", 0, 0, 0, "@fast @connection"},
    {"set", "write denyoom", 1, 1, 1, "@write @string @slow"},
    {"setbit", "write denyoom", 1, 1, 1, "@write @bitmap @slow"},
    {"setex", "write denyoom", 1, 1, 1, "@write @string @slow"},
    {"setnx", "write denyoom fast", 1, 1, 1, "@write @string @fast"},
    {"setrange", "write denyoom", 1, 1, 1, "@write @string @slow"},
    {"shutdown", "admin noscript loading stale no_multi allow_busy", 0, 0, 0, "@admin @slow @dangerous"},
    {"sinter", "readonly", 1, -1, 1, "@read @set @slow"},
    {"sintercard", "readonly movablekeys", 0, 0, 0, "@read @set @slow", false, 1},
    {"sinterstore", "write denyoom", 1, -1, 1, "@write @set @slow"},
    {"sismember", "readonly fast", 1, 1, 1, "@read @set @fast"},
    {"slaveof", "admin noscript stale no_async_loading", 0, 0, 0, "@admin @slow @dangerous"},
    {"slowlog", "", 0, 0, 0, "@slow"},
    {"smembers", "readonly", 1, 1, 1, "@read @set @slow"},
    {"smismember", "readonly fast", 1, 1, 1, "@read @set @fast"},
    {"smove", "write fast", 1, 2, 1, "@write @set @fast"},
    {"sort", "write denyoom movablekeys", 1, 1, 1, "@write @set @sortedset @list @slow @dangerous"},
    {"sort_ro", "readonly movablekeys", 1, 1, 1, "@read @set @sortedset @list @slow @dangerous"},
    {"spop", "write fast", 1, 1, 1, "@write @set @fast"},
    {"spublish", "pubsub loading stale fast", 1, 1, 1, "@pubsub @fast"},
    {"srandmember", "readonly", 1, 1, 1, "@read @set @slow"},
    {"srem", "write fast", 1, 1, 1, "@write @set @fast"},
    {"sscan", "readonly", 1, 1, 1, "@read @set @slow"},
    {"ssubscribe", "pubsub noscript loading stale", 1, -1, 1, "@pubsub @slow"},
    {"strlen", "readonly fast", 1, 1, 1, "@read @string @fast"},
    {"subscribe", "pubsub noscript loading stale", 0, 0, 0, "@pubsub @slow"},
    {"substr", "readonly", 1, 1, 1, "@read @string @slow"},
    {"sunion", "readonly", 1, -1, 1, "@read @set @slow"},
    {"sunionstore", "write denyoom", 1, -1, 1, "@write @set @slow"},
    {"sunsubscribe", "pubsub noscript loading stale", 1, -1, 1, "@pubsub @slow"},
    {"swapdb", "write fast", 0, 0, 0, "@keyspace @write @fast @dangerous", true},
    {"sync", "admin noscript no_async_loading no_multi", 0, 0, 0, "@admin @slow @dangerous"},
    {"time", "loading stale fast", 0, 0, 0, "@fast"},
    {"touch", "readonly fast", 1, -1, 1, "@keyspace @read @fast"},
    {"ttl", "readonly fast", 1, 1, 1, "@keyspace @read @fast"},
    {"type", "readonly fast", 1, 1, 1, "@keyspace @read @fast"},
    {"unlink", "write fast", 1, -1, 1, "@keyspace @write @fast"},
    {"unsubscribe", "pubsub noscript loading stale", 0, 0, 0, "@pubsub @slow"},
    {"unwatch", "noscript loading stale fast allow_busy", 0, 0, 0, "@fast @transaction"},
    {"wait", "noscript", 0, 0, 0, "@slow @connection"},
    // (noscript as 7.0's WAIT, unlike 7.2's WAITAOF: it flushes its group and
    // syncs the WAL, which a script holding every gate should not.)
    {"waitaof", "noscript blocking", 0, 0, 0, "@slow @blocking @connection"},
    {"watch", "noscript loading stale fast allow_busy", 1, -1, 1, "@fast @transaction"},
    {"xack", "write fast", 1, 1, 1, "@write @stream @fast"},
    {"xadd", "write denyoom fast", 1, 1, 1, "@write @stream @fast"},
    {"xautoclaim", "write fast", 1, 1, 1, "@write @stream @fast"},
    {"xclaim", "write fast", 1, 1, 1, "@write @stream @fast"},
    {"xdel", "write fast", 1, 1, 1, "@write @stream @fast"},
    {"xgroup", "", 0, 0, 0, "@slow"},
    {"xinfo", "", 0, 0, 0, "@slow"},
    {"xlen", "readonly fast", 1, 1, 1, "@read @stream @fast"},
    {"xpending", "readonly", 1, 1, 1, "@read @stream @slow"},
    {"xrange", "readonly", 1, 1, 1, "@read @stream @slow"},
    {"xread", "readonly blocking movablekeys", 0, 0, 0, "@read @stream @slow @blocking"},
    {"xreadgroup", "write blocking movablekeys", 0, 0, 0, "@write @stream @slow @blocking"},
    {"xrevrange", "readonly", 1, 1, 1, "@read @stream @slow"},
    {"xsetid", "write denyoom fast", 1, 1, 1, "@write @stream @fast"},
    {"xtrim", "write", 1, 1, 1, "@write @stream @slow"},
    {"zadd", "write denyoom fast", 1, 1, 1, "@write @sortedset @fast"},
    {"zcard", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zcount", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zdiff", "readonly movablekeys", 0, 0, 0, "@read @sortedset @slow", false, 1},
    {"zdiffstore", "write denyoom movablekeys", 1, 1, 1, "@write @sortedset @slow", false, 2},
    {"zincrby", "write denyoom fast", 1, 1, 1, "@write @sortedset @fast"},
    {"zinter", "readonly movablekeys", 0, 0, 0, "@read @sortedset @slow", false, 1},
    {"zintercard", "readonly movablekeys", 0, 0, 0, "@read @sortedset @slow", false, 1},
    {"zinterstore", "write denyoom movablekeys", 1, 1, 1, "@write @sortedset @slow", false, 2},
    {"zlexcount", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zmpop", "write movablekeys", 0, 0, 0, "@write @sortedset @slow", false, 1},
    {"zmscore", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zpopmax", "write fast", 1, 1, 1, "@write @sortedset @fast"},
    {"zpopmin", "write fast", 1, 1, 1, "@write @sortedset @fast"},
    {"zrandmember", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrange", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrangebylex", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrangebyscore", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrangestore", "write denyoom", 1, 2, 1, "@write @sortedset @slow"},
    {"zrank", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zrem", "write fast", 1, 1, 1, "@write @sortedset @fast"},
    {"zremrangebylex", "write", 1, 1, 1, "@write @sortedset @slow"},
    {"zremrangebyrank", "write", 1, 1, 1, "@write @sortedset @slow"},
    {"zremrangebyscore", "write", 1, 1, 1, "@write @sortedset @slow"},
    {"zrevrange", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrevrangebylex", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrevrangebyscore", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zrevrank", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zscan", "readonly", 1, 1, 1, "@read @sortedset @slow"},
    {"zscore", "readonly fast", 1, 1, 1, "@read @sortedset @fast"},
    {"zunion", "readonly movablekeys", 0, 0, 0, "@read @sortedset @slow", false, 1},
    {"zunionstore", "write denyoom movablekeys", 1, 1, 1, "@write @sortedset @slow", false, 2},
};

// The subcommands the server runs, with their arity (counting the
// container's name, as Redis does).
struct Subcommand {
  const char* container;
  const char* name;
  int arity;
  bool admin = false;  // Redis 7.0's "admin" flag: MONITOR does not show it
  bool denyoom = false;  // Redis 7.0's "denyoom" flag: refused past maxmemory
};
// Containers whose subcommands scripts may not call (Redis 7.0 flags each
// ACL, CONFIG, CLIENT, SCRIPT, FUNCTION and LATENCY subcommand "noscript").
bool SubcommandsDeniedInScripts(const std::string& container) {
  return container == "acl" || container == "config" || container == "client" || container == "script" ||
         container == "latency" || container == "function" || container == "module";
}
const Subcommand kSubcommands[] = {
    {"acl", "cat", -2},         {"acl", "deluser", -3, true}, {"acl", "dryrun", -4, true},
    {"acl", "genpass", -2},     {"acl", "getuser", 3, true},  {"acl", "help", 2},
    {"acl", "list", 2, true},   {"acl", "load", 2, true},     {"acl", "log", -2, true},
    {"acl", "save", 2, true},   {"acl", "setuser", -3, true}, {"acl", "users", 2, true},
    {"acl", "whoami", 2},
    {"command", "count", 2},    {"command", "list", -2},  {"command", "info", -2},
    {"command", "docs", -2},    {"command", "getkeys", -4}, {"command", "getkeysandflags", -4},
    {"command", "help", 2},     {"client", "help", 2},    {"object", "help", 2},
    {"memory", "help", 2},      {"config", "help", 2},    {"slowlog", "help", 2},
    {"pubsub", "help", 2},      {"function", "help", 2},
    {"client", "setname", 3},   {"client", "getname", 2}, {"client", "id", 2},
    {"client", "setinfo", 4},   {"client", "no-touch", 3},
    {"client", "no-evict", 3, true},  {"client", "info", 2},    {"client", "list", -2, true},
    {"client", "reply", 3},     {"client", "tracking", -3}, {"client", "caching", 3},
    {"client", "getredir", 2},  {"client", "trackinginfo", 2}, {"client", "unblock", -3, true},
    {"client", "kill", -3, true},     {"client", "pause", -3, true}, {"client", "unpause", 2, true},
    {"object", "encoding", 3},  {"object", "freq", 3},    {"object", "idletime", 3},
    {"object", "refcount", 3},
    {"memory", "usage", -3},    {"memory", "stats", 2},   {"memory", "doctor", 2},
    {"memory", "purge", 2},     {"memory", "malloc-stats", 2},
    {"module", "help", 2},      {"module", "list", 2, true}, {"module", "load", -3, true},
    {"module", "loadex", -3, true}, {"module", "unload", 3, true},
    {"cluster", "addslots", -3, true}, {"cluster", "addslotsrange", -4, true},
    {"cluster", "bumpepoch", 2, true}, {"cluster", "count-failure-reports", 3, true},
    {"cluster", "countkeysinslot", 3}, {"cluster", "delslots", -3, true},
    {"cluster", "delslotsrange", -4, true}, {"cluster", "failover", -2, true},
    {"cluster", "flushslots", 2, true}, {"cluster", "forget", 3, true},
    {"cluster", "getkeysinslot", 4}, {"cluster", "help", 2}, {"cluster", "info", 2},
    {"cluster", "keyslot", 3},  {"cluster", "links", 2},  {"cluster", "meet", -4, true},
    {"cluster", "myid", 2},     {"cluster", "nodes", 2},  {"cluster", "replicas", 3, true},
    {"cluster", "replicate", 3, true}, {"cluster", "reset", -2, true},
    {"cluster", "saveconfig", 2, true}, {"cluster", "set-config-epoch", 3, true},
    {"cluster", "setslot", -4, true}, {"cluster", "shards", 2}, {"cluster", "slaves", 3, true},
    {"cluster", "slots", 2},
    {"latency", "latest", 2, true},   {"latency", "history", 3, true}, {"latency", "reset", -2, true},
    {"latency", "doctor", 2, true},   {"latency", "graph", 3, true},  {"latency", "histogram", -2, true},
    {"latency", "help", 2},
    {"config", "get", -3, true},      {"config", "set", -4, true},    {"config", "resetstat", 2, true},
    {"config", "rewrite", 2, true},
    {"slowlog", "get", -2, true},     {"slowlog", "len", 2, true},    {"slowlog", "reset", 2, true},
    {"pubsub", "channels", -2}, {"pubsub", "numsub", -2}, {"pubsub", "numpat", 2},
    {"pubsub", "shardchannels", -2}, {"pubsub", "shardnumsub", -2},
    {"script", "load", 3},      {"script", "exists", -3}, {"script", "flush", -2},
    {"script", "kill", 2},      {"script", "help", 2},
    {"function", "load", -3, false, true}, {"function", "delete", 3}, {"function", "flush", -2},
    {"function", "list", -2},   {"function", "dump", 2},   {"function", "restore", -3, false, true},
    {"function", "stats", 2},   {"function", "kill", 2},
    {"xgroup", "create", -5, false, true}, {"xgroup", "setid", -5},  {"xgroup", "destroy", 4},
    {"xgroup", "createconsumer", 5, false, true}, {"xgroup", "delconsumer", 5}, {"xgroup", "help", 2},
    {"xinfo", "stream", -3},    {"xinfo", "groups", 3},   {"xinfo", "consumers", 4},
    {"xinfo", "help", 2},
};

const Subcommand* FindSubcommand(const std::string& container, const std::string& name) {
  for (const Subcommand& s : kSubcommands) {
    if (container == s.container && name == s.name) return &s;
  }
  return nullptr;
}

std::vector<std::string> Words(const char* text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// One command's COMMAND entry: name, arity, flags, first key, last key,
// step, ACL categories, tips, key specs, subcommands (the last three
// empty).
void ReplyInfo(Request& r, const Command& command, const CommandInfo& info) {
  reply::ArrayHeader(r.out, 10);
  reply::Bulk(r.out, command.name);
  reply::Integer(r.out, command.arity);
  const std::vector<std::string> flags = Words(info.flags);
  reply::SetHeader(r.out, r.protocol(), flags.size());
  for (const std::string& f : flags) reply::Simple(r.out, f);
  reply::Integer(r.out, info.first_key);
  reply::Integer(r.out, info.last_key);
  reply::Integer(r.out, info.key_step);
  const std::vector<std::string> categories = Words(info.acl_categories);
  reply::SetHeader(r.out, r.protocol(), categories.size());
  for (const std::string& c : categories) reply::Simple(r.out, c);
  for (int empty = 0; empty < 3; ++empty) reply::ArrayHeader(r.out, 0);
}

// The subcommands that name a key (as their third argument), for GETKEYS.
bool SubcommandHasKey(const std::string& full_name) {
  const bool stream_key = (full_name.rfind("xgroup|", 0) == 0 || full_name.rfind("xinfo|", 0) == 0) &&
                          full_name.find("|help") == std::string::npos;
  return stream_key || full_name == "memory|usage" || full_name == "object|encoding" ||
         full_name == "object|freq" || full_name == "object|idletime" ||
         full_name == "object|refcount";
}

// COMMAND GETKEYS command arg...: its keys, in Redis's order and with its
// errors.
// Each command's key-spec flags, as Redis 7.0's COMMAND INFO gives them,
// one spec after another ("|"): the i-th key a request names has the i-th
// spec's flags, the last spec's past them (one spec: every key; LMOVE,
// ZUNIONSTORE, BITOP, ...: the first key, then the others).
const std::unordered_map<std::string_view, const char*>& KeySpecFlags() {
  static const std::unordered_map<std::string_view, const char*> flags = {
    {"append", "RW insert"}, {"bitcount", "RO access"}, {"bitfield", "RW access update"},
    {"bitfield_ro", "RO access"}, {"bitop", "OW update|RO access"},
    {"bitpos", "RO access"}, {"blmove", "RW access delete|RW insert"},
    {"blmpop", "RW access delete"}, {"blpop", "RW access delete"}, {"brpop", "RW access delete"},
    {"brpoplpush", "RW access delete|RW insert"}, {"bzmpop", "RW access delete"},
    {"bzpopmax", "RW access delete"}, {"bzpopmin", "RW access delete"},
    {"copy", "RO access|OW update"}, {"decr", "RW access update"}, {"decrby", "RW access update"},
    {"del", "RM delete"}, {"dump", "RO access"}, {"eval", "RW access update"}, {"eval_ro", "RO access"},
    {"evalsha", "RW access update"}, {"evalsha_ro", "RO access"}, {"exists", "RO"},
    {"expire", "RW update"}, {"expireat", "RW update"}, {"expiretime", "RO access"},
    {"fcall", "RW access update"}, {"fcall_ro", "RO access"}, {"geoadd", "RW update"},
    {"geodist", "RO access"}, {"geohash", "RO access"}, {"geopos", "RO access"},
    {"georadius", "RO access|OW update"}, {"georadius_ro", "RO access"},
    {"georadiusbymember", "RO access|OW update"}, {"georadiusbymember_ro", "RO access"},
    {"geosearch", "RO access"}, {"geosearchstore", "OW update|RO access"},
    {"get", "RO access"}, {"getbit", "RO access"}, {"getdel", "RW access delete"},
    {"getex", "RW access update"}, {"getrange", "RO access"}, {"getset", "RW access update"},
    {"hdel", "RW delete"}, {"hexists", "RO"}, {"hexpire", "RW update"}, {"hexpireat", "RW update"},
    {"hexpiretime", "RO access"}, {"hget", "RO access"}, {"hgetall", "RO access"},
    {"hincrby", "RW access update"}, {"hincrbyfloat", "RW access update"}, {"hkeys", "RO access"},
    {"hlen", "RO"}, {"hmget", "RO access"}, {"hmset", "RW update"}, {"hpersist", "RW update"},
    {"hpexpire", "RW update"}, {"hpexpireat", "RW update"}, {"hpexpiretime", "RO access"},
    {"hpttl", "RO access"}, {"hrandfield", "RO access"}, {"httl", "RO access"},
    {"hscan", "RO access"}, {"hset", "RW update"}, {"hsetnx", "RW insert"}, {"hstrlen", "RO"},
    {"hvals", "RO access"}, {"incr", "RW access update"}, {"incrby", "RW access update"},
    {"incrbyfloat", "RW access update"}, {"lcs", "RO access"}, {"lindex", "RO access"},
    {"linsert", "RW insert"}, {"llen", "RO"}, {"lmove", "RW access delete|RW insert"},
    {"lmpop", "RW access delete"}, {"lpop", "RW access delete"}, {"lpos", "RO access"},
    {"lpush", "RW insert"}, {"lpushx", "RW insert"}, {"lrange", "RO access"},
    {"lrem", "RW delete"}, {"lset", "RW update"}, {"ltrim", "RW delete"}, {"memory|usage", "RO"},
    {"mget", "RO access"}, {"migrate", "RW access delete"}, {"move", "RW access update"}, {"mset", "OW update"},
    {"msetnx", "OW insert"}, {"object|encoding", "RO"}, {"object|freq", "RO"},
    {"object|idletime", "RO"}, {"object|refcount", "RO"}, {"persist", "RW update"},
    {"pfadd", "RW insert"}, {"pfcount", "RW access"}, {"pfdebug", "RW access"},
    {"pfmerge", "RW access insert|RO access"},
    {"pexpire", "RW update"}, {"pexpireat", "RW update"}, {"pexpiretime", "RO access"},
    {"psetex", "OW update"}, {"pttl", "RO access"}, {"rename", "RW access delete|OW update"},
    {"renamenx", "RW access delete|OW insert"}, {"restore", "OW update"},
    {"restore-asking", "OW update"}, {"rpop", "RW access delete"},
    {"rpoplpush", "RW access delete|RW insert"}, {"rpush", "RW insert"}, {"rpushx", "RW insert"},
    {"sadd", "RW insert"}, {"scard", "RO"}, {"sdiff", "RO access"},
    {"sdiffstore", "OW update|RO access"}, {"sort", "RO access|OW update"},
    {"sort_ro", "RO access"}, {"set", "RW access update"},
    {"setbit", "RW access update"}, {"setex", "OW update"}, {"setnx", "OW insert"},
    {"setrange", "RW update"}, {"sinter", "RO access"}, {"sintercard", "RO access"},
    {"sinterstore", "RW update|RO access"}, {"sismember", "RO"}, {"smembers", "RO access"},
    {"smismember", "RO access"}, {"smove", "RW access delete|RW insert"},
    {"spop", "RW access delete"}, {"spublish", "not_key"}, {"srandmember", "RO access"},
    {"srem", "RW delete"}, {"sscan", "RO access"}, {"ssubscribe", "not_key"}, {"strlen", "RO"},
    {"substr", "RO access"}, {"sunion", "RO access"}, {"sunionstore", "OW update|RO access"},
    {"sunsubscribe", "not_key"}, {"touch", "RO"}, {"ttl", "RO access"}, {"type", "RO"},
    {"unlink", "RM delete"}, {"watch", "RO"}, {"zadd", "RW update"}, {"zcard", "RO"},
    {"xack", "RW update"}, {"xadd", "RW update"}, {"xautoclaim", "RW delete"},
    {"xclaim", "RW update"}, {"xdel", "RW delete"}, {"xgroup|create", "RW insert"},
    {"xgroup|createconsumer", "RW insert"}, {"xgroup|delconsumer", "RW delete"},
    {"xgroup|destroy", "RW delete"}, {"xgroup|setid", "RW update"}, {"xinfo|consumers", "RO access"},
    {"xinfo|groups", "RO access"}, {"xinfo|stream", "RO access"}, {"xlen", "RO"},
    {"xpending", "RO access"}, {"xrange", "RO access"}, {"xread", "RO access"},
    {"xreadgroup", "RO access"}, {"xrevrange", "RO access"}, {"xsetid", "RW update"},
    {"xtrim", "RW delete"}, {"zcount", "RO access"}, {"zdiff", "RO access"}, {"zdiffstore", "OW update|RO access"},
    {"zincrby", "RW access update"}, {"zinter", "RO access"}, {"zintercard", "RO access"},
    {"zinterstore", "OW update|RO access"}, {"zlexcount", "RO access"},
    {"zmpop", "RW access delete"}, {"zmscore", "RO access"}, {"zpopmax", "RW access delete"},
    {"zpopmin", "RW access delete"}, {"zrandmember", "RO access"}, {"zrange", "RO access"},
    {"zrangebylex", "RO access"}, {"zrangebyscore", "RO access"},
    {"zrangestore", "OW update|RO access"}, {"zrank", "RO access"}, {"zrem", "RW delete"},
    {"zremrangebylex", "RW delete"}, {"zremrangebyrank", "RW delete"},
    {"zremrangebyscore", "RW delete"}, {"zrevrange", "RO access"}, {"zrevrangebylex", "RO access"},
    {"zrevrangebyscore", "RO access"}, {"zrevrank", "RO access"}, {"zscan", "RO access"},
    {"zscore", "RO access"}, {"zunion", "RO access"}, {"zunionstore", "OW update|RO access"},
  };
  return flags;
}

}  // namespace

bool SetReturnsOldValue(const std::vector<std::string>& args) {
  for (size_t i = 3; i < args.size(); ++i) {
    if (AsciiEqualIgnoringCase(args[i], "get")) return true;
  }
  return false;
}

std::vector<std::vector<std::string>> CommandKeySpecs(std::string_view lower_case_name) {
  std::vector<std::vector<std::string>> specs;
  const auto it = KeySpecFlags().find(lower_case_name);
  if (it == KeySpecFlags().end()) return specs;
  std::string_view all(it->second);
  for (size_t from = 0;;) {
    const size_t bar = all.find('|', from);
    specs.push_back(Words(std::string(all.substr(from, bar - from)).c_str()));
    if (bar == std::string_view::npos) break;
    from = bar + 1;
  }
  return specs;
}

namespace {

// The key specs' flags of `request` (COMMAND GETKEYSANDFLAGS): the
// command's, or, for SET and BITFIELD, whose flags vary, the one spec
// this request's options make.
std::vector<std::vector<std::string>> RequestKeySpecs(const std::vector<std::string>& request) {
  const std::string name = FullCommandName(request);  // "memory|usage", ...
  if (name == "set") {  // variable: SET ... GET reads the old value
    if (SetReturnsOldValue(request)) return {{"RW", "access", "update"}};
    return {{"OW", "update"}};
  }
  if (name == "bitfield") {  // variable: read only if every operation is a whole GET or OVERFLOW
    for (size_t j = 2; j < request.size(); ++j) {
      const size_t left = request.size() - j - 1;
      const std::string sub = AsciiLower(request[j]);
      if (sub == "get" && left >= 2) {
        j += 2;
      } else if (sub == "overflow" && left >= 1) {
        j += 1;
      } else {  // SET, INCRBY, or a syntax error (taken as a write, as Redis)
        return {{"RW", "access", "update"}};
      }
    }
    return {{"RO", "access"}};
  }
  return CommandKeySpecs(name);
}

// COMMAND GETKEYS and GETKEYSANDFLAGS.
void ReplyGetKeys(Request& r, bool with_flags) {
  const std::vector<std::string> request(r.args.begin() + 2, r.args.end());
  const Command* command = LookupCommand(AsciiLower(request[0]));
  if (command == nullptr) return reply::Error(r.out, "ERR Invalid command specified");
  const CommandInfo& info = *FindCommandInfo(command->name);
  const bool subcommand_key = request.size() > 1 && SubcommandHasKey(FullCommandName(request));
  const bool movable = std::strstr(info.flags, "movablekeys") != nullptr;
  if (info.first_key == 0 && info.numkeys_index == 0 && !subcommand_key && !movable) {
    return reply::Error(r.out, "ERR The command has no key arguments");
  }
  if (!ArityFits(*command, request.size())) {
    return reply::Error(r.out, "ERR Invalid number of arguments specified for command");
  }
  const std::vector<KeyWithFlags> keys = RequestKeysWithFlags(request);
  if (keys.empty() && std::strstr(info.flags, "no_mandatory_keys") == nullptr) {
    return reply::Error(r.out, "ERR Invalid arguments specified for command");
  }
  reply::ArrayHeader(r.out, keys.size());
  for (const KeyWithFlags& key : keys) {
    if (!with_flags) {
      reply::Bulk(r.out, request[key.position]);
      continue;
    }
    reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, request[key.position]);
    reply::SetHeader(r.out, r.protocol(), key.flags.size());
    for (const std::string& flag : key.flags) reply::Simple(r.out, flag);
  }
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]:
// every command and subcommand ("container|name") that passes the filter.
void ReplyList(Request& r) {
  std::string filter, value;
  if (r.args.size() == 5 && AsciiLower(r.args[2]) == "filterby") {
    filter = AsciiLower(r.args[3]);
    value = r.args[4];
  }
  if (r.args.size() != 2 && (filter != "module" && filter != "aclcat" && filter != "pattern")) {
    return reply::Error(r.out, kSyntaxError);
  }
  std::vector<std::string> names;
  // (A subcommand's categories are its own, as ACL CAT lists them:
  // SCRIPT KILL is @scripting, SCRIPT is not.)
  const uint32_t category = filter == "aclcat" ? AclCategoryBit(value) : 0;
  auto consider = [&](const std::string& name) {
    if (filter == "module") return;  // no modules here
    if (filter == "aclcat") {
      const int id = AclCommands().Find(name);
      if (id < 0 || (AclCommands()[id].categories & category) == 0) return;
    }
    if (filter == "pattern" && !GlobMatch(AsciiLower(value), name)) return;
    names.push_back(name);
  };
  for (const Command& c : CommandTable()) {
    consider(c.name);
    for (const Subcommand& s : kSubcommands) {
      if (std::string_view(c.name) == s.container) consider(std::string(s.container) + "|" + s.name);
    }
  }
  reply::ArrayHeader(r.out, names.size());
  for (const std::string& name : names) reply::Bulk(r.out, name);
}

}  // namespace

bool HasSubcommands(const std::string& container) {
  return std::any_of(std::begin(kSubcommands), std::end(kSubcommands),
                     [&](const Subcommand& s) { return container == s.container; });
}

const CommandInfo* FindCommandInfo(std::string_view lower_case_name) {
  for (const CommandInfo& info : kCommands) {
    if (lower_case_name == info.name) return &info;
  }
  return nullptr;
}

size_t CommandInfoCount() { return std::size(kCommands); }

void AppendRequestKeyPositions(const std::vector<std::string>& args, std::vector<size_t>* keys,
                               bool* whole_keyspace) {
  const CommandInfo* info = FindCommandInfo(AsciiLower(args[0]));
  if (info == nullptr) return;
  *whole_keyspace |= info->whole_keyspace;
  const int argc = static_cast<int>(args.size());
  // In Redis's key-spec order: the fixed keys (ZUNIONSTORE's destination),
  // then those counted by numkeys.
  if (info->first_key > 0) {
    const int last = info->last_key < 0 ? argc + info->last_key : info->last_key;
    for (int i = info->first_key; i <= last && i < argc; i += info->key_step) {
      keys->push_back(static_cast<size_t>(i));
    }
  }
  const std::string_view name(info->name);
  if (name == "sort") {  // SORT ... STORE destination: the last one
    int destination = 0;
    for (int i = 2; i < argc; ++i) {
      const std::string option = AsciiLower(args[i]);
      if (option == "limit") {
        i += 2;
      } else if ((option == "get" || option == "by") && i + 1 < argc) {
        ++i;
      } else if (option == "store" && i + 1 < argc) {
        destination = ++i;
      }
    }
    if (destination > 0) keys->push_back(static_cast<size_t>(destination));
  }
  if (name == "xread" || name == "xreadgroup") {  // ... STREAMS key ... id ...: the keys
    for (int i = 1; i < argc; ++i) {
      const std::string option = AsciiLower(args[i]);
      if (option == "block" || option == "count") {
        ++i;
      } else if (option == "group") {
        i += 2;
      } else if (option == "streams") {
        const int n = argc - i - 1;
        for (int k = 0; n > 0 && n % 2 == 0 && k < n / 2; ++k) keys->push_back(static_cast<size_t>(i + 1 + k));
        break;
      } else if (option != "noack") {
        break;
      }
    }
  }
  if (name == "migrate") {  // MIGRATE ... KEYS k...: those, not the (empty) key argument
    for (int i = 6; i < argc; ++i) {
      const std::string option = AsciiLower(args[i]);
      if (option == "keys") {
        keys->pop_back();
        for (int k = i + 1; args[3].empty() && k < argc; ++k) keys->push_back(static_cast<size_t>(k));
        break;
      }
      i += option == "auth" ? 1 : option == "auth2" ? 2 : 0;
    }
  }
  if (name == "georadius" || name == "georadiusbymember") {  // ... STORE|STOREDIST key: the last
    int destination = 0;
    for (int i = name == "georadius" ? 6 : 5; i + 1 < argc; ++i) {
      const std::string option = AsciiLower(args[i]);
      if (option == "store" || option == "storedist") destination = ++i;
    }
    if (destination > 0) keys->push_back(static_cast<size_t>(destination));
  }
  if (info->numkeys_index > 0 && info->numkeys_index < argc) {
    int64_t n = 0;
    // (A count past the arguments names none, as Redis's key specs read it.)
    if (ParseStrictInt64(args[info->numkeys_index], &n) && n < argc - info->numkeys_index) {
      for (int64_t i = 1; i <= n; ++i) {
        keys->push_back(static_cast<size_t>(info->numkeys_index + i));
      }
    }
  }
}

void AppendRequestKeys(const std::vector<std::string>& args, std::vector<std::string>* keys,
                       bool* whole_keyspace) {
  std::vector<size_t> positions;
  AppendRequestKeyPositions(args, &positions, whole_keyspace);
  for (const size_t i : positions) keys->push_back(args[i]);
}

std::vector<KeyWithFlags> RequestKeysWithFlags(const std::vector<std::string>& args) {
  // A key spec out of the arguments' bounds makes Redis read the request
  // as naming no key at all: of its commands, only PFMERGE's sources can
  // be absent ("PFMERGE dest").
  if (args.size() == 2 && AsciiLower(args[0]) == "pfmerge") return {};
  // So does a key count that is not a positive number of the keys that
  // follow (ZUNIONSTORE dest 0 ..., EVAL script 0).
  if (const CommandInfo* info = FindCommandInfo(AsciiLower(args[0]));
      info != nullptr && info->numkeys_index > 0) {
    const int64_t argc = static_cast<int64_t>(args.size());
    int64_t n = 0;
    if (info->numkeys_index >= argc || !ParseStrictInt64(args[info->numkeys_index], &n) || n < 1 ||
        n >= argc - info->numkeys_index) {
      return {};
    }
  }
  std::vector<size_t> positions;
  bool whole_keyspace = false;
  AppendRequestKeyPositions(args, &positions, &whole_keyspace);
  if (args.size() > 2 && SubcommandHasKey(FullCommandName(args))) positions.push_back(2);
  // The i-th key has the i-th spec's flags, the last spec's past them
  // (none: a command whose key specs the table does not hold).
  const std::vector<std::vector<std::string>> specs = RequestKeySpecs(args);
  std::vector<KeyWithFlags> keys;
  for (size_t i = 0; i < positions.size(); ++i) {
    keys.push_back(KeyWithFlags{positions[i], specs.empty() ? std::vector<std::string>()
                                                            : specs[std::min(i, specs.size() - 1)]});
  }
  return keys;
}

bool DeniedInScripts(const std::vector<std::string>& args) {
  const std::string name = AsciiLower(args[0]);
  const CommandInfo* info = FindCommandInfo(name);
  if (info != nullptr) {
    for (const std::string& flag : Words(info->flags)) {
      if (flag == "noscript") return true;
    }
  }
  return SubcommandsDeniedInScripts(name);
}

bool AllowedWhileBusy(const std::vector<std::string>& args) {
  const std::string full_name = FullCommandName(args);
  if (full_name == "script|kill" || full_name == "function|kill" || full_name == "function|stats") {
    return true;
  }
  const CommandInfo* info = FindCommandInfo(AsciiLower(args[0]));
  if (info == nullptr) return false;
  // WATCH is Redis's allow_busy too, but here it reads its keys under
  // their stripes, which the busy script holds: refused BUSY instead.
  if (full_name == "watch") return false;
  const std::vector<std::string> flags = Words(info->flags);
  return std::find(flags.begin(), flags.end(), "allow_busy") != flags.end();
}

std::string FullCommandName(const std::vector<std::string>& args) {
  const std::string name = AsciiLower(args[0]);
  if (args.size() < 2 || !HasSubcommands(name)) return name;
  return name + "|" + AsciiLower(args[1]);
}

namespace {
// The request's subcommand, or null (none, or not one the server runs).
const Subcommand* RequestSubcommand(const std::vector<std::string>& args) {
  return args.size() < 2 ? nullptr : FindSubcommand(AsciiLower(args[0]), AsciiLower(args[1]));
}
}  // namespace

bool IsAdminSubcommand(const std::vector<std::string>& args) {
  const Subcommand* s = RequestSubcommand(args);
  return s != nullptr && s->admin;
}

bool IsDenyOomSubcommand(const std::vector<std::string>& args) {
  const Subcommand* s = RequestSubcommand(args);
  return s != nullptr && s->denyoom;
}

std::string SubcommandError(const std::vector<std::string>& args) {
  const std::string container = AsciiLower(args[0]);
  if (!HasSubcommands(container) || args.size() < 2) return std::string();
  const std::string name = AsciiLower(args[1]);
  if (const Subcommand* s = FindSubcommand(container, name)) {
    const int argc = static_cast<int>(args.size());
    if ((s->arity > 0 && argc != s->arity) || argc < -s->arity) {
      return "ERR wrong number of arguments for '" + container + "|" + name + "' command";
    }
    return std::string();
  }
  return "ERR unknown subcommand '" + args[1].substr(0, 128) + "'. Try " + AsciiUpper(container) +
         " HELP.";
}

bool FlaggedMayReplicate(const std::string& name) {
  return name == "pfcount" || name == "publish" || name == "spublish" || name == "eval" ||
         name == "evalsha" || name == "fcall";
}

std::string SubcommandSyntaxError(const std::string& sub, const std::string& container) {
  return "ERR unknown subcommand or wrong number of arguments for '" + sub.substr(0, 128) +
         "'. Try " + container + " HELP.";
}

void CommandHelp(Request& r) {
  static const char* const kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

void CommandCommand(Request& r) {
  const std::string sub = r.args.size() >= 2 ? AsciiLower(r.args[1]) : std::string();
  if (sub == "help") return CommandHelp(r);
  const std::vector<Command>& table = CommandTable();
  if (sub.empty() || (sub == "info" && r.args.size() == 2)) {
    reply::ArrayHeader(r.out, table.size());
    for (const Command& c : table) ReplyInfo(r, c, *FindCommandInfo(c.name));
  } else if (sub == "count") {
    reply::Integer(r.out, static_cast<int64_t>(table.size()));
  } else if (sub == "list") {
    ReplyList(r);
  } else if (sub == "info") {
    reply::ArrayHeader(r.out, r.args.size() - 2);
    for (size_t i = 2; i < r.args.size(); ++i) {
      const Command* c = LookupCommand(AsciiLower(r.args[i]));
      c ? ReplyInfo(r, *c, *FindCommandInfo(c->name)) : reply::Null(r.out, r.protocol());
    }
  } else if (sub == "docs") {
    std::vector<const Command*> named;
    for (size_t i = 2; i < r.args.size(); ++i) {
      if (const Command* c = LookupCommand(AsciiLower(r.args[i]))) named.push_back(c);
    }
    if (r.args.size() == 2) {
      for (const Command& c : table) named.push_back(&c);
    }
    reply::MapHeader(r.out, r.protocol(), named.size());
    for (const Command* c : named) {
      reply::Bulk(r.out, c->name);
      reply::MapHeader(r.out, r.protocol(), 0);
    }
  } else {  // getkeys(andflags): SubcommandError let nothing else through
    ReplyGetKeys(r, sub == "getkeysandflags");
  }
}

}  // namespace teksdb::server
