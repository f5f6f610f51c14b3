// AclSelector implementation. Rules, their errors and the commands'
// description follow Redis 7.0's acl.c, so that ACL GETUSER and ACL LIST
// read as redis-server's.
#include "acl_selector.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "ascii_case.h"
#include "glob_match.h"

namespace teksdb::server {
namespace {

// Patterns and user names may hold no white space or NUL (Redis's
// ACLStringHasSpaces): they are written back space separated.
bool HasSpaces(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return c == '\0' || std::isspace(static_cast<unsigned char>(c));
  });
}

std::string PatternText(const AclSelector::KeyPattern& p) {
  const char* prefix = p.access == AclSelector::kReadWrite ? "~"
                       : p.access == AclSelector::kRead    ? "%R~"
                                                           : "%W~";
  return prefix + p.pattern;
}

}  // namespace

const char* AclRuleErrorText(AclRuleError error) {
  switch (error) {
    case AclRuleError::kNone:
      return "";
    case AclRuleError::kSyntax:
      return "Syntax error";
    case AclRuleError::kUnknownCommand:
      return "Unknown command or category name in ACL";
    case AclRuleError::kKeyAfterAllKeys:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
             "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case AclRuleError::kChannelAfterAll:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case AclRuleError::kNoSuchPassword:
      return "The password you are trying to remove from the user does not exist";
    case AclRuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case AclRuleError::kFirstArgOfSubcommand:
      return "Allowing first-arg of a subcommand is not supported";
  }
  return "Wrong format";
}

AclSelector::AclSelector(const AclCommandSet& commands, bool all_channels)
    : commands_(&commands),
      all_channels_(all_channels),
      allowed_((static_cast<size_t>(commands.size()) + 1 + 63) / 64, 0) {}

bool AclSelector::Bit(int id) const {
  return (allowed_[static_cast<size_t>(id) / 64] >> (id % 64)) & 1;
}

void AclSelector::SetBit(int id, bool on) {
  uint64_t& word = allowed_[static_cast<size_t>(id) / 64];
  if (on) {
    word |= uint64_t{1} << (id % 64);
  } else {
    word &= ~(uint64_t{1} << (id % 64));
    all_commands_ = false;
  }
}

void AclSelector::ChangeCommand(int id, bool allow) {
  SetBit(id, allow);
  first_args_.erase(id);
  for (const int sub : (*commands_)[id].subcommands) SetBit(sub, allow);
}

void AclSelector::ChangeCategory(uint32_t category, bool allow) {
  for (int id = 0; id < commands_->size(); ++id) {
    if ((*commands_)[id].categories & category) ChangeCommand(id, allow);
  }
}

void AclSelector::SetAll(bool allow) {
  std::fill(allowed_.begin(), allowed_.end(), allow ? ~uint64_t{0} : 0);
  all_commands_ = allow;
  first_args_.clear();
}

void AclSelector::CountCategory(uint32_t category, size_t* on, size_t* off) const {
  *on = *off = 0;
  for (int id = 0; id < commands_->size(); ++id) {
    if ((*commands_)[id].categories & category) ++*(Bit(id) ? on : off);
  }
}

