// Pub/Sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH
// SSUBSCRIBE SUNSUBSCRIBE SPUBLISH PUBSUB (CHANNELS NUMSUB NUMPAT
// SHARDCHANNELS SHARDNUMSUB), as Redis 7.0 answers them: one
// confirmation per channel (an array in RESP2, a push in RESP3), messages
// delivered by pubsub.h. In RESP2 a connection with subscriptions takes
// only these, PING, QUIT and RESET (PubSubRefusal, called by Execute).
//
// Thread safety: a connection's handlers run on its loop, one at a time;
// the registry is shared (pubsub.h).
#include <algorithm>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

using Kind = PubSub::Kind;

// A client's subscriptions of one kind: adds and removes a name; lists
// them in the order Redis unsubscribes them all.
class Names {
 public:
  Names(ClientState& client, Kind kind) : client_(client), kind_(kind) {}
  bool Add(const std::string& name) {
    if (kind_ != PubSub::kPattern) return Set().insert(name).second;
    if (std::find(client_.patterns.begin(), client_.patterns.end(), name) != client_.patterns.end()) {
      return false;
    }
    client_.patterns.push_back(name);
    return true;
  }
  bool Remove(const std::string& name) {
    if (kind_ != PubSub::kPattern) return Set().erase(name) > 0;
    const auto it = std::find(client_.patterns.begin(), client_.patterns.end(), name);
    if (it == client_.patterns.end()) return false;
    client_.patterns.erase(it);
    return true;
  }
  std::vector<std::string> All() const {
    if (kind_ == PubSub::kPattern) return client_.patterns;
    const std::set<std::string>& set =
        kind_ == PubSub::kChannel ? client_.channels : client_.shard_channels;
    return std::vector<std::string>(set.begin(), set.end());
  }

 private:
  std::set<std::string>& Set() {
    return kind_ == PubSub::kChannel ? client_.channels : client_.shard_channels;
  }
  ClientState& client_;
  const Kind kind_;
};

// A confirmation: [kind, name (or null), subscriptions left], a push in
// RESP3.
void Confirm(Request& r, const char* what, const std::string* name, int64_t count) {
  if (r.protocol() == 3) {
    r.out->append(">3\r\n");
  } else {
    reply::ArrayHeader(r.out, 3);
  }
  reply::Bulk(r.out, what);
  name ? reply::Bulk(r.out, *name) : reply::Null(r.out, r.protocol());
  reply::Integer(r.out, count);
}

// CLIENT LIST's sub, psub and ssub.
void ShowSubscriptions(ClientState& client) {
  if (!client.info) return;
  client.info->channels.store(static_cast<int>(client.channels.size()), std::memory_order_relaxed);
  client.info->patterns.store(static_cast<int>(client.patterns.size()), std::memory_order_relaxed);
  client.info->shard_channels.store(static_cast<int>(client.shard_channels.size()),
                                    std::memory_order_relaxed);
}

// Sharded subscriptions count on their own, as in Redis.
int64_t CountFor(ClientState& client, Kind kind) {
  return kind == PubSub::kShardChannel
             ? static_cast<int64_t>(client.shard_channels.size())
             : static_cast<int64_t>(client.channels.size() + client.patterns.size());
}

void Subscribe(Request& r, Kind kind, const char* what) {
  const std::shared_ptr<Subscriber> self = r.client.subscriber.lock();
  if (!self) return reply::Error(r.out, "ERR SUBSCRIBE needs a connection");
  Names names(r.client, kind);
  for (size_t i = 1; i < r.args.size(); ++i) {
    if (names.Add(r.args[i])) r.server.pubsub.Add(kind, r.args[i], self);
    Confirm(r, what, &r.args[i], CountFor(r.client, kind));
  }
  ShowSubscriptions(r.client);
}

