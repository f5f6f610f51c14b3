// Keyspace notifications (keyspace_events.h): the classes' flags, and each
// command's event names by the place of the key written.
#include "keyspace_events.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>

#include "ascii_case.h"
#include "command_info.h"

namespace teksdb::server {
namespace {

enum : int {
  kKeyspace = 1 << 0, kKeyevent = 1 << 1, kGeneric = 1 << 2, kString = 1 << 3,
  kList = 1 << 4, kSet = 1 << 5, kHash = 1 << 6, kZSet = 1 << 7, kExpired = 1 << 8,
  kEvicted = 1 << 9, kStream = 1 << 10, kKeyMiss = 1 << 11, kModule = 1 << 12,
  kNew = 1 << 13,
  kAll = kGeneric | kString | kList | kSet | kHash | kZSet | kExpired | kEvicted | kStream |
         kModule,
};

void Publish(ServerState& server, int type, const std::string& event, const std::string& key,
             int db) {
  const int flags = server.notify_keyspace_events.load(std::memory_order_relaxed);
  if ((flags & type) == 0) return;
  const std::string at = std::to_string(db) + "__:";
  if (flags & kKeyspace) server.pubsub.Publish("__keyspace@" + at + key, event, false);
  if (flags & kKeyevent) server.pubsub.Publish("__keyevent@" + at + event, key, false);
}

// The class of a command's events, by its ACL categories.
int ClassOf(const CommandInfo& info) {
  const std::string categories = std::string(" ") + info.acl_categories + " ";
  const auto has = [&](const char* category) {
    return categories.find(std::string(" ") + category + " ") != std::string::npos;
  };
  if (has("@string") || has("@bitmap") || has("@hyperloglog")) return kString;
  if (has("@list")) return kList;
  if (has("@set")) return kSet;
  if (has("@hash")) return kHash;
  if (has("@sortedset")) return kZSet;
  if (has("@stream")) return kStream;
  return kGeneric;
}

struct Event {
  std::string name;
  int type;
};

// The event for `key` written by `args` (the key's first place among the
// arguments tells source from destination).
Event EventFor(const std::vector<std::string>& args, const std::string& name, int type,
               const std::string& key) {
  size_t at = 1;
  while (at < args.size() && args[at] != key) ++at;
  const bool first = at == 1;
  // "l" or "r" for a LEFT or RIGHT argument (LMOVE, LMPOP).
  const auto side = [&](size_t i) {
    return i < args.size() && !args[i].empty() ? std::string(1, AsciiLower(args[i])[0])
                                               : std::string();
  };
  if (name == "incr" || name == "decr" || name == "incrby" || name == "decrby") {
    return {"incrby", kString};
  }
  if (name == "setex" || name == "psetex" || name == "setnx" || name == "getset" ||
      name == "mset" || name == "msetnx" || name == "bitop") {
    return {"set", kString};
  }
  if (name == "hmset" || name == "hsetnx") return {"hset", kHash};
  if (name == "hpexpire" || name == "hexpireat" || name == "hpexpireat") return {"hexpire", kHash};
  if (name == "lpushx") return {"lpush", kList};
  if (name == "rpushx") return {"rpush", kList};
  if (name == "blpop") return {"lpop", kList};
  if (name == "brpop") return {"rpop", kList};
  if (name == "rpoplpush" || name == "brpoplpush") return {first ? "rpop" : "lpush", kList};
  if (name == "lmove" || name == "blmove") {
    return {side(first ? 3 : 4) + (first ? "pop" : "push"), kList};
  }
  if (name == "lmpop" || name == "blmpop") {
    const size_t numkeys_at = name == "lmpop" ? 1 : 2;
    const int64_t n = std::max<int64_t>(std::atoll(args[numkeys_at].c_str()), 0);
    return {side(numkeys_at + 1 + static_cast<size_t>(n)) + "pop", kList};
  }
  if (name == "smove") return {first ? "srem" : "sadd", kSet};
  if (name == "zincrby") return {"zincr", kZSet};
  if (name == "geoadd") return {"zadd", kZSet};
  if (name == "pfmerge") return {"pfadd", kString};
  if (name == "bitfield") return {"setbit", kString};
  if (name == "sort") return {"sortstore", kList};
  if (name == "georadius" || name == "georadiusbymember") return {"georadiusstore", kZSet};
  if (name == "geosearchstore") return {"geosearchstore", kZSet};
  if (name == "bzpopmin") return {"zpopmin", kZSet};
  if (name == "bzpopmax") return {"zpopmax", kZSet};
  if (name == "zmpop" || name == "bzmpop") {
    const size_t numkeys_at = name == "zmpop" ? 1 : 2;
    const int64_t n = std::max<int64_t>(std::atoll(args[numkeys_at].c_str()), 0);
    const size_t at_where = numkeys_at + 1 + static_cast<size_t>(n);
    const bool max = at_where < args.size() && AsciiLower(args[at_where]) == "max";
    return {max ? "zpopmax" : "zpopmin", kZSet};
  }
  if (name == "copy") return {"copy_to", kGeneric};
  if (name == "restore-asking") return {"restore", kGeneric};
  if (name == "xgroup") return {"xgroup-" + AsciiLower(args[1]), kStream};
  return {name, type};
}

}  // namespace

int KeyspaceEventFlags(const std::string& classes) {
  int flags = 0;
  for (const char c : classes) {
    switch (c) {
      case 'A': flags |= kAll; break;
      case 'g': flags |= kGeneric; break;
      case '$': flags |= kString; break;
      case 'l': flags |= kList; break;
      case 's': flags |= kSet; break;
      case 'h': flags |= kHash; break;
      case 'z': flags |= kZSet; break;
      case 'x': flags |= kExpired; break;
      case 'e': flags |= kEvicted; break;
      case 'K': flags |= kKeyspace; break;
      case 'E': flags |= kKeyevent; break;
      case 't': flags |= kStream; break;
      case 'm': flags |= kKeyMiss; break;
      case 'd': flags |= kModule; break;
      case 'n': flags |= kNew; break;
      default: return -1;
    }
  }
  return flags;
}

std::string KeyspaceEventClasses(int flags) {
  std::string classes;
  if ((flags & kAll) == kAll) {
    classes = "A";
  } else {
    const std::pair<int, char> order[] = {{kGeneric, 'g'}, {kString, '$'}, {kList, 'l'},
                                          {kSet, 's'},     {kHash, 'h'},   {kZSet, 'z'},
                                          {kExpired, 'x'}, {kEvicted, 'e'}, {kStream, 't'},
                                          {kModule, 'd'},  {kNew, 'n'}};
    for (const auto& [flag, c] : order) {
      if (flags & flag) classes += c;
    }
  }
  if (flags & kKeyspace) classes += 'K';
  if (flags & kKeyevent) classes += 'E';
  if (flags & kKeyMiss) classes += 'm';
  return classes;
}

bool NotificationsOn(const ServerState& server) {
  const int flags = server.notify_keyspace_events.load(std::memory_order_relaxed);
  return (flags & (kKeyspace | kKeyevent)) != 0 && (flags & ~(kKeyspace | kKeyevent)) != 0;
}

bool NewKeyEventsOn(const ServerState& server) {
  return (server.notify_keyspace_events.load(std::memory_order_relaxed) & kNew) != 0;
}

void NotifyWrites(ServerState& server, const std::vector<std::string>& args, int db,
                  const std::vector<Keyspace::WrittenKey>& written,
                  const std::vector<std::string>& absent_before,
                  const ClientState::EventHints& hints) {
  const std::string name = AsciiLower(args[0]);
  const CommandInfo* info = FindCommandInfo(name);
  // PFCOUNT and PFDEBUG rewrite a HyperLogLog's cache or encoding, not
  // what it holds; a consumer group's reads, acks and claims change only
  // its own state: Redis tells of no event, but of a consumer they made.
  if (info == nullptr || name == "pfcount" || name == "pfdebug" || name == "xack") return;
  if (name == "xreadgroup" || name == "xclaim" || name == "xautoclaim") {
    if (hints.stream_consumer_created && !written.empty()) {
      Publish(server, kStream, "xgroup-createconsumer", written.front().key, written.front().db);
    }
    return;
  }
  const auto any_option = [&](std::initializer_list<const char*> options) {
    return std::any_of(args.begin() + 1, args.end(), [&](const std::string& a) {
      const std::string lower = AsciiLower(a);
      return std::any_of(options.begin(), options.end(), [&](const char* o) { return lower == o; });
    });
  };
  const bool expires = name == "expire" || name == "pexpire" || name == "expireat" ||
                       name == "pexpireat" || name == "getex";
  // A key created: absent before in the command's database, or where
  // MOVE or COPY ... DB put it (they write only where nothing was).
  const auto is_new = [&](const Keyspace::WrittenKey& w) {
    if (w.deleted) return false;
    if (w.db != db) return name == "move" || name == "copy";
    return std::find(absent_before.begin(), absent_before.end(), w.key) != absent_before.end();
  };
  // The command's event for a key it wrote; HEXPIRE and friends that
  // deleted fields (a past deadline) tell "hdel", as Redis does.
  const auto event_of = [&](const Keyspace::WrittenKey& w) {
    Event event = EventFor(args, name, ClassOf(*info), w.key);
    if (hints.hash_fields_deleted && event.name == "hexpire") event.name = "hdel";
    return event;
  };
  // RENAME, MOVE and COPY tell of the key they create first, as Redis does.
  const bool moves = name == "rename" || name == "renamenx" || name == "move" || name == "copy";
  if (moves) {
    for (const Keyspace::WrittenKey& w : written) {
      if (is_new(w)) Publish(server, kNew, "new", w.key, w.db);
    }
  }
  // A list move tells of the push before the pop, as Redis does.
  std::vector<Keyspace::WrittenKey> ordered = written;
  if (name == "rpoplpush" || name == "brpoplpush" || name == "lmove" || name == "blmove") {
    std::stable_partition(ordered.begin(), ordered.end(),
                          [&](const Keyspace::WrittenKey& w) { return w.key == args[2]; });
  }
  // SORT writes the key it sorts only to convert a small sorted set, which
  // Redis does without an event: its events are STORE's.
  std::vector<std::string> sort_keys;
  bool whole_keyspace = false;
  if (name == "sort" || name == "sort_ro") AppendRequestKeys(args, &sort_keys, &whole_keyspace);
  bool stream_added = false;
  for (const Keyspace::WrittenKey& w : ordered) {
    if (!sort_keys.empty() && (sort_keys.size() < 2 || w.key != sort_keys[1])) continue;
    // XADD writes its key twice when it trims: "xadd", then "xtrim".
    if (name == "xadd" && stream_added) {
      Publish(server, kStream, "xtrim", w.key, w.db);
      continue;
    }
    stream_added |= name == "xadd";
    auto publish = [&](int type, const std::string& event) {
      Publish(server, type, event, w.key, w.db);
    };
    if (!moves && is_new(w)) publish(kNew, "new");
    if (name == "del" || name == "unlink" || name == "getdel" || (expires && w.deleted)) {
      publish(kGeneric, "del");
    } else if (expires) {
      publish(kGeneric, name == "getex" && any_option({"persist"}) ? "persist" : "expire");
    } else if (name == "persist") {
      publish(kGeneric, "persist");
    } else if (name == "rename" || name == "renamenx") {
      publish(kGeneric, w.deleted ? "rename_from" : "rename_to");
    } else if (name == "move") {
      publish(kGeneric, w.deleted ? "move_from" : "move_to");
    } else if (w.deleted) {
      // A command that emptied its key: its event, then "del" (a STORE
      // with nothing to store, a RESTORE of a TTL already past, a key
      // MIGRATE moved away: "del" alone).
      const Event event = event_of(w);
      const bool stores = name == "sort" || name == "georadius" || name == "georadiusbymember" ||
                          (name.size() >= 5 && name.compare(name.size() - 5, 5, "store") == 0);
      if (!stores && name != "restore" && name != "restore-asking" && name != "migrate") {
        publish(event.type, event.name);
      }
      publish(kGeneric, "del");
    } else {
      const Event event = event_of(w);
      publish(event.type, event.name);
      if (name == "setex" || name == "psetex" ||
          (name == "set" && any_option({"ex", "px", "exat", "pxat"}))) {
        publish(kGeneric, "expire");
      }
    }
  }
}

void NotifyExpired(ServerState& server, int db, const std::string& key) {
  Publish(server, kExpired, "expired", key, db);
}

void NotifyFieldExpired(ServerState& server, int db, const std::string& key, bool key_deleted) {
  Publish(server, kHash, "hexpired", key, db);
  if (key_deleted) Publish(server, kGeneric, "del", key, db);
}

}  // namespace teksdb::server
