// AclCommandSet implementation, and the categories' names.
#include "acl_command_set.h"

#include <algorithm>

#include "ascii_case.h"

namespace teksdb::server {

int AclCommandSet::Add(const std::string& name, uint32_t categories, bool no_auth, int parent) {
  const int id = size();
  commands_.push_back(Command{name, parent, {}, categories, no_auth});
  ids_.emplace(name, id);
  if (parent >= 0) commands_[static_cast<size_t>(parent)].subcommands.push_back(id);
  return id;
}

int AclCommandSet::Find(std::string_view lower_case_name) const {
  const auto it = ids_.find(std::string(lower_case_name));
  return it == ids_.end() ? -1 : it->second;
}

const std::vector<std::string_view>& AclCategoryNames() {
  static const std::vector<std::string_view> names = {
      "keyspace", "read",  "write",  "set",       "sortedset",  "list",       "hash",
      "string",   "bitmap", "hyperloglog", "geo", "stream",     "pubsub",     "admin",
      "fast",     "slow",  "blocking", "dangerous", "connection", "transaction", "scripting"};
  return names;
}

uint32_t AclCategoryBit(std::string_view name) {
  const std::vector<std::string_view>& names = AclCategoryNames();
  const std::string lower = AsciiLower(std::string(name));
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == lower) return uint32_t{1} << i;
  }
  return 0;
}

uint32_t AclCategoryBits(std::string_view at_names) {
  uint32_t bits = 0;
  for (size_t from = 0; from < at_names.size();) {
    const size_t space = std::min(at_names.find(' ', from), at_names.size());
    std::string_view word = at_names.substr(from, space - from);
    if (!word.empty() && word[0] == '@') bits |= AclCategoryBit(word.substr(1));
    from = space + 1;
  }
  return bits;
}

}  // namespace teksdb::server
