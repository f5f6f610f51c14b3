// ACL: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT, LOG, GENPASS,
// DRYRUN, LOAD, SAVE, HELP, with Redis 7.0's replies and errors; and the
// connections a change closes, as Redis closes them: those of a user
// deleted (ACL DELUSER, ACL LOAD), and subscribers left with a channel
// their user may no longer use.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "acl_catalog.h"
#include "acl_check.h"
#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Closes the connections logged in as one of `users`; the caller's after
// this reply.
void CloseClientsOf(Request& r, const std::vector<std::string>& users) {
  const std::set<std::string> names(users.begin(), users.end());
  if (r.client.user != nullptr && names.count(r.client.user->name()) > 0) {
    r.client.close_after_reply = true;
  }
  const uint64_t self = r.client.id;
  r.server.clients.Close([&](const ClientRegistry::Info& info) {
    return info.id != self && names.count(info.user()) > 0;
  });
}

// After a change of `user`: closes its subscribers subscribed to a
// channel, pattern or shard channel it may no longer use.
void CloseRevokedSubscribers(Request& r, const AclUser& user) {
  if (user.AllChannels()) return;
  std::set<uint64_t> revoked;
  for (const std::shared_ptr<ClientRegistry::Info>& info : r.server.clients.List()) {
    if (info->user() != user.name() ||
        info->channels.load(std::memory_order_relaxed) + info->patterns.load(std::memory_order_relaxed) +
                info->shard_channels.load(std::memory_order_relaxed) ==
            0) {
      continue;
    }
    const std::shared_ptr<Subscriber> subscriber = r.server.clients.SubscriberOf(info->id);
    if (subscriber == nullptr) continue;
    bool denied = false;
    for (const PubSub::Kind kind : {PubSub::kPattern, PubSub::kChannel, PubSub::kShardChannel}) {
      for (const std::string& name : r.server.pubsub.SubscriptionsOf(kind, subscriber.get())) {
        denied |= !user.AllowsChannel(name, kind == PubSub::kPattern);
      }
    }
    if (denied) revoked.insert(info->id);
  }
  if (revoked.empty()) return;
  r.server.clients.Close(
      [&](const ClientRegistry::Info& info) { return revoked.count(info.id) > 0; });
}

void SetUser(Request& r) {
  const std::string& name = r.args[2];
  if (!ValidAclUserName(name)) {
    return reply::Error(r.out, "ERR Usernames can't contain spaces or null characters");
  }
  std::shared_ptr<const AclUser> before, after;
  const std::string error = r.server.acl.SetUser(
      name, std::vector<std::string>(r.args.begin() + 3, r.args.end()), &before, &after);
  if (!error.empty()) return reply::Error(r.out, "ERR " + error);
  if (before != nullptr) CloseRevokedSubscribers(r, *after);
  reply::Ok(r.out);
}

void DelUser(Request& r) {
  const std::vector<std::string> names(r.args.begin() + 2, r.args.end());
  for (const std::string& name : names) {
    if (name == "default") return reply::Error(r.out, "ERR The 'default' user cannot be removed");
  }
  const std::vector<std::string> deleted = r.server.acl.Delete(names);
  CloseClientsOf(r, deleted);
  reply::Integer(r.out, static_cast<int64_t>(deleted.size()));
}

// A selector's commands, keys and channels (ACL GETUSER).
void ReplySelectorFields(Request& r, const AclSelector& selector) {
  reply::Bulk(r.out, "commands");
  reply::Bulk(r.out, selector.DescribeCommands());
  reply::Bulk(r.out, "keys");
  reply::Bulk(r.out, selector.DescribeKeys());
  reply::Bulk(r.out, "channels");
  reply::Bulk(r.out, selector.DescribeChannels());
}

void GetUser(Request& r) {
  const std::shared_ptr<const AclUser> user = r.server.acl.Find(r.args[2]);
  if (user == nullptr) return reply::Null(r.out, r.protocol());
  reply::MapHeader(r.out, r.protocol(), 6);
  reply::Bulk(r.out, "flags");
  const std::vector<std::string> flags = user->Flags();
  reply::SetHeader(r.out, r.protocol(), flags.size());
  for (const std::string& flag : flags) reply::Bulk(r.out, flag);
  reply::Bulk(r.out, "passwords");
  reply::ArrayHeader(r.out, user->password_hashes().size());
  for (const std::string& hash : user->password_hashes()) reply::Bulk(r.out, hash);
  ReplySelectorFields(r, user->selectors().front());
  reply::Bulk(r.out, "selectors");
  reply::ArrayHeader(r.out, user->selectors().size() - 1);
  for (size_t i = 1; i < user->selectors().size(); ++i) {
    reply::MapHeader(r.out, r.protocol(), 3);
    ReplySelectorFields(r, user->selectors()[i]);
  }
}

