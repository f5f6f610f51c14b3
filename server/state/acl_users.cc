// AclUsers implementation: the registry, and the ACL file's reading and
// writing as Redis 7.0's (ACLLoadFromFile, ACLSaveToFile).
#include "acl_users.h"

#include <sstream>

namespace teksdb::server {
namespace {

// Redis's sdstrim of the characters in `chars` at both ends.
std::string Trimmed(const std::string& text, const char* chars) {
  const size_t first = text.find_first_not_of(chars);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(chars) - first + 1);
}

// Split on single spaces, as sdssplitlen (two spaces make an empty word).
std::vector<std::string> SplitOnSpaces(const std::string& line) {
  std::vector<std::string> words;
  size_t from = 0;
  for (size_t space; (space = line.find(' ', from)) != std::string::npos; from = space + 1) {
    words.push_back(line.substr(from, space - from));
  }
  words.push_back(line.substr(from));
  return words;
}

// A user as the registry shares it: immutable, its description (ACL
// LIST's, the ACL file's) worked out once, as Redis caches it.
std::shared_ptr<const AclUser> Snapshot(AclUser user) {
  user.CacheDescription();
  return std::make_shared<const AclUser>(std::move(user));
}

}  // namespace

AclUsers::AclUsers(const AclCommandSet& commands) : commands_(&commands) {
  std::lock_guard<std::mutex> lock(mu_);
  users_["default"] = Snapshot(AclUser::Default(commands));
  Published();
}

void AclUsers::Published() {
  const AclUser& user = *users_.at("default");
  default_nopass_.store(user.nopass(), std::memory_order_release);
  auth_required_.store(!user.nopass() || !user.enabled(), std::memory_order_release);
  version_.fetch_add(1, std::memory_order_acq_rel);
}

std::shared_ptr<const AclUser> AclUsers::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second;
}

std::string AclUsers::SetUser(const std::string& name, const std::vector<std::string>& rules,
                              std::shared_ptr<const AclUser>* before,
                              std::shared_ptr<const AclUser>* after) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = users_.find(name);
  *before = it == users_.end() ? nullptr : it->second;
  AclUser user = *before ? **before : AclUser(name, *commands_, all_channels_default());
  if (std::string error = user.ApplyRules(rules, all_channels_default()); !error.empty()) {
    return error;
  }
  *after = Snapshot(std::move(user));
  users_[name] = *after;
  Published();
  return "";
}

std::vector<std::string> AclUsers::Delete(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> deleted;
  for (const std::string& name : names) {
    if (name != "default" && users_.erase(name) > 0) deleted.push_back(name);
  }
  if (!deleted.empty()) Published();
  return deleted;
}

std::vector<std::shared_ptr<const AclUser>> AclUsers::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<const AclUser>> users;
  for (const auto& [name, user] : users_) users.push_back(user);
  return users;
}

std::string AclUsers::requirepass() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requirepass_;
}

void AclUsers::SetRequirePass(const std::string& password) {
  std::lock_guard<std::mutex> lock(mu_);
  if (password == requirepass_) return;
  requirepass_ = password;
  AclUser user = *users_.at("default");
  user.Apply("resetpass", false);
  user.Apply(password.empty() ? "nopass" : ">" + password, false);
  users_["default"] = Snapshot(std::move(user));
  Published();
}

std::string AclUsers::LoadConfigured(const std::vector<std::vector<std::string>>& users) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, std::shared_ptr<const AclUser>> loaded = users_;
  std::map<std::string, bool> seen;
  for (const std::vector<std::string>& definition : users) {
    const std::string& name = definition.at(0);
    if (!ValidAclUserName(name)) return "Spaces not allowed in ACL usernames";
    if (seen[name]) {
      return "Duplicate user found. A user can only be defined once in config files";
    }
    seen[name] = true;
    AclUser user(name, *commands_, all_channels_default());
    if (name == "default") {
      user = *loaded.at("default");
      user.Apply("reset", all_channels_default());
    }
    const std::string* unmatched = nullptr;
    const std::vector<std::string> rules = MergeSelectorRules(
        std::vector<std::string>(definition.begin() + 1, definition.end()), &unmatched);
    if (unmatched != nullptr) {
      return "Unmatched parenthesis in acl selector starting at '" + *unmatched + "'.";
    }
    for (const std::string& rule : rules) {
      if (const AclRuleError error = user.Apply(rule, all_channels_default());
          error != AclRuleError::kNone) {
        return "Error loading ACL rule '" + rule + "' for the user named '" + name +
               "': " + AclRuleErrorText(error);
      }
    }
    loaded[name] = Snapshot(std::move(user));
  }
  users_ = std::move(loaded);
  Published();
  return "";
}

std::string AclUsers::Load(const std::string& text, const std::string& file_name,
                           std::vector<std::string>* replaced) {
  std::map<std::string, std::shared_ptr<const AclUser>> loaded;
  std::string errors;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    line = Trimmed(line, " \t\r\n");
    if (line.empty()) continue;
    const std::vector<std::string> words = SplitOnSpaces(line);
    const std::string at = file_name + ":" + std::to_string(number);
    if (words[0] != "user" || words.size() < 2) {
      errors += at + " should start with user keyword followed by the username. ";
      continue;
    }
    const std::string& name = words[1];
    if (!ValidAclUserName(name)) {
      errors += "'" + at + ": username '" + name + "' contains invalid characters. ";
      continue;
    }
    if (loaded.count(name) > 0) {
      errors += "WARNING: Duplicate user '" + name + "' found on line " + std::to_string(number) + ". ";
      continue;
    }
    const std::string* unmatched = nullptr;
    const std::vector<std::string> rules =
        MergeSelectorRules(std::vector<std::string>(words.begin() + 2, words.end()), &unmatched);
    if (unmatched != nullptr) errors += at + ": Unmatched parenthesis in selector definition.";
    AclUser user(name, *commands_, all_channels_default());
    bool syntax_error = false;
    for (const std::string& rule : rules) {
      const AclRuleError error = user.Apply(Trimmed(rule, "\t\r\n"), all_channels_default());
      if (error == AclRuleError::kUnknownCommand) {
        errors += at + ": Error in applying operation '" + rule + "': " + AclRuleErrorText(error) + ". ";
      } else if (error != AclRuleError::kNone && !syntax_error) {
        errors += at + ": " + AclRuleErrorText(error) + ". ";
        syntax_error = true;
      }
    }
    loaded[name] = Snapshot(std::move(user));
  }
  if (!errors.empty()) {
    return errors + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";
  }
  if (loaded.count("default") == 0) {
    loaded["default"] = Snapshot(AclUser::Default(*commands_));
  }
  std::lock_guard<std::mutex> lock(mu_);
  replaced->clear();
  for (const auto& [name, user] : users_) {
    if (name != "default") replaced->push_back(name);
  }
  users_ = std::move(loaded);
  Published();
  return "";
}

std::vector<std::string> AclUsers::Lines() const {
  std::vector<std::string> lines;
  for (const std::shared_ptr<const AclUser>& user : List()) {
    lines.push_back("user " + user->name() + " " + user->description());
  }
  return lines;
}

}  // namespace teksdb::server
