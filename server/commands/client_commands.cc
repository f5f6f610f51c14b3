// CLIENT SETNAME GETNAME ID INFO LIST KILL NO-EVICT, as Redis 7.0 answers
// them, and SETINFO and NO-TOUCH, as Redis 7.2 does (the connections:
// client_registry.h), and MONITOR (monitors.h; the lines are fed by
// Execute). A CLIENT LIST line has Redis's
// fields: qbuf is what the connection holds of requests not yet run, omem
// what it holds of output not yet written, tot-mem all it holds (those,
// the request's arguments, and its state: ClientState::held_bytes), which
// client eviction goes by; those that describe Redis's own buffers
// (qbuf-free, argv-mem, rbs, ...) are 0 here, fd is -1.
#include <set>

#include "acl_catalog.h"
#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "monotonic_clock.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {

std::string ClientListLine(const ClientRegistry::Info& c, int64_t running_request_bytes) {
  const int64_t now = MonotonicMs();
  const int64_t last = c.last_command_ms.load(std::memory_order_relaxed);
  const int subs = c.channels.load(std::memory_order_relaxed);
  const int psubs = c.patterns.load(std::memory_order_relaxed);
  const int ssubs = c.shard_channels.load(std::memory_order_relaxed);
  const int multi = c.multi.load(std::memory_order_relaxed);
  std::string flags;
  if (c.monitor.load(std::memory_order_relaxed)) flags += 'O';
  if (subs + psubs + ssubs > 0) flags += 'P';
  if (multi >= 0) flags += 'x';
  if (c.blocked.load(std::memory_order_relaxed)) flags += 'b';
  if (c.no_evict.load(std::memory_order_relaxed)) flags += 'e';
  if (c.no_touch.load(std::memory_order_relaxed)) flags += 'T';
  if (flags.empty()) flags = "N";
  const int command = c.last_command.load(std::memory_order_relaxed);
  const std::string cmd = command == 0 ? "NULL" : AclCommands()[command - 1].name;
  const int64_t qbuf = c.query_bytes.load(std::memory_order_relaxed) + running_request_bytes;
  const int64_t omem = c.output_bytes.load(std::memory_order_relaxed);
  const int64_t total = c.memory_bytes.load(std::memory_order_relaxed) + running_request_bytes;
  return "id=" + std::to_string(c.id) + " addr=" + c.address + " laddr=" + c.local_address +
         " fd=-1 name=" + c.name() + " age=" + std::to_string((now - c.created_ms) / 1000) +
         " idle=" + std::to_string(last == 0 ? (now - c.created_ms) / 1000 : (now - last) / 1000) +
         " flags=" + flags + " db=" + std::to_string(c.db.load(std::memory_order_relaxed)) +
         " sub=" + std::to_string(subs) + " psub=" + std::to_string(psubs) +
         " ssub=" + std::to_string(ssubs) + " multi=" + std::to_string(multi) +
         " qbuf=" + std::to_string(qbuf) + " qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0"
         " oll=0 omem=" + std::to_string(omem) + " tot-mem=" + std::to_string(total) +
         " events=r cmd=" + cmd + " user=" + c.user() + " redir=-1 resp=" +
         std::to_string(c.protocol.load(std::memory_order_relaxed)) + " lib-name=" + c.lib_name() +
         " lib-ver=" + c.lib_ver() + "\n";
}

