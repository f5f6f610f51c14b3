// AclSelector: one set of permissions of an ACL user, as Redis 7.0's
// selectors: the commands it may run (a bitmap over AclCommandSet's ids,
// and the first arguments allowed of a command otherwise denied:
// "+select|0"), the key patterns with the access each grants (~ both,
// %R~ read, %W~ write), and the channel patterns.
//
// Apply() takes one rule as ACL SETUSER does (Redis's syntax, errors and
// quirks); the Describe functions give the rules back as ACL LIST and ACL
// GETUSER show them. The commands' description is Redis's: +@all or
// -@all (whether commands added later are allowed), then the categories
// that fit the bitmap best, then single commands to make it exact.
//
// Thread safety: a value; a user changes a copy (acl_users.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "acl_command_set.h"

namespace teksdb::server {

// Why a rule was refused (Redis's errno for each).
enum class AclRuleError {
  kNone,
  kSyntax,               // EINVAL
  kUnknownCommand,       // ENOENT: a command or category it does not know
  kKeyAfterAllKeys,      // EEXIST
  kChannelAfterAll,      // EISDIR
  kNoSuchPassword,       // ENODEV
  kBadHash,              // EBADMSG
  kFirstArgOfSubcommand  // ECHILD
};
// Redis's text for the error ("Syntax error", ...).
const char* AclRuleErrorText(AclRuleError error);

class AclSelector {
 public:
  // Access a key pattern grants, and a key needs.
  static constexpr uint8_t kRead = 1, kWrite = 2, kReadWrite = 3;
  struct KeyPattern {
    std::string pattern;
    uint8_t access;
  };

  // No command, key or channel (channels all if `all_channels`: Redis's
  // acl-pubsub-default allchannels).
  AclSelector(const AclCommandSet& commands, bool all_channels);

  AclRuleError Apply(std::string_view rule);

  // Whether it may run command `id`, sent as `args` (args[0] its name;
  // args[1], or args[2] of a subcommand, the first argument).
  bool AllowsCommand(int id, const std::vector<std::string>& args) const;
  // Whether a key it may name needs `access` (kRead, kWrite, both, or 0:
  // any pattern will do).
  bool AllowsKey(std::string_view key, uint8_t access) const;
  // A channel (PUBLISH, SUBSCRIBE: matched against the patterns) or a
  // pattern (PSUBSCRIBE: equal to one of them).
  bool AllowsChannel(std::string_view channel, bool is_pattern) const;
  // Whether it gives `access` to every key: all keys, or "*" with it.
  bool AllowsEveryKey(uint8_t access) const;
  bool all_keys() const { return all_keys_; }
  bool all_channels() const { return all_channels_; }
  bool all_commands() const { return all_commands_; }
  const std::vector<std::string>& channels() const { return channels_; }

  // ACL GETUSER's fields: "+@all -@string +incr", "~a %R~b" (or "~*"),
  // "&a &b" (or "&*").
  std::string DescribeCommands() const;
  std::string DescribeKeys() const;
  std::string DescribeChannels() const;
  // ACL LIST's: "~a resetchannels &b -@all +get".
  std::string Describe() const;

 private:
  bool Bit(int id) const;
  void SetBit(int id, bool on);
  // A command and its subcommands; its first arguments forgotten.
  void ChangeCommand(int id, bool allow);
  void ChangeCategory(uint32_t category, bool allow);
  void SetAll(bool allow);
  bool AllowsFutureCommands() const { return Bit(commands_->size()); }
  // How many commands of `category` the bitmap allows and denies.
  void CountCategory(uint32_t category, size_t* on, size_t* off) const;
  AclRuleError ApplyKeyPattern(std::string_view rule);
  AclRuleError ApplyAllowedCommand(std::string_view name);

  const AclCommandSet* commands_;
  bool all_keys_ = false, all_channels_ = false, all_commands_ = false;
  // One bit per command id, and one past them: "future commands", set
  // only by +@all (so that the description starts +@all, not -@all).
  std::vector<uint64_t> allowed_;
  std::map<int, std::vector<std::string>> first_args_;  // by command id
  std::vector<KeyPattern> keys_;
  std::vector<std::string> channels_;
};

}  // namespace teksdb::server
