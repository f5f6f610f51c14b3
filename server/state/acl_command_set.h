// AclCommandSet: the commands ACL rules may name (Redis 7.0's: those the
// server runs and those it does not, since a rule may name either), each
// with an id, its bit in a selector's command bitmap (acl_selector.h), its
// subcommands and its categories; and Redis 7.0's command categories
// (@keyspace, @read, ..., in ACL CAT's order).
//
// Thread safety: filled once at start (commands/acl_catalog.cc), read only
// after.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace teksdb::server {

class AclCommandSet {
 public:
  struct Command {
    std::string name;  // lower case; "config|get" for a subcommand
    int parent = -1;   // a subcommand's container
    std::vector<int> subcommands;
    uint32_t categories = 0;  // bit i: AclCategoryNames()[i]
    // AUTH, HELLO: every user may run them (Redis's "no_auth").
    bool no_auth = false;
  };

  // Adds a command, or (`parent` its container's id, added before) a
  // subcommand named "container|name"; returns its id.
  int Add(const std::string& name, uint32_t categories, bool no_auth, int parent = -1);
  // The id of the command named `lower_case_name` ("get", "config|get"),
  // or -1.
  int Find(std::string_view lower_case_name) const;
  int size() const { return static_cast<int>(commands_.size()); }
  const Command& operator[](int id) const { return commands_[static_cast<size_t>(id)]; }

 private:
  std::vector<Command> commands_;
  std::unordered_map<std::string, int> ids_;
};

// Redis 7.0's categories, without '@', in ACL CAT's order.
const std::vector<std::string_view>& AclCategoryNames();
// The bit of category `name` ("read", any case, no '@'), 0 if unknown.
uint32_t AclCategoryBit(std::string_view name);
// The bits of "@write @string @fast" (COMMAND INFO's list).
uint32_t AclCategoryBits(std::string_view at_names);

}  // namespace teksdb::server
