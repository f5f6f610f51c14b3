// The ACL checks of requests, their log entries and errors.
#include "acl_check.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "acl_catalog.h"
#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"

namespace teksdb::server {
namespace {

bool Has(const std::vector<std::string>& flags, const char* flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// The access Redis's ACL asks for a key of these key-spec flags: read for
// "access", write for "insert", "delete" or "update" (neither: an
// existence test, any pattern will do).
uint8_t AccessOf(const std::vector<std::string>& flags) {
  uint8_t access = 0;
  if (Has(flags, "access")) access |= AclSelector::kRead;
  if (Has(flags, "insert") || Has(flags, "delete") || Has(flags, "update")) {
    access |= AclSelector::kWrite;
  }
  return access;
}

// How a command's keys are found for ACL, worked out once per command:
// most name theirs at fixed places (first, last, step) with fixed flags,
// found here with no lookup; the others (a count of keys, options that
// name keys, flags that vary, a subcommand's key, shard channels) through
// RequestKeysWithFlags.
struct KeyPlan {
  bool fixed = false;
  int first = 0, last = 0, step = 1;
  std::vector<uint8_t> access;  // of the i-th key (the last spec's past them)
  bool set = false;             // SET: a write, and a read too with GET
};

const std::vector<KeyPlan>& KeyPlans() {
  static const std::vector<KeyPlan> plans = [] {
    std::vector<KeyPlan> by_index;
    for (const Command& command : CommandTable()) {
      const CommandInfo& info = *FindCommandInfo(command.name);
      const std::string_view name(command.name);
      const std::vector<std::vector<std::string>> specs = CommandKeySpecs(name);
      KeyPlan plan;
      plan.fixed = info.first_key > 0 && info.numkeys_index == 0 && !specs.empty() &&
                   std::strstr(info.flags, "movablekeys") == nullptr && !HasSubcommands(command.name) &&
                   name != "bitfield" && name != "pfmerge" && name != "sort";
      plan.first = info.first_key;
      plan.last = info.last_key;
      plan.step = info.key_step;
      plan.set = name == "set";
      for (const std::vector<std::string>& spec : specs) {
        plan.fixed &= !Has(spec, "not_key");
        plan.access.push_back(AccessOf(spec));
      }
      by_index.push_back(std::move(plan));
    }
    return by_index;
  }();
  return plans;
}

// The keys of a request with the access each needs. Key specs flagged
// not_key (a shard channel) name no key.
std::vector<AclKey> RequestAclKeys(size_t table_index, const std::vector<std::string>& args) {
  std::vector<AclKey> keys;
  const KeyPlan& plan = KeyPlans()[table_index];
  if (plan.fixed) {
    const int argc = static_cast<int>(args.size());
    const int last = plan.last < 0 ? argc + plan.last : plan.last;
    for (int i = plan.first, k = 0; i <= last && i < argc; i += plan.step, ++k) {
      uint8_t access = plan.access[std::min<size_t>(static_cast<size_t>(k), plan.access.size() - 1)];
      if (plan.set) access = SetReturnsOldValue(args) ? AclSelector::kReadWrite : AclSelector::kWrite;
      keys.push_back(AclKey{static_cast<size_t>(i), access});
    }
    return keys;
  }
  for (const KeyWithFlags& key : RequestKeysWithFlags(args)) {
    if (!Has(key.flags, "not_key")) keys.push_back(AclKey{key.position, AccessOf(key.flags)});
  }
  return keys;
}

// Which arguments of each command of the table are channels: PUBLISH's
// and SPUBLISH's first; every one of SUBSCRIBE and SSUBSCRIBE, and of
// PSUBSCRIBE as patterns (unsubscribing is never denied).
enum class ChannelArguments : uint8_t { kNone, kFirst, kAll, kAllPatterns };
const std::vector<ChannelArguments>& ChannelArgumentsByIndex() {
  static const std::vector<ChannelArguments> by_index = [] {
    std::vector<ChannelArguments> kinds;
    for (const Command& command : CommandTable()) {
      const std::string_view name(command.name);
      kinds.push_back(name == "publish" || name == "spublish"       ? ChannelArguments::kFirst
                      : name == "subscribe" || name == "ssubscribe" ? ChannelArguments::kAll
                      : name == "psubscribe"                        ? ChannelArguments::kAllPatterns
                                                                    : ChannelArguments::kNone);
    }
    return kinds;
  }();
  return by_index;
}

std::vector<AclChannel> RequestAclChannels(size_t table_index, const std::vector<std::string>& args) {
  std::vector<AclChannel> channels;
  switch (ChannelArgumentsByIndex()[table_index]) {
    case ChannelArguments::kNone:
      break;
    case ChannelArguments::kFirst:
      channels.push_back(AclChannel{1, false});
      break;
    case ChannelArguments::kAll:
    case ChannelArguments::kAllPatterns:
      for (size_t i = 1; i < args.size(); ++i) {
        channels.push_back(
            AclChannel{i, ChannelArgumentsByIndex()[table_index] == ChannelArguments::kAllPatterns});
      }
      break;
  }
  return channels;
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// An ACL LOG event, now, with the client's CLIENT LIST line.
void RecordInAclLog(ServerState& server, const ClientState& client, const char* reason,
                    const char* context, std::string object, std::string username) {
  AclLog::Entry entry;
  entry.reason = reason;
  entry.context = context;
  entry.object = std::move(object);
  entry.username = std::move(username);
  entry.at_ms = WallMs();
  if (client.info) {
    entry.client_info = ClientListLine(*client.info);
    if (!entry.client_info.empty() && entry.client_info.back() == '\n') entry.client_info.pop_back();
  }
  server.acl_log.Add(std::move(entry));
}

}  // namespace

const AclUser* CurrentUser(ServerState& server, ClientState& client) {
  if (client.user == nullptr) return nullptr;
  if (client.user_version != server.acl.version()) {
    std::shared_ptr<const AclUser> user = server.acl.Find(client.user->name());
    if (user == nullptr) {
      SetClientDefaultUser(server, client);
      client.authenticated = false;
    } else {
      SetClientUser(server, client, std::move(user), client.authenticated);
    }
  }
  return client.user.get();
}

AclVerdict CheckAcl(const AclUser& user, size_t table_index, const std::vector<std::string>& args) {
  return user.Check(AclCommandId(table_index, args), args,
                    [&] { return RequestAclKeys(table_index, args); },
                    [&] { return RequestAclChannels(table_index, args); });
}

bool AclReadsEveryKey(const AclUser& user, size_t table_index, const std::vector<std::string>& args) {
  return user.AllowsWithAnyKey(AclCommandId(table_index, args), args,
                               [&] { return RequestAclKeys(table_index, args); },
                               [&] { return RequestAclChannels(table_index, args); }, AclSelector::kRead);
}

void LogAclDenial(ServerState& server, const ClientState& client, const AclVerdict& verdict,
                  AclContext context, const std::vector<std::string>& args) {
  RecordInAclLog(server, client,
                 verdict.reason == AclVerdict::kCommand ? "command"
                 : verdict.reason == AclVerdict::kKey   ? "key"
                                                        : "channel",
                 context == AclContext::kTopLevel ? "toplevel"
                 : context == AclContext::kMulti  ? "multi"
                                                  : "lua",
                 verdict.reason == AclVerdict::kCommand ? FullCommandName(args) : args[verdict.position],
                 client.user != nullptr ? client.user->name() : "default");
}

void LogAuthFailure(ServerState& server, const ClientState& client, const std::string& username) {
  RecordInAclLog(server, client, "auth", client.in_multi ? "multi" : "toplevel", "AUTH", username);
}

std::string AclDeniedError(const AclVerdict& verdict, const std::vector<std::string>& args) {
  switch (verdict.reason) {
    case AclVerdict::kCommand:
      return "NOPERM this user has no permissions to run the '" + FullCommandName(args) + "' command";
    case AclVerdict::kKey:
      return "NOPERM this user has no permissions to access one of the keys used as arguments";
    default:
      return "NOPERM this user has no permissions to access one of the channels used as arguments";
  }
}

std::string AclDeniedAtExecError(const AclVerdict& verdict) {
  const char* reason = verdict.reason == AclVerdict::kCommand
                           ? "no permission to execute the command or subcommand"
                       : verdict.reason == AclVerdict::kKey
                           ? "no permission to touch the specified keys"
                           : "no permission to access one of the channels used as arguments";
  return std::string("NOPERM ACLs rules changed between the moment the transaction was "
                     "accumulated and the EXEC call. This command is no longer allowed for the "
                     "following reason: ") +
         reason;
}

std::string AclDeniedInScriptError(const AclVerdict& verdict) {
  const char* reason =
      verdict.reason == AclVerdict::kCommand ? "can't run this command or subcommand"
      : verdict.reason == AclVerdict::kKey
          ? "can't access at least one of the keys mentioned in the command arguments"
          : "can't publish to the channel mentioned in the command";
  return std::string("The user executing the script ") + reason;
}

}  // namespace teksdb::server