AclRuleError AclSelector::Apply(std::string_view rule) {
  if (AsciiEqualIgnoringCase(rule, "allkeys") || rule == "~*") {
    all_keys_ = true;
    keys_.clear();
  } else if (AsciiEqualIgnoringCase(rule, "resetkeys")) {
    all_keys_ = false;
    keys_.clear();
  } else if (AsciiEqualIgnoringCase(rule, "allchannels") || rule == "&*") {
    all_channels_ = true;
    channels_.clear();
  } else if (AsciiEqualIgnoringCase(rule, "resetchannels")) {
    all_channels_ = false;
    channels_.clear();
  } else if (AsciiEqualIgnoringCase(rule, "allcommands") || AsciiEqualIgnoringCase(rule, "+@all")) {
    SetAll(true);
  } else if (AsciiEqualIgnoringCase(rule, "nocommands") || AsciiEqualIgnoringCase(rule, "-@all")) {
    SetAll(false);
  } else if (!rule.empty() && (rule[0] == '~' || rule[0] == '%')) {
    return ApplyKeyPattern(rule);
  } else if (!rule.empty() && rule[0] == '&') {
    if (all_channels_) return AclRuleError::kChannelAfterAll;
    const std::string_view pattern = rule.substr(1);
    if (HasSpaces(pattern)) return AclRuleError::kSyntax;
    if (std::find(channels_.begin(), channels_.end(), pattern) == channels_.end()) {
      channels_.emplace_back(pattern);
    }
  } else if (rule.size() > 1 && (rule[0] == '+' || rule[0] == '-') && rule[1] == '@') {
    const uint32_t category = AclCategoryBit(rule.substr(2));
    if (category == 0) return AclRuleError::kUnknownCommand;
    ChangeCategory(category, rule[0] == '+');
  } else if (!rule.empty() && rule[0] == '+') {
    return ApplyAllowedCommand(rule.substr(1));
  } else if (!rule.empty() && rule[0] == '-') {
    const int id = commands_->Find(AsciiLower(std::string(rule.substr(1))));
    if (id < 0) return AclRuleError::kUnknownCommand;
    ChangeCommand(id, false);
  } else {
    return AclRuleError::kSyntax;
  }
  return AclRuleError::kNone;
}

AclRuleError AclSelector::ApplyKeyPattern(std::string_view rule) {
  if (all_keys_) return AclRuleError::kKeyAfterAllKeys;
  uint8_t access = kReadWrite;
  size_t offset = 1;
  if (rule[0] == '%') {
    // %R~, %W~, %RW~ (each letter once, any case).
    access = 0;
    for (;; ++offset) {
      if (offset == rule.size()) return AclRuleError::kSyntax;
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(rule[offset])));
      if (c == 'R' && !(access & kRead)) {
        access |= kRead;
      } else if (c == 'W' && !(access & kWrite)) {
        access |= kWrite;
      } else if (c == '~' && access != 0) {
        ++offset;
        break;
      } else {
        return AclRuleError::kSyntax;
      }
    }
  }
  const std::string_view pattern = rule.substr(offset);
  if (HasSpaces(pattern)) return AclRuleError::kSyntax;
  const auto it = std::find_if(keys_.begin(), keys_.end(),
                               [&](const KeyPattern& p) { return p.pattern == pattern; });
  if (it == keys_.end()) {
    keys_.push_back(KeyPattern{std::string(pattern), access});
  } else {
    it->access |= access;
  }
  return AclRuleError::kNone;
}

AclRuleError AclSelector::ApplyAllowedCommand(std::string_view name) {
  const size_t bar = name.rfind('|');
  if (bar == std::string_view::npos) {
    const int id = commands_->Find(AsciiLower(std::string(name)));
    if (id < 0) return AclRuleError::kUnknownCommand;
    ChangeCommand(id, true);
    return AclRuleError::kNone;
  }
  const int container = commands_->Find(AsciiLower(std::string(name.substr(0, bar))));
  if (container < 0) return AclRuleError::kUnknownCommand;
  if ((*commands_)[container].parent >= 0) return AclRuleError::kFirstArgOfSubcommand;
  const std::string_view first_arg = name.substr(bar + 1);
  if (first_arg.empty()) return AclRuleError::kSyntax;
  if (!(*commands_)[container].subcommands.empty()) {
    const int id = commands_->Find(AsciiLower(std::string(name)));
    if (id < 0) return AclRuleError::kUnknownCommand;
    ChangeCommand(id, true);
    return AclRuleError::kNone;
  }
  // A first argument of a command without subcommands (SELECT 0, DEBUG
  // DIGEST): allowed while the command itself is denied.
  std::vector<std::string>& args = first_args_[container];
  if (std::none_of(args.begin(), args.end(),
                   [&](const std::string& a) { return AsciiEqualIgnoringCase(a, first_arg); })) {
    args.emplace_back(first_arg);
  }
  return AclRuleError::kNone;
}

bool AclSelector::AllowsCommand(int id, const std::vector<std::string>& args) const {
  const AclCommandSet::Command& command = (*commands_)[id];
  if (all_commands_ || command.no_auth || Bit(id)) return true;
  const auto it = first_args_.find(id);
  const size_t index = command.parent >= 0 ? 2 : 1;
  if (it == first_args_.end() || args.size() <= index) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const std::string& a) { return AsciiEqualIgnoringCase(a, args[index]); });
}

