// AclUser: one ACL user as Redis 7.0 has it: on or off, its passwords
// (kept as SHA-256 hex digests, as Redis keeps them, never in clear),
// nopass, the sanitize-payload flags, a root selector and any number of
// further selectors (acl_selector.h). A request is allowed if one
// selector allows all of it (the command, every key with the access it
// needs, every channel).
//
// ApplyRules is ACL SETUSER's: all the rules or none, with Redis's errors.
//
// Thread safety: a value; the registry (acl_users.h) shares users as
// immutable snapshots and replaces one to change it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "acl_command_set.h"
#include "acl_selector.h"

namespace teksdb::server {

// A key a request names, at args[position], and the access it needs
// (AclSelector::kRead, kWrite, both, or 0: existence only, any pattern).
struct AclKey {
  size_t position;
  uint8_t access;
};
// A channel a request names (PUBLISH, SUBSCRIBE) or a pattern (PSUBSCRIBE).
struct AclChannel {
  size_t position;
  bool is_pattern;
};

// Why a request is denied, in Redis's order of precedence (ACL_DENIED_*),
// and the argument at fault (a key or channel).
struct AclVerdict {
  enum Reason { kAllowed = 0, kCommand = 1, kKey = 2, kChannel = 4 } reason = kAllowed;
  size_t position = 0;
  bool allowed() const { return reason == kAllowed; }
};

class AclUser {
 public:
  // A new user: off, no password, no permission (channels all if
  // `all_channels`: acl-pubsub-default).
  AclUser(std::string name, const AclCommandSet& commands, bool all_channels);
  // Redis's default user: "on nopass ~* &* +@all".
  static AclUser Default(const AclCommandSet& commands);

  // One rule (a selector's rules too, and on, off, >pass, <pass, #hash,
  // !hash, nopass, resetpass, (selector), clearselectors, reset).
  // `all_channels`: acl-pubsub-default, for reset and new selectors.
  AclRuleError Apply(std::string_view rule, bool all_channels);
  // ACL SETUSER's rules (a selector may span several, "(+get" "~k)"):
  // every rule or none; Redis's error text, empty on success.
  std::string ApplyRules(const std::vector<std::string>& rules, bool all_channels);

  const std::string& name() const { return name_; }
  bool enabled() const { return enabled_; }
  bool nopass() const { return nopass_; }
  // Whether AUTH with `password` logs in as this user.
  bool Accepts(std::string_view password) const;
  const std::vector<std::string>& password_hashes() const { return passwords_; }
  // Root first.
  const std::vector<AclSelector>& selectors() const { return selectors_; }
  // ACL GETUSER's flags: "on"/"off", "nopass", "sanitize-payload", ...
  std::vector<std::string> Flags() const;
  // ACL LIST's and the ACL file's rules (after "user NAME "): Describe()
  // works them out (a few hundred thousand bit tests a selector: the
  // commands' description), description() is what CacheDescription()
  // kept (the registry's snapshots have it; a change clears it).
  std::string Describe() const;
  void CacheDescription() { description_ = Describe(); }
  const std::string& description() const { return description_; }

  // Whether it may run command `id` as `args`. `keys` and `channels` give
  // what the request names; they are asked only if a selector needs them.
  AclVerdict Check(int id, const std::vector<std::string>& args,
                   const std::function<std::vector<AclKey>()>& keys,
                   const std::function<std::vector<AclChannel>()>& channels) const;
  // Whether one selector allows the request and gives `access` to every
  // key (all keys, or a pattern "*" with that access): SORT's BY and GET,
  // which read keys no ACL check saw.
  bool AllowsWithAnyKey(int id, const std::vector<std::string>& args,
                        const std::function<std::vector<AclKey>()>& keys,
                        const std::function<std::vector<AclChannel>()>& channels,
                        uint8_t access) const;
  // Whether any selector allows the channel (or pattern).
  bool AllowsChannel(std::string_view channel, bool is_pattern) const;
  // Whether some selector has every channel.
  bool AllChannels() const;

 private:
  class RequestView;

  std::string name_;
  const AclCommandSet* commands_;
  bool enabled_ = false, nopass_ = false;
  // sanitize-payload / skip-sanitize-payload: neither until set (or reset).
  bool sanitize_payload_ = false, skip_sanitize_payload_ = false;
  std::vector<std::string> passwords_;  // SHA-256, lower-case hex
  std::vector<AclSelector> selectors_;
  std::string description_;
};

// SHA-256 of `password` in lower-case hex, as Redis stores passwords.
std::string AclPasswordHash(std::string_view password);
// Whether `name` may name a user (no white space or NUL).
bool ValidAclUserName(std::string_view name);
// Redis's splitting of a selector's text ("(+get ~k)") into rules, and of
// ACL SETUSER's arguments (selectors spanning several merged); empty with
// *unmatched set to the argument opening an unclosed selector.
std::vector<std::string> MergeSelectorRules(const std::vector<std::string>& rules,
                                            const std::string** unmatched);

}  // namespace teksdb::server