void List(Request& r, bool names_only) {
  const std::vector<std::shared_ptr<const AclUser>> users = r.server.acl.List();
  reply::ArrayHeader(r.out, users.size());
  for (const std::shared_ptr<const AclUser>& user : users) {
    reply::Bulk(r.out, names_only ? user->name() : "user " + user->name() + " " + user->description());
  }
}

void Cat(Request& r) {
  const std::vector<std::string_view>& categories = AclCategoryNames();
  if (r.args.size() == 2) {
    reply::ArrayHeader(r.out, categories.size());
    for (const std::string_view category : categories) reply::Bulk(r.out, category);
    return;
  }
  const uint32_t category = AclCategoryBit(r.args[2]);
  if (category == 0) {
    return reply::Error(r.out, "ERR Unknown category '" + r.args[2].substr(0, 128) + "'");
  }
  const AclCommandSet& commands = AclCommands();
  std::vector<const std::string*> names;
  for (int id = 0; id < commands.size(); ++id) {
    if (commands[id].categories & category) names.push_back(&commands[id].name);
  }
  reply::ArrayHeader(r.out, names.size());
  for (const std::string* name : names) reply::Bulk(r.out, *name);
}

void GenPass(Request& r) {
  constexpr int64_t kMaxBits = 4096;
  int64_t bits = 256;
  if (r.args.size() == 3 && !ParseStrictInt64(r.args[2], &bits)) {
    return reply::Error(r.out, kNotInteger);
  }
  if (bits <= 0 || bits > kMaxBits) {
    return reply::Error(r.out,
                        "ERR ACL GENPASS argument must be the number of bits for the output "
                        "password, a positive number up to 4096");
  }
  static const char kHex[] = "0123456789abcdef";
  std::random_device random;  // the kernel's (getrandom, /dev/urandom)
  std::string password;
  for (int64_t i = 0; i < (bits + 3) / 4; ++i) password += kHex[random() & 15];
  reply::Bulk(r.out, password);
}

void Log(Request& r) {
  int64_t count = 10;
  if (r.args.size() == 3) {
    if (AsciiEqualIgnoringCase(r.args[2], "reset")) {
      r.server.acl_log.Reset();
      return reply::Ok(r.out);
    }
    if (!ParseStrictInt64(r.args[2], &count)) return reply::Error(r.out, kNotInteger);
    count = std::max<int64_t>(count, 0);
  }
  const std::vector<AclLog::Entry> entries = r.server.acl_log.Newest(static_cast<size_t>(count));
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  reply::ArrayHeader(r.out, entries.size());
  for (const AclLog::Entry& entry : entries) {
    reply::MapHeader(r.out, r.protocol(), 7);
    reply::Bulk(r.out, "count");
    reply::Integer(r.out, static_cast<int64_t>(entry.count));
    for (const auto& [field, value] : {std::pair<const char*, const std::string*>{"reason", &entry.reason},
                                       {"context", &entry.context},
                                       {"object", &entry.object},
                                       {"username", &entry.username}}) {
      reply::Bulk(r.out, field);
      reply::Bulk(r.out, *value);
    }
    reply::Bulk(r.out, "age-seconds");
    char age[64];
    std::snprintf(age, sizeof(age), "%.17g", static_cast<double>(now_ms - entry.at_ms) / 1000);
    reply::Double(r.out, r.protocol(), age);
    reply::Bulk(r.out, "client-info");
    reply::Bulk(r.out, entry.client_info);
  }
}

void DryRun(Request& r) {
  const std::shared_ptr<const AclUser> user = r.server.acl.Find(r.args[2]);
  if (user == nullptr) return reply::Error(r.out, "ERR User '" + r.args[2] + "' not found");
  const std::vector<std::string> request(r.args.begin() + 3, r.args.end());
  const Command* command = LookupCommand(AsciiLower(request[0]));
  const std::string subcommand_error = command != nullptr ? SubcommandError(request) : "";
  if (command == nullptr || subcommand_error.find("unknown subcommand") != std::string::npos) {
    return reply::Error(r.out, "ERR Command '" + request[0] + "' not found");
  }
  if (!subcommand_error.empty()) return reply::Error(r.out, subcommand_error);
  if (!ArityFits(*command, request.size())) {
    return reply::Error(r.out, "ERR wrong number of arguments for '" + std::string(command->name) +
                                   "' command");
  }
  const AclVerdict verdict =
      CheckAcl(*user, static_cast<size_t>(command - CommandTable().data()), request);
  switch (verdict.reason) {
    case AclVerdict::kAllowed:
      return reply::Ok(r.out);
    case AclVerdict::kCommand:
      return reply::Bulk(r.out, "This user has no permissions to run the '" +
                                    FullCommandName(request) + "' command");
    case AclVerdict::kKey:
      return reply::Bulk(r.out, "This user has no permissions to access the '" +
                                    request[verdict.position] + "' key");
    case AclVerdict::kChannel:
      return reply::Bulk(r.out, "This user has no permissions to access the '" +
                                    request[verdict.position] + "' channel");
  }
}

