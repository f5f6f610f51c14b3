// WatchedKeys implementation: a map from key to its watchers, under one
// mutex (WATCH is rare next to the writes that only read any()).
#include "watched_keys.h"

#include <algorithm>

namespace teksdb::server {

void WatchedKeys::Watch(Watcher* watcher, const std::string& key, bool expired) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::find(watcher->keys.begin(), watcher->keys.end(), key) != watcher->keys.end()) return;
  watcher->keys.push_back(key);
  by_key_[key].push_back(Entry{watcher, expired});
  watches_.fetch_add(1, std::memory_order_relaxed);
}

void WatchedKeys::UnwatchAll(Watcher* watcher) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& key : watcher->keys) {
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) continue;
    auto& entries = it->second;
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [watcher](const Entry& e) { return e.watcher == watcher; }),
                  entries.end());
    if (entries.empty()) by_key_.erase(it);
    watches_.fetch_sub(1, std::memory_order_relaxed);
  }
  watcher->keys.clear();
  watcher->dirty = false;
}

bool WatchedKeys::Dirty(const Watcher* watcher, std::vector<std::string>* live_at_watch) const {
  std::lock_guard<std::mutex> lock(mu_);
  live_at_watch->clear();
  for (const std::string& key : watcher->keys) {
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) continue;
    for (const Entry& e : it->second) {
      if (e.watcher == watcher && !e.expired) live_at_watch->push_back(key);
    }
  }
  return watcher->dirty;
}

void WatchedKeys::Touch(const std::string& key, bool deleted) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  for (Entry& e : it->second) {
    if (e.expired && deleted) {
      e.expired = false;  // the expired key is gone: logically no change
      continue;
    }
    e.watcher->dirty = true;
  }
}

void WatchedKeys::Replace(const std::string& key, bool existed, bool replacement_exists,
                          bool replacement_expired) {
  if (!existed && !replacement_exists) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  for (Entry& e : it->second) {
    if (e.expired) {
      if (!replacement_exists) {
        e.expired = false;  // the expired key is gone: logically no change
        continue;
      }
      if (replacement_expired) continue;  // still expired
    } else if (!existed && replacement_expired) {
      e.expired = true;  // none gave way to an expired key
      continue;
    }
    e.watcher->dirty = true;
  }
}

std::vector<std::string> WatchedKeys::Keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(by_key_.size());
  for (const auto& [key, entries] : by_key_) keys.push_back(key);
  return keys;
}

}  // namespace teksdb::server
