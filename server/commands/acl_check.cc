// The ACL checks of requests, their log entries and errors.
#include "acl_check.h"

#include <algorithm>
#include <chrono>

#include "acl_catalog.h"
#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"

namespace teksdb::server {
namespace {

bool Has(const std::vector<std::string>& flags, const char* flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// The keys of a request with the access Redis's ACL asks of each: read
// for a key spec's "access", write for "insert", "delete" or "update"
// (neither: an existence test, any pattern will do). Key specs flagged
// not_key (a shard channel) name no key.
std::vector<AclKey> RequestAclKeys(const std::vector<std::string>& args) {
  std::vector<AclKey> keys;
  for (const KeyWithFlags& key : RequestKeysWithFlags(args)) {
    if (Has(key.flags, "not_key")) continue;  // SPUBLISH's channel, ...
    uint8_t access = 0;
    if (Has(key.flags, "access")) access |= AclSelector::kRead;
    if (Has(key.flags, "insert") || Has(key.flags, "delete") || Has(key.flags, "update")) {
      access |= AclSelector::kWrite;
    }
    keys.push_back(AclKey{key.position, access});
  }
  return keys;
}

// The channels PUBLISH and SPUBLISH publish to, and those SUBSCRIBE,
// SSUBSCRIBE and PSUBSCRIBE (patterns) subscribe to; unsubscribing is
// never denied.
std::vector<AclChannel> RequestAclChannels(const std::vector<std::string>& args) {
  const std::string name = AsciiLower(args[0]);
  std::vector<AclChannel> channels;
  if (name == "publish" || name == "spublish") {
    channels.push_back(AclChannel{1, false});
  } else if (name == "subscribe" || name == "ssubscribe" || name == "psubscribe") {
    for (size_t i = 1; i < args.size(); ++i) channels.push_back(AclChannel{i, name == "psubscribe"});
  }
  return channels;
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ClientInfoOf(const ClientState& client) {
  if (!client.info) return "";
  std::string line = ClientListLine(*client.info);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
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
  return user.Check(AclCommandId(table_index, args), args, [&] { return RequestAclKeys(args); },
                    [&] { return RequestAclChannels(args); });
}

bool AclReadsEveryKey(const AclUser& user, size_t table_index, const std::vector<std::string>& args) {
  return user.AllowsWithAnyKey(AclCommandId(table_index, args), args,
                               [&] { return RequestAclKeys(args); },
                               [&] { return RequestAclChannels(args); }, AclSelector::kRead);
}

void LogAclDenial(ServerState& server, const ClientState& client, const AclVerdict& verdict,
                  AclContext context, const std::vector<std::string>& args) {
  AclLog::Entry entry;
  entry.reason = verdict.reason == AclVerdict::kCommand ? "command"
                 : verdict.reason == AclVerdict::kKey   ? "key"
                                                        : "channel";
  entry.context = context == AclContext::kTopLevel ? "toplevel"
                  : context == AclContext::kMulti  ? "multi"
                                                   : "lua";
  entry.object = verdict.reason == AclVerdict::kCommand ? FullCommandName(args) : args[verdict.position];
  entry.username = client.user != nullptr ? client.user->name() : "default";
  entry.at_ms = WallMs();
  entry.client_info = ClientInfoOf(client);
  server.acl_log.Add(std::move(entry));
}

void LogAuthFailure(ServerState& server, const ClientState& client, const std::string& username) {
  AclLog::Entry entry;
  entry.reason = "auth";
  entry.context = client.in_multi ? "multi" : "toplevel";
  entry.object = "AUTH";
  entry.username = username;
  entry.at_ms = WallMs();
  entry.client_info = ClientInfoOf(client);
  server.acl_log.Add(std::move(entry));
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
