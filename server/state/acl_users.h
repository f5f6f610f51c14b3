// AclUsers: the server's ACL users by name (always a "default" one, the
// user of a connection that has not authenticated), acl-pubsub-default,
// and the ACL file's format (ACL LOAD, ACL SAVE, aclfile).
//
// Users are immutable snapshots shared with the connections: a change
// makes a new user and replaces the old under the mutex, and bumps
// version(), by which a connection knows to look its user up again
// before its next command (so a change holds for it from then on, as in
// Redis, at the cost of one atomic load per command otherwise).
//
// It outlives the server's state (main.cc): a replica's full sync reopens
// the database, not the users.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl_command_set.h"
#include "acl_user.h"

namespace teksdb::server {

class AclUsers {
 public:
  explicit AclUsers(const AclCommandSet& commands);

  const AclCommandSet& commands() const { return *commands_; }
  // The user `name`, or null.
  std::shared_ptr<const AclUser> Find(const std::string& name) const;
  // Changes with every change of a user (acquire: the change is visible).
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  // Whether a new connection must authenticate: the default user is off
  // or has passwords (Redis's authRequired).
  bool AuthRequired() const { return auth_required_.load(std::memory_order_acquire); }
  // Whether the default user needs no password (protected mode's test).
  bool DefaultNoPass() const { return default_nopass_.load(std::memory_order_acquire); }

  // ACL SETUSER: creates or changes `name` (all rules or none); Redis's
  // error text, or empty. *before is the user as it was (null if new),
  // *after as it is now.
  std::string SetUser(const std::string& name, const std::vector<std::string>& rules,
                      std::shared_ptr<const AclUser>* before, std::shared_ptr<const AclUser>* after);
  // ACL DELUSER (not "default"): the names it removed.
  std::vector<std::string> Delete(const std::vector<std::string>& names);
  // Every user, by name.
  std::vector<std::shared_ptr<const AclUser>> List() const;
  // requirepass: the default user's one password ("": nopass), as Redis
  // maps it; the same value again changes nothing (a full sync's reopen
  // applies the parameters again, and must not undo ACL SETUSER default).
  void SetRequirePass(const std::string& password);
  std::string requirepass() const;

  // The `user` directives of the configuration file, at start (each:
  // name, rules): Redis's error text, or empty. A user named twice is an
  // error; "default" is reset, then given its rules.
  std::string LoadConfigured(const std::vector<std::vector<std::string>>& users);
  // ACL LOAD and aclfile: replaces every user by those `text` (an ACL
  // file, read from `file_name`) defines, or, if a line is wrong, none
  // (Redis's errors, naming FILE:LINE). *replaced: the names of the users
  // replaced (but "default", whose connections keep it).
  std::string Load(const std::string& text, const std::string& file_name,
                   std::vector<std::string>* replaced);
  // ACL SAVE's file and ACL LIST's lines: "user NAME RULES" each, by name.
  std::vector<std::string> Lines() const;

  // acl-pubsub-default: whether a new user (or a reset one) starts with
  // every channel.
  bool all_channels_default() const { return all_channels_default_.load(std::memory_order_relaxed); }
  void set_all_channels_default(bool all) { all_channels_default_.store(all, std::memory_order_relaxed); }

 private:
  // REQUIRES: mu_ held.
  void Published();

  const AclCommandSet* commands_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const AclUser>> users_;
  std::string requirepass_;
  std::atomic<uint64_t> version_{1};
  std::atomic<bool> auth_required_{false}, default_nopass_{true};
  std::atomic<bool> all_channels_default_{false};
};

}  // namespace teksdb::server
