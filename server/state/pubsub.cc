// PubSub implementation: maps from names to subscribers; delivery outside
// the mutex (a subscriber's Deliver only queues the message).
#include "pubsub.h"

#include <algorithm>
#include <optional>

#include "glob_match.h"

namespace teksdb::server {

void PubSub::Add(Kind kind, const std::string& name, const std::shared_ptr<Subscriber>& subscriber) {
  std::lock_guard<std::mutex> lock(mu_);
  MapOf(kind)[name].push_back(Entry{subscriber.get(), subscriber});
}

void PubSub::Remove(Kind kind, const std::string& name, const Subscriber* subscriber) {
  std::lock_guard<std::mutex> lock(mu_);
  Map& map = MapOf(kind);
  const auto it = map.find(name);
  if (it == map.end()) return;
  auto& entries = it->second;
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [subscriber](const Entry& e) { return e.id == subscriber; }),
                entries.end());
  if (entries.empty()) map.erase(it);
}

int64_t PubSub::Publish(const std::string& channel, const std::string& message, bool shard) {
  struct Delivery {
    std::shared_ptr<Subscriber> to;
    std::optional<std::string> pattern;
  };
  std::vector<Delivery> deliveries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Map& direct = shard ? shards_ : channels_;
    const auto it = direct.find(channel);
    if (it != direct.end()) {
      for (const Entry& e : it->second) {
        if (auto s = e.subscriber.lock()) deliveries.push_back({std::move(s), std::nullopt});
      }
    }
    for (const auto& [pattern, entries] : patterns_) {
      if (shard || !GlobMatch(pattern, channel)) continue;
      for (const Entry& e : entries) {
        if (auto s = e.subscriber.lock()) deliveries.push_back({std::move(s), pattern});
      }
    }
  }
  for (const Delivery& d : deliveries) {
    d.to->Deliver(channel, d.pattern ? &*d.pattern : nullptr, message, shard);
  }
  return static_cast<int64_t>(deliveries.size());
}

std::vector<std::string> PubSub::Channels(Kind kind, const std::string* pattern) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, entries] : MapOf(kind)) {
    if (!pattern || GlobMatch(*pattern, name)) names.push_back(name);
  }
  return names;
}

int64_t PubSub::Subscribers(Kind kind, const std::string& channel) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Map& map = MapOf(kind);
  const auto it = map.find(channel);
  return it == map.end() ? 0 : static_cast<int64_t>(it->second.size());
}

int64_t PubSub::PatternCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(patterns_.size());
}

std::vector<std::string> PubSub::SubscriptionsOf(Kind kind, const Subscriber* subscriber) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, entries] : MapOf(kind)) {
    for (const Entry& entry : entries) {
      if (entry.id == subscriber) {
        names.push_back(name);
        break;
      }
    }
  }
  return names;
}

}  // namespace teksdb::server