bool AclSelector::AllowsKey(std::string_view key, uint8_t access) const {
  if (all_keys_) return true;
  return std::any_of(keys_.begin(), keys_.end(), [&](const KeyPattern& p) {
    return (p.access & access) == access && GlobMatch(p.pattern, key);
  });
}

bool AclSelector::AllowsEveryKey(uint8_t access) const {
  if (all_keys_) return true;
  return std::any_of(keys_.begin(), keys_.end(), [&](const KeyPattern& p) {
    return (p.access & access) == access && p.pattern == "*";
  });
}

bool AclSelector::AllowsChannel(std::string_view channel, bool is_pattern) const {
  if (all_channels_) return true;
  return std::any_of(channels_.begin(), channels_.end(), [&](const std::string& p) {
    return is_pattern ? p == channel : GlobMatch(p, channel);
  });
}

std::string AclSelector::DescribeCommands() const {
  // As Redis: start from +@all (if commands added later are allowed) or
  // -@all, add or remove the category that best fits what is left to
  // describe while one fits (more commands it would set right than
  // wrong), then single commands until the bitmap is exact. `fake`
  // follows what the rules so far allow; `remaining` has each applied
  // category undone, so that the next is judged on what is left.
  const bool additive = !AllowsFutureCommands();
  std::string rules = additive ? "-@all " : "+@all ";
  AclSelector fake(*commands_, false);
  fake.SetAll(!additive);
  AclSelector remaining = *this;
  const std::vector<std::string_view>& categories = AclCategoryNames();
  std::vector<bool> applied(categories.size(), false);
  for (;;) {
    int best = -1;
    size_t min_diff = INT_MAX, max_same = 0;
    for (size_t j = 0; j < categories.size(); ++j) {
      if (applied[j]) continue;
      size_t on = 0, off = 0;
      remaining.CountCategory(uint32_t{1} << j, &on, &off);
      const size_t diff = additive ? off : on;
      const size_t same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = static_cast<int>(j);
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    const uint32_t category = uint32_t{1} << best;
    fake.ChangeCategory(category, additive);
    remaining.ChangeCategory(category, !additive);
    rules += std::string(additive ? "+@" : "-@") + std::string(categories[static_cast<size_t>(best)]) + " ";
    applied[static_cast<size_t>(best)] = true;
  }
  auto single = [&](int id) {
    const bool user_bit = Bit(id);
    if (user_bit == fake.Bit(id)) return;
    rules += (user_bit ? "+" : "-") + (*commands_)[id].name + " ";
    fake.ChangeCommand(id, user_bit);
  };
  for (int id = 0; id < commands_->size(); ++id) {
    const AclCommandSet::Command& command = (*commands_)[id];
    if (command.parent >= 0) continue;
    single(id);
    for (const int sub : command.subcommands) single(sub);
    const auto it = first_args_.find(id);
    if (Bit(id) || it == first_args_.end()) continue;
    for (const std::string& arg : it->second) rules += "+" + command.name + "|" + arg + " ";
  }
  rules.pop_back();
  return rules;
}

std::string AclSelector::DescribeKeys() const {
  if (all_keys_) return "~*";
  std::string text;
  for (const KeyPattern& p : keys_) text += (text.empty() ? "" : " ") + PatternText(p);
  return text;
}

std::string AclSelector::DescribeChannels() const {
  if (all_channels_) return "&*";
  std::string text;
  for (const std::string& p : channels_) text += (text.empty() ? "&" : " &") + p;
  return text;
}

std::string AclSelector::Describe() const {
  std::string text;
  if (all_keys_) {
    text = "~* ";
  } else {
    for (const KeyPattern& p : keys_) text += PatternText(p) + " ";
  }
  if (all_channels_) {
    text += "&* ";
  } else {
    text += "resetchannels ";
    for (const std::string& p : channels_) text += "&" + p + " ";
  }
  return text + DescribeCommands();
}

}  // namespace teksdb::server