void Load(Request& r) {
  std::ifstream file(r.server.acl_file_path, std::ios::binary);
  if (!file) {
    return reply::Error(r.out, "ERR Error loading ACLs, opening file '" + r.server.acl_file +
                                   "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  std::vector<std::string> replaced;
  const std::string errors = r.server.acl.Load(text.str(), r.server.acl_file, &replaced);
  if (!errors.empty()) return reply::Error(r.out, "ERR " + errors);
  CloseClientsOf(r, replaced);
  reply::Ok(r.out);
}

// The ACL file written whole: a temporary file beside it, flushed to
// disk, renamed over it.
void Save(Request& r) {
  std::string text;
  for (const std::string& line : r.server.acl.Lines()) text += line + "\n";
  const std::string& path = r.server.acl_file_path;
  const std::string temporary = path + ".tmp-" + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool saved = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
               fsync(fd) == 0;
  if (fd >= 0) saved &= close(fd) == 0;
  saved = saved && rename(temporary.c_str(), path.c_str()) == 0;
  if (!saved) {
    std::fprintf(stderr, "teksdb-server: ACL SAVE to '%s': %s\n", path.c_str(),
                 std::strerror(errno));
    unlink(temporary.c_str());
    return reply::Error(r.out,
                        "ERR There was an error trying to save the ACLs. Please check the server "
                        "logs for more information");
  }
  reply::Ok(r.out);
}

void Help(Request& r) {
  static const char* const kLines[] = {
      "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CAT [<category>]",
      "    List all commands that belong to <category>, or all command categories",
      "    when no category is specified.",
      "DELUSER <username> [<username> ...]",
      "    Delete a list of users.",
      "DRYRUN <username> <command> [<arg> ...]",
      "    Returns whether the user can execute the given command without executing the command.",
      "GETUSER <username>",
      "    Get the user's details.",
      "GENPASS [<bits>]",
      "    Generate a secure 256-bit user password. The optional `bits` argument can",
      "    be used to specify a different size.",
      "LIST",
      "    Show users details in config file format.",
      "LOAD",
      "    Reload users from the ACL file.",
      "LOG [<count> | RESET]",
      "    Show the ACL log entries.",
      "SAVE",
      "    Save the current config to the ACL file.",
      "SETUSER <username> <attribute> [<attribute> ...]",
      "    Create or modify a user with the specified attributes.",
      "USERS",
      "    List all the registered usernames.",
      "WHOAMI",
      "    Return the current connection username.",
      "HELP",
      "    Prints this help."};
  reply::StatusLines(r.out, kLines);
}

void AclCommand(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  // (SubcommandError checked the others' counts; these take one optional
  // argument.)
  if ((sub == "cat" || sub == "genpass" || sub == "log") && r.args.size() > 3) {
    return reply::Error(r.out, SubcommandSyntaxError(r.args[1], "ACL"));
  }
  if (sub == "setuser") return SetUser(r);
  if (sub == "deluser") return DelUser(r);
  if (sub == "getuser") return GetUser(r);
  if (sub == "list" || sub == "users") return List(r, sub == "users");
  if (sub == "whoami") {
    return reply::Bulk(r.out, r.client.user != nullptr ? r.client.user->name() : "default");
  }
  if (sub == "cat") return Cat(r);
  if (sub == "genpass") return GenPass(r);
  if (sub == "log") return Log(r);
  if (sub == "dryrun") return DryRun(r);
  if (sub == "help") return Help(r);
  if (r.server.acl_file.empty()) {  // LOAD, SAVE
    return reply::Error(
        r.out,
        "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
        "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
        "Redis configuration file set) in order to store users in the Redis configuration.");
  }
  sub == "load" ? Load(r) : Save(r);
}

}  // namespace

void AddAclCommand(std::vector<Command>* table) { table->push_back({"acl", -2, AclCommand}); }

}  // namespace teksdb::server
