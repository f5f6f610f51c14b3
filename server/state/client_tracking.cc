// ClientTracking implementation: the tables, prefix checks, and the
// messages by mode.
#include "client_tracking.h"

#include <algorithm>

namespace teksdb::server {
namespace {

// Two prefixes collide when one starts the other (Redis's rule: a key
// would be invalidated twice).
bool Collide(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  return a.compare(0, n, b, 0, n) == 0;
}

bool StartsWith(const std::string& key, const std::string& prefix) {
  return key.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string ClientTracking::Enable(uint64_t id, const Options& options,
                                   const std::weak_ptr<Subscriber>& self) {
  if (!options.bcast && !options.prefixes.empty()) {
    return "ERR PREFIX option requires BCAST mode to be enabled";
  }
  std::lock_guard<std::mutex> lock(mu_);
  const auto existing = tracking_clients_.find(id);
  if (existing != tracking_clients_.end() && existing->second.options.bcast != options.bcast) {
    return "ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
           "and then re-enabling it with a different mode.";
  }
  if (options.bcast && (options.optin || options.optout)) {
    return "ERR OPTIN and OPTOUT are not compatible with BCAST";
  }
  if (options.optin && options.optout) {
    return "ERR You can't specify both OPTIN mode and OPTOUT mode";
  }
  if (existing != tracking_clients_.end() &&
      ((options.optin && existing->second.options.optout) ||
       (options.optout && existing->second.options.optin))) {
    return "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
           "and then re-enabling it with a different mode.";
  }
  std::vector<std::string> prefixes;
  if (existing != tracking_clients_.end()) prefixes = existing->second.options.prefixes;
  for (size_t i = 0; i < options.prefixes.size(); ++i) {
    const std::string& p = options.prefixes[i];
    for (const std::string& old : prefixes) {
      if (Collide(p, old)) {
        return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + old +
               "'. Prefixes for a single client must not overlap.";
      }
    }
    for (size_t j = i + 1; j < options.prefixes.size(); ++j) {
      if (Collide(p, options.prefixes[j])) {
        return "ERR Prefix '" + p + "' overlaps with another provided prefix '" +
               options.prefixes[j] + "'. Prefixes for a single client must not overlap.";
      }
    }
  }
  for (const std::string& p : options.prefixes) prefixes.push_back(p);
  if (options.bcast && prefixes.empty()) prefixes.push_back("");
  Client& client = tracking_clients_[id];
  client.options = options;
  client.options.prefixes = std::move(prefixes);
  client.self = self;
  client.broken_redirect = false;
  tracking_.store(tracking_clients_.size(), std::memory_order_relaxed);
  return "";
}

void ClientTracking::Disable(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  // What it read stays remembered, as in Redis (the next write of those
  // keys skips a client no longer tracking), until nobody tracks: then
  // nothing would ever forget it (writes stop telling this table).
  tracking_clients_.erase(id);
  tracking_.store(tracking_clients_.size(), std::memory_order_relaxed);
  if (tracking_clients_.empty()) {
    remembered_.clear();
    remembered_order_.clear();
    remembered_items_ = 0;
  }
}

bool ClientTracking::Get(uint64_t id, State* state) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = tracking_clients_.find(id);
  if (it == tracking_clients_.end()) return false;
  state->options = it->second.options;
  state->broken_redirect = it->second.broken_redirect;
  return true;
}

void ClientTracking::Remember(uint64_t id, const std::vector<std::string>& keys,
                              bool caching_given) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = tracking_clients_.find(id);
  if (it == tracking_clients_.end() || it->second.options.bcast) return;
  const Options& options = it->second.options;
  if ((options.optin && !caching_given) || (options.optout && caching_given)) return;
  for (const std::string& key : keys) {
    auto [it, fresh] = remembered_.try_emplace(key);
    if (fresh) remembered_order_.push_back(key);
    if (it->second.insert(id).second) ++remembered_items_;
  }
  EvictOverLimit();
}

void ClientTracking::SetMaxKeys(size_t n) {
  max_keys_.store(n, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  EvictOverLimit();
}

void ClientTracking::EvictOverLimit() {
  const size_t limit = max_keys_.load(std::memory_order_relaxed);
  while (limit > 0 && remembered_.size() > limit && !remembered_order_.empty()) {
    const std::string key = std::move(remembered_order_.front());
    remembered_order_.pop_front();
    Invalidate(key, 0);
  }
  // Keys forgotten by writes leave names behind in the order: drop those
  // once they outnumber the live keys.
  if (remembered_order_.size() > 2 * remembered_.size() + 1024) {
    std::deque<std::string> live;
    for (std::string& key : remembered_order_) {
      if (remembered_.count(key) > 0) live.push_back(std::move(key));
    }
    remembered_order_ = std::move(live);
  }
}

void ClientTracking::Invalidate(const std::string& key, uint64_t writer) {
  const auto it = remembered_.find(key);
  if (it == remembered_.end()) return;
  const std::set<uint64_t> readers = std::move(it->second);
  remembered_items_ -= readers.size();
  remembered_.erase(it);
  for (const uint64_t id : readers) {
    const auto client = tracking_clients_.find(id);
    if (client == tracking_clients_.end() || client->second.options.bcast) continue;
    if (client->second.options.noloop && id == writer) continue;
    const std::vector<std::string> one{key};
    Send(client->second, &one);
  }
}

size_t ClientTracking::keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remembered_.size();
}

size_t ClientTracking::items() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remembered_items_;
}

size_t ClientTracking::prefixes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> all;
  for (const auto& [id, client] : tracking_clients_) {
    if (client.options.bcast) all.insert(client.options.prefixes.begin(), client.options.prefixes.end());
  }
  return all.size();
}

void ClientTracking::Send(Client& client, const std::vector<std::string>* keys) {
  if (client.options.redirect == 0) {
    if (auto self = client.self.lock()) self->DeliverInvalidation(keys, false);
    return;
  }
  if (auto target = clients_->SubscriberOf(client.options.redirect)) {
    target->DeliverInvalidation(keys, true);
    return;
  }
  client.broken_redirect = true;
  if (auto self = client.self.lock()) self->DeliverRedirectBroken(client.options.redirect);
}

void ClientTracking::Written(const std::vector<std::string>& keys, uint64_t writer) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& key : keys) Invalidate(key, writer);
  for (auto& [id, client] : tracking_clients_) {
    if (!client.options.bcast) continue;
    if (client.options.noloop && id == writer) continue;
    for (const std::string& prefix : client.options.prefixes) {
      std::vector<std::string> matching;
      for (const std::string& key : keys) {
        if (StartsWith(key, prefix) &&
            std::find(matching.begin(), matching.end(), key) == matching.end()) {
          matching.push_back(key);
        }
      }
      if (!matching.empty()) Send(client, &matching);
    }
  }
}

void ClientTracking::Cleared(uint64_t /*writer*/) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& entry : tracking_clients_) Send(entry.second, nullptr);
  remembered_.clear();
  remembered_order_.clear();
  remembered_items_ = 0;
}

}  // namespace teksdb::server