namespace {

// The bytes of `args` as a client sends them (a multibulk request).
int64_t RequestBytes(const std::vector<std::string>& args) {
  int64_t bytes = static_cast<int64_t>(std::to_string(args.size()).size()) + 3;
  for (const std::string& arg : args) {
    bytes += static_cast<int64_t>(std::to_string(arg.size()).size() + arg.size()) + 5;
  }
  return bytes;
}

bool IsPubSub(const ClientRegistry::Info& c) {
  return c.channels.load() + c.patterns.load() + c.shard_channels.load() > 0;
}

// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id ...]
void List(Request& r) {
  std::string type;
  std::set<uint64_t> ids;
  for (size_t i = 2; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "type" && i + 1 < r.args.size()) {
      type = AsciiLower(r.args[++i]);
      if (type != "normal" && type != "master" && type != "replica" && type != "slave" &&
          type != "pubsub") {
        return reply::Error(r.out, "ERR Unknown client type '" + r.args[i] + "'");
      }
    } else if (opt == "id" && i + 1 < r.args.size()) {
      while (++i < r.args.size()) {
        int64_t id;
        if (!ParseStrictInt64(r.args[i], &id) || id <= 0) {
          return reply::Error(r.out, "ERR Invalid client ID");
        }
        ids.insert(static_cast<uint64_t>(id));
      }
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  std::string text;
  for (const auto& c : r.server.clients.List()) {
    if (!ids.empty() && ids.count(c->id) == 0) continue;
    if (type == "pubsub" ? !IsPubSub(*c) : (type == "normal" ? IsPubSub(*c) : !type.empty())) {
      continue;
    }
    text += ClientListLine(*c, c->id == r.client.id ? RequestBytes(r.args) : 0);
  }
  reply::Bulk(r.out, text);
}

// CLIENT KILL ip:port | CLIENT KILL <filter value> ... (ID, ADDR, LADDR,
// TYPE, USER, SKIPME, MAXAGE): how many were closed (the old form: OK).
void Kill(Request& r) {
  const bool old_form = r.args.size() == 3;
  std::string addr = old_form ? r.args[2] : std::string(), laddr, type, user;
  uint64_t id = 0;
  int64_t max_age = 0;
  bool skip_me = !old_form;
  for (size_t i = 2; !old_form && i < r.args.size(); i += 2) {
    if (i + 1 == r.args.size()) return reply::Error(r.out, kSyntaxError);
    const std::string filter = AsciiLower(r.args[i]);
    const std::string& value = r.args[i + 1];
    int64_t n;
    if (filter == "id") {
      if (!ParseStrictInt64(value, &n) || n <= 0) {
        return reply::Error(r.out, "ERR client-id should be greater than 0");
      }
      id = static_cast<uint64_t>(n);
    } else if (filter == "addr") {
      addr = value;
    } else if (filter == "laddr") {
      laddr = value;
    } else if (filter == "type") {
      type = AsciiLower(value);
      if (type != "normal" && type != "master" && type != "replica" && type != "slave" &&
          type != "pubsub") {
        return reply::Error(r.out, "ERR Unknown client type '" + value + "'");
      }
    } else if (filter == "user") {
      if (r.server.acl.Find(value) == nullptr) {
        return reply::Error(r.out, "ERR No such user '" + value + "'");
      }
      user = value;
    } else if (filter == "skipme") {
      const std::string yes_no = AsciiLower(value);
      if (yes_no != "yes" && yes_no != "no") return reply::Error(r.out, kSyntaxError);
      skip_me = yes_no == "yes";
    } else if (filter == "maxage") {  // (Redis 7.4's)
      if (!ParseStrictInt64(value, &max_age)) {
        return reply::Error(r.out, "ERR maxage is not an integer or out of range");
      }
      if (max_age <= 0) return reply::Error(r.out, "ERR maxage should be greater than 0");
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  const int64_t now = MonotonicMs();
  auto matches = [&](const ClientRegistry::Info& c) {
    if (id != 0 && c.id != id) return false;
    if (!addr.empty() && c.address != addr) return false;
    if (!laddr.empty() && c.local_address != laddr) return false;
    if (!user.empty() && c.user() != user) return false;
    if (max_age > 0 && (now - c.created_ms) / 1000 < max_age) return false;
    if (type == "pubsub" ? !IsPubSub(c) : (type == "normal" ? IsPubSub(c) : !type.empty())) {
      return false;
    }
    return true;
  };
  // The caller itself goes after this reply, as in Redis.
  const bool me = r.client.info && !skip_me && matches(*r.client.info);
  if (me) r.client.close_after_reply = true;
  const uint64_t self = r.client.id;
  const int64_t closed = r.server.clients.Close(
      [&](const ClientRegistry::Info& c) { return c.id != self && matches(c); }) + (me ? 1 : 0);
  if (!old_form) return reply::Integer(r.out, closed);
  closed > 0 ? reply::Ok(r.out) : reply::Error(r.out, "ERR No such client");
}

// CLIENT TRACKING on|off [REDIRECT id] [PREFIX p]... [BCAST] [OPTIN]
// [OPTOUT] [NOLOOP], with Redis 7.0's checks in its order.
void Tracking(Request& r) {
  ClientTracking::Options options;
  for (size_t i = 3; i < r.args.size(); ++i) {
    const std::string option = AsciiLower(r.args[i]);
    const bool more = i + 1 < r.args.size();
    if (option == "redirect" && more) {
      if (options.redirect != 0) {
        return reply::Error(r.out, "ERR A client can only redirect to a single other client");
      }
      int64_t id;
      if (!ParseStrictInt64(r.args[++i], &id)) return reply::Error(r.out, kNotInteger);
      if (id <= 0 || r.server.clients.SubscriberOf(static_cast<uint64_t>(id)) == nullptr) {
        return reply::Error(r.out, "ERR The client ID you want redirect to does not exist");
      }
      options.redirect = static_cast<uint64_t>(id);
    } else if (option == "bcast") {
      options.bcast = true;
    } else if (option == "optin") {
      options.optin = true;
    } else if (option == "optout") {
      options.optout = true;
    } else if (option == "noloop") {
      options.noloop = true;
    } else if (option == "prefix" && more) {
      options.prefixes.push_back(r.args[++i]);
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  const std::string mode = AsciiLower(r.args[2]);
  if (mode == "on") {
    const std::string error = r.server.tracking.Enable(r.client.id, options, r.client.subscriber);
    if (!error.empty()) return reply::Error(r.out, error);
    r.client.tracking = true;
    ClientTracking::State state;
    if (r.server.tracking.Get(r.client.id, &state)) {
      r.client.tracking_prefixes = state.options.prefixes.size();
    }
  } else if (mode == "off") {
    r.server.tracking.Disable(r.client.id);
    r.client.tracking = false;
    r.client.tracking_prefixes = 0;
  } else {
    return reply::Error(r.out, kSyntaxError);
  }
  reply::Ok(r.out);
}

// CLIENT CACHING yes|no: the next command's reads are remembered (OPTIN)
// or not (OPTOUT).
void Caching(Request& r) {
  ClientTracking::State state;
  if (!r.server.tracking.Get(r.client.id, &state)) {
    return reply::Error(r.out,
                        "ERR CLIENT CACHING can be called only when the client is in tracking mode "
                        "with OPTIN or OPTOUT mode enabled");
  }
  const std::string answer = AsciiLower(r.args[2]);
  if (answer == "yes" && !state.options.optin) {
    return reply::Error(r.out, "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
  }
  if (answer == "no" && !state.options.optout) {
    return reply::Error(r.out, "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
  }
  if (answer != "yes" && answer != "no") return reply::Error(r.out, kSyntaxError);
  r.client.tracking_caching = true;
  reply::Ok(r.out);
}

// CLIENT TRACKINGINFO: flags, redirect, prefixes.
void TrackingInfo(Request& r) {
  ClientTracking::State state;
  const bool on = r.server.tracking.Get(r.client.id, &state);
  std::vector<std::string> flags{on ? "on" : "off"};
  if (on) {
    const ClientTracking::Options& o = state.options;
    if (o.bcast) flags.push_back("bcast");
    if (o.optin) flags.push_back("optin");
    if (o.optin && r.client.tracking_caching) flags.push_back("caching-yes");
    if (o.optout) flags.push_back("optout");
    if (o.optout && r.client.tracking_caching) flags.push_back("caching-no");
    if (o.noloop) flags.push_back("noloop");
    if (state.broken_redirect) flags.push_back("broken_redirect");
  }
  reply::MapHeader(r.out, r.protocol(), 3);
  reply::Bulk(r.out, "flags");
  reply::SetHeader(r.out, r.protocol(), flags.size());
  for (const std::string& f : flags) reply::Bulk(r.out, f);
  reply::Bulk(r.out, "redirect");
  reply::Integer(r.out, on ? static_cast<int64_t>(state.options.redirect) : -1);
  reply::Bulk(r.out, "prefixes");
  reply::ArrayHeader(r.out, state.options.prefixes.size());
  for (const std::string& p : state.options.prefixes) reply::Bulk(r.out, p);
}

// CLIENT PAUSE timeout [WRITE|ALL]: holds clients' commands (all, or those
// that may write) for `timeout` milliseconds (client_pause.h).
void Pause(Request& r) {
  if (r.args.size() > 4) return reply::Error(r.out, SubcommandSyntaxError(r.args[1], "CLIENT"));
  ClientPause::Kind kind = ClientPause::kAll;
  if (r.args.size() == 4) {
    const std::string mode = AsciiLower(r.args[3]);
    if (mode == "write") {
      kind = ClientPause::kWrite;
    } else if (mode != "all") {
      return reply::Error(r.out, "ERR CLIENT PAUSE mode must be WRITE or ALL");
    }
  }
  int64_t timeout_ms;
  if (!ParseStrictInt64(r.args[2], &timeout_ms)) {
    return reply::Error(r.out, "ERR timeout is not an integer or out of range");
  }
  if (timeout_ms < 0) return reply::Error(r.out, "ERR timeout is negative");
  const int64_t now_ms = Keyspace::NowMs();
  // (0: a pause that has already ended, as Redis's.)
  const int64_t end_ms = timeout_ms == 0                                ? 0
                         : timeout_ms > ClientPause::kNoDeadline - now_ms ? ClientPause::kNoDeadline
                                                                          : now_ms + timeout_ms;
  r.server.pause.Pause(ClientPause::kCommand, kind, end_ms, now_ms);
  reply::Ok(r.out);
}

// CLIENT SETINFO lib-name|lib-ver value, as Redis 7.2's (empty: unset).
void SetInfo(Request& r) {
  const std::string attribute = AsciiLower(r.args[2]);
  if (attribute != "lib-name" && attribute != "lib-ver") {
    return reply::Error(r.out, "ERR Unrecognized option '" + r.args[2] + "'");
  }
  if (!IsClientAttribute(r.args[3])) {
    return reply::Error(r.out, "ERR " + r.args[2] + " cannot contain spaces, newlines or special characters.");
  }
  if (r.client.info) {
    attribute == "lib-name" ? r.client.info->set_lib_name(r.args[3]) : r.client.info->set_lib_ver(r.args[3]);
  }
  reply::Ok(r.out);
}

void ClientHelp(Request& r) {
  static const char* const kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// SubcommandError has checked the subcommand and its arity.
void Client(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return ClientHelp(r);
  if (sub == "setname") {
    if (!IsClientAttribute(r.args[2])) return reply::Error(r.out, kBadClientName);
    SetClientName(r.client, r.args[2]);
    return reply::Ok(r.out);
  }
  if (sub == "setinfo") return SetInfo(r);
  if (sub == "getname") {
    return r.client.name.empty() ? reply::Null(r.out, r.protocol()) : reply::Bulk(r.out, r.client.name);
  }
  if (sub == "id") return reply::Integer(r.out, static_cast<int64_t>(r.client.id));
  if (sub == "info") {
    return reply::Bulk(r.out, r.client.info ? ClientListLine(*r.client.info, RequestBytes(r.args)) : std::string());
  }
  if (sub == "list") return List(r);
  if (sub == "kill") return Kill(r);
  if (sub == "unblock") {  // CLIENT UNBLOCK id [TIMEOUT|ERROR]
    int64_t id;
    if (!ParseStrictInt64(r.args[2], &id)) return reply::Error(r.out, kNotInteger);
    const std::string how = r.args.size() == 4 ? AsciiLower(r.args[3]) : "timeout";
    if (how != "timeout" && how != "error") {
      return reply::Error(r.out, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
    const bool unblocked = id > 0 && r.server.clients.Unblock(static_cast<uint64_t>(id), how == "error");
    return reply::Integer(r.out, unblocked ? 1 : 0);
  }
  if (sub == "pause") return Pause(r);
  if (sub == "unpause") {
    r.server.pause.Unpause(ClientPause::kCommand, Keyspace::NowMs());
    return reply::Ok(r.out);
  }
  if (sub == "tracking") return Tracking(r);
  if (sub == "caching") return Caching(r);
  if (sub == "trackinginfo") return TrackingInfo(r);
  if (sub == "getredir") {
    ClientTracking::State state;
    const bool on = r.server.tracking.Get(r.client.id, &state);
    return reply::Integer(r.out, on ? static_cast<int64_t>(state.options.redirect) : -1);
  }
  const std::string mode = AsciiLower(r.args[2]);
  if (sub == "reply") {  // Execute drops the replies (commands.cc)
    if (mode == "on") {
      r.client.replies_off = false;
      r.client.replies_to_skip = 0;
      return reply::Ok(r.out);
    }
    if (mode == "off") {
      r.client.replies_off = true;
    } else if (mode == "skip") {
      r.client.replies_to_skip = 2;  // this one and the next
    } else {
      reply::Error(r.out, kSyntaxError);
    }
    return;
  }
  // no-evict: client eviction passes this client by (turned off, it may be
  // evicted at once); no-touch: nothing keeps access times (OBJECT
  // IDLETIME is refused), so only CLIENT LIST's flag T shows it
  if (mode != "on" && mode != "off") return reply::Error(r.out, kSyntaxError);
  if (r.client.info == nullptr) return reply::Ok(r.out);
  if (sub == "no-touch") {
    r.client.info->no_touch.store(mode == "on", std::memory_order_relaxed);
  } else {
    ClientRegistry::Info& info = *r.client.info;
    info.no_evict.store(mode == "on", std::memory_order_relaxed);
    if (r.server.clients.PublishMemory(info, info.memory_bytes.load(std::memory_order_relaxed))) {
      r.server.clients.EvictOverLimit();
    }
  }
  reply::Ok(r.out);
}

}  // namespace

// MONITOR: from now on the connection also gets a line for every command
// the server runs. (Not inside MULTI or a script: Redis refuses a client
// that must get one reply per command.)
void Monitor(Request& r) {
  if (!r.client.may_block || r.client.in_script) {
    return reply::Error(r.out, "ERR MONITOR isn't allowed for DENY BLOCKING client");
  }
  if (r.client.info == nullptr) return reply::Error(r.out, "ERR MONITOR needs a connection");
  if (r.client.info->monitor.load(std::memory_order_relaxed)) return;  // Redis answers nothing
  if (auto self = r.client.subscriber.lock()) r.server.monitors.Add(r.client.id, self);
  r.client.info->monitor.store(true, std::memory_order_relaxed);
  reply::Ok(r.out);
}

void AddClientCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"client", -2, Client}, {"monitor", 1, Monitor}});
}

}  // namespace teksdb::server
