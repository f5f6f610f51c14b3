// AclUser implementation: users' rules, passwords and the check of a
// request against every selector, after Redis 7.0's acl.c.
#include "acl_user.h"

#include <nettle/sha2.h>

#include <algorithm>
#include <cctype>

#include "ascii_case.h"
#include "redis_args.h"

namespace teksdb::server {
namespace {

bool ValidHash(std::string_view hash) {
  return hash.size() == 2 * SHA256_DIGEST_SIZE &&
         std::all_of(hash.begin(), hash.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Compares in time that depends only on the length (both are digests of
// one length), so that timing tells nothing of a stored password.
bool SameDigest(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ |= static_cast<unsigned char>(a[i] ^ b[i]);
  return differ == 0;
}

}  // namespace

std::string AclPasswordHash(std::string_view password) {
  sha256_ctx context;
  sha256_init(&context);
  sha256_update(&context, password.size(), reinterpret_cast<const uint8_t*>(password.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context, sizeof(digest), digest);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const uint8_t byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

bool ValidAclUserName(std::string_view name) {
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '\0' || std::isspace(static_cast<unsigned char>(c));
  });
}

std::vector<std::string> MergeSelectorRules(const std::vector<std::string>& rules,
                                            const std::string** unmatched) {
  std::vector<std::string> merged;
  const std::string* open = nullptr;
  std::string selector;
  for (const std::string& rule : rules) {
    if (open == nullptr && !rule.empty() && rule.front() == '(' && rule.back() != ')') {
      open = &rule;
      selector = rule;
      continue;
    }
    if (open != nullptr) {
      selector += " " + rule;
      if (!rule.empty() && rule.back() == ')') {
        merged.push_back(std::move(selector));
        open = nullptr;
      }
      continue;
    }
    merged.push_back(rule);
  }
  *unmatched = open;
  if (open != nullptr) merged.clear();
  return merged;
}

AclUser::AclUser(std::string name, const AclCommandSet& commands, bool all_channels)
    : name_(std::move(name)), commands_(&commands) {
  selectors_.emplace_back(commands, all_channels);
}

AclUser AclUser::Default(const AclCommandSet& commands) {
  AclUser user("default", commands, false);
  for (const char* rule : {"+@all", "~*", "&*", "on", "nopass"}) user.Apply(rule, false);
  return user;
}

AclRuleError AclUser::Apply(std::string_view rule, bool all_channels) {
  description_.clear();
  if (rule.empty()) return AclRuleError::kNone;
  if (AsciiEqualIgnoringCase(rule, "on") || AsciiEqualIgnoringCase(rule, "off")) {
    enabled_ = AsciiEqualIgnoringCase(rule, "on");
  } else if (AsciiEqualIgnoringCase(rule, "skip-sanitize-payload") ||
             AsciiEqualIgnoringCase(rule, "sanitize-payload")) {
    skip_sanitize_payload_ = AsciiEqualIgnoringCase(rule, "skip-sanitize-payload");
    sanitize_payload_ = !skip_sanitize_payload_;
  } else if (AsciiEqualIgnoringCase(rule, "nopass") || AsciiEqualIgnoringCase(rule, "resetpass")) {
    nopass_ = AsciiEqualIgnoringCase(rule, "nopass");
    passwords_.clear();
  } else if (rule[0] == '>' || rule[0] == '#') {
    std::string hash = rule[0] == '>' ? AclPasswordHash(rule.substr(1)) : std::string(rule.substr(1));
    if (!ValidHash(hash)) return AclRuleError::kBadHash;
    if (std::find(passwords_.begin(), passwords_.end(), hash) == passwords_.end()) {
      passwords_.push_back(std::move(hash));
    }
    nopass_ = false;
  } else if (rule[0] == '<' || rule[0] == '!') {
    const std::string hash =
        rule[0] == '<' ? AclPasswordHash(rule.substr(1)) : std::string(rule.substr(1));
    if (!ValidHash(hash)) return AclRuleError::kBadHash;
    const auto it = std::find(passwords_.begin(), passwords_.end(), hash);
    if (it == passwords_.end()) return AclRuleError::kNoSuchPassword;
    passwords_.erase(it);
  } else if (rule.size() >= 2 && rule.front() == '(' && rule.back() == ')') {
    std::vector<std::string> inner;
    if (!SplitRedisArgs(rule.substr(1, rule.size() - 2), &inner)) return AclRuleError::kSyntax;
    AclSelector selector(*commands_, all_channels);
    for (const std::string& r : inner) {
      if (const AclRuleError error = selector.Apply(r); error != AclRuleError::kNone) return error;
    }
    selectors_.push_back(std::move(selector));
  } else if (AsciiEqualIgnoringCase(rule, "clearselectors")) {
    selectors_.erase(selectors_.begin() + 1, selectors_.end());
  } else if (AsciiEqualIgnoringCase(rule, "reset")) {
    for (const char* r : {"resetpass", "resetkeys", "resetchannels"}) Apply(r, all_channels);
    if (all_channels) Apply("allchannels", all_channels);
    for (const char* r : {"off", "sanitize-payload", "clearselectors", "-@all"}) Apply(r, all_channels);
  } else {
    return selectors_.front().Apply(rule);
  }
  return AclRuleError::kNone;
}

std::string AclUser::ApplyRules(const std::vector<std::string>& rules, bool all_channels) {
  const std::string* unmatched = nullptr;
  const std::vector<std::string> merged = MergeSelectorRules(rules, &unmatched);
  if (unmatched != nullptr) {
    return "Unmatched parenthesis in acl selector starting at '" + *unmatched + "'.";
  }
  AclUser changed = *this;
  for (const std::string& rule : merged) {
    if (const AclRuleError error = changed.Apply(rule, all_channels); error != AclRuleError::kNone) {
      return "Error in ACL SETUSER modifier '" + rule + "': " + AclRuleErrorText(error);
    }
  }
  *this = std::move(changed);
  return "";
}

bool AclUser::Accepts(std::string_view password) const {
  if (!enabled_) return false;
  if (nopass_) return true;
  const std::string hash = AclPasswordHash(password);
  bool match = false;
  for (const std::string& stored : passwords_) match |= SameDigest(hash, stored);
  return match;
}

std::vector<std::string> AclUser::Flags() const {
  std::vector<std::string> flags = {enabled_ ? "on" : "off"};
  if (nopass_) flags.emplace_back("nopass");
  if (skip_sanitize_payload_) flags.emplace_back("skip-sanitize-payload");
  if (sanitize_payload_) flags.emplace_back("sanitize-payload");
  return flags;
}

std::string AclUser::Describe() const {
  std::string text;
  for (const std::string& flag : Flags()) text += flag + " ";
  for (const std::string& hash : passwords_) text += "#" + hash + " ";
  text += selectors_.front().Describe();
  for (size_t i = 1; i < selectors_.size(); ++i) text += " (" + selectors_[i].Describe() + ")";
  return text;
}

// A request as the selectors check it: its keys and channels found once,
// when a selector first needs them.
class AclUser::RequestView {
 public:
  RequestView(int id, const std::vector<std::string>& args,
              const std::function<std::vector<AclKey>()>& keys,
              const std::function<std::vector<AclChannel>()>& channels)
      : id_(id), args_(args), find_keys_(keys), find_channels_(channels) {}

  // The selector's verdict (the position of a command denied is 0).
  AclVerdict CheckedBy(const AclSelector& selector) {
    if (!selector.AllowsCommand(id_, args_)) return {AclVerdict::kCommand, 0};
    if (!selector.all_keys()) {
      if (!keys_found_) keys_ = find_keys_();
      keys_found_ = true;
      for (const AclKey& key : keys_) {
        if (!selector.AllowsKey(args_[key.position], key.access)) return {AclVerdict::kKey, key.position};
      }
    }
    if (!selector.all_channels()) {
      if (!channels_found_) channels_ = find_channels_();
      channels_found_ = true;
      for (const AclChannel& channel : channels_) {
        if (!selector.AllowsChannel(args_[channel.position], channel.is_pattern)) {
          return {AclVerdict::kChannel, channel.position};
        }
      }
    }
    return {};
  }

 private:
  const int id_;
  const std::vector<std::string>& args_;
  const std::function<std::vector<AclKey>()>& find_keys_;
  const std::function<std::vector<AclChannel>()>& find_channels_;
  std::vector<AclKey> keys_;
  std::vector<AclChannel> channels_;
  bool keys_found_ = false, channels_found_ = false;
};

AclVerdict AclUser::Check(int id, const std::vector<std::string>& args,
                          const std::function<std::vector<AclKey>()>& keys,
                          const std::function<std::vector<AclChannel>()>& channels) const {
  // Of the denials, Redis reports the gravest reason, and of equal ones
  // the argument furthest along.
  RequestView request(id, args, keys, channels);
  AclVerdict relevant{AclVerdict::kCommand, 0};
  for (const AclSelector& selector : selectors_) {
    const AclVerdict verdict = request.CheckedBy(selector);
    if (verdict.allowed()) return verdict;
    if (verdict.reason > relevant.reason ||
        (verdict.reason == relevant.reason && verdict.position > relevant.position)) {
      relevant = verdict;
    }
  }
  return relevant;
}

bool AclUser::AllowsWithAnyKey(int id, const std::vector<std::string>& args,
                               const std::function<std::vector<AclKey>()>& keys,
                               const std::function<std::vector<AclChannel>()>& channels,
                               uint8_t access) const {
  RequestView request(id, args, keys, channels);
  return std::any_of(selectors_.begin(), selectors_.end(), [&](const AclSelector& selector) {
    return request.CheckedBy(selector).allowed() && selector.AllowsEveryKey(access);
  });
}

bool AclUser::AllowsChannel(std::string_view channel, bool is_pattern) const {
  return std::any_of(selectors_.begin(), selectors_.end(), [&](const AclSelector& s) {
    return s.AllowsChannel(channel, is_pattern);
  });
}

bool AclUser::AllChannels() const {
  return std::any_of(selectors_.begin(), selectors_.end(),
                     [](const AclSelector& s) { return s.all_channels(); });
}

}  // namespace teksdb::server