void Unsubscribe(Request& r, Kind kind, const char* what) {
  Names names(r.client, kind);
  std::vector<std::string> leaving(r.args.begin() + 1, r.args.end());
  if (leaving.empty()) leaving = names.All();
  if (leaving.empty()) return Confirm(r, what, nullptr, CountFor(r.client, kind));
  const Subscriber* self = r.client.subscriber.lock().get();
  for (const std::string& name : leaving) {
    if (names.Remove(name)) r.server.pubsub.Remove(kind, name, self);
    Confirm(r, what, &name, CountFor(r.client, kind));
  }
  ShowSubscriptions(r.client);
}

void SubscribeCommand(Request& r) { Subscribe(r, PubSub::kChannel, "subscribe"); }
void PSubscribe(Request& r) { Subscribe(r, PubSub::kPattern, "psubscribe"); }
void SSubscribe(Request& r) { Subscribe(r, PubSub::kShardChannel, "ssubscribe"); }
void UnsubscribeCommand(Request& r) { Unsubscribe(r, PubSub::kChannel, "unsubscribe"); }
void PUnsubscribe(Request& r) { Unsubscribe(r, PubSub::kPattern, "punsubscribe"); }
void SUnsubscribe(Request& r) { Unsubscribe(r, PubSub::kShardChannel, "sunsubscribe"); }

void Publish(Request& r) { reply::Integer(r.out, r.server.pubsub.Publish(r.args[1], r.args[2], false)); }
void SPublish(Request& r) { reply::Integer(r.out, r.server.pubsub.Publish(r.args[1], r.args[2], true)); }

void PubSubHelp(Request& r) {
  static const char* const kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT |
// SHARDCHANNELS [pattern] | SHARDNUMSUB [channel ...] | HELP
void PubSubCommand(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return PubSubHelp(r);
  if (sub == "channels" || sub == "shardchannels") {
    const Kind kind = sub == "channels" ? PubSub::kChannel : PubSub::kShardChannel;
    const std::vector<std::string> names =
        r.server.pubsub.Channels(kind, r.args.size() == 3 ? &r.args[2] : nullptr);
    reply::ArrayHeader(r.out, names.size());
    for (const std::string& n : names) reply::Bulk(r.out, n);
  } else if (sub == "numsub" || sub == "shardnumsub") {
    const Kind kind = sub == "numsub" ? PubSub::kChannel : PubSub::kShardChannel;
    reply::ArrayHeader(r.out, 2 * (r.args.size() - 2));  // flat, RESP3 too, as in Redis
    for (size_t i = 2; i < r.args.size(); ++i) {
      reply::Bulk(r.out, r.args[i]);
      reply::Integer(r.out, r.server.pubsub.Subscribers(kind, r.args[i]));
    }
  } else {  // numpat: SubcommandError let nothing else through
    reply::Integer(r.out, r.server.pubsub.PatternCount());
  }
}

}  // namespace

std::string PubSubRefusal(const ClientState& client, const std::string& full_name) {
  if (client.protocol == 3 || client.subscriptions() == 0) return std::string();
  static const std::set<std::string> kAllowed = {
      "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe",
      "sunsubscribe", "ping", "quit", "reset"};
  if (kAllowed.count(full_name) > 0) return std::string();
  return "ERR Can't execute '" + full_name +
         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
         "context";
}

void UnsubscribeAll(ServerState& server, ClientState& client) {
  const Subscriber* self = client.subscriber.lock().get();
  for (Kind kind : {PubSub::kChannel, PubSub::kPattern, PubSub::kShardChannel}) {
    Names names(client, kind);
    for (const std::string& name : names.All()) {
      names.Remove(name);
      server.pubsub.Remove(kind, name, self);
    }
  }
  ShowSubscriptions(client);
}

void AddPubSubCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"subscribe", -2, SubscribeCommand},   {"unsubscribe", -1, UnsubscribeCommand},
      {"psubscribe", -2, PSubscribe},        {"punsubscribe", -1, PUnsubscribe},
      {"ssubscribe", -2, SSubscribe},        {"sunsubscribe", -1, SUnsubscribe},
      {"publish", 3, Publish},               {"spublish", 3, SPublish},
      {"pubsub", -2, PubSubCommand},
  });
}

}  // namespace teksdb::server
