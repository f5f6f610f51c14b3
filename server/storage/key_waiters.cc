// KeyWaiters implementation.
#include "key_waiters.h"

#include <algorithm>

namespace teksdb::server {

void KeyWaiters::Add(const std::string& key, const std::shared_ptr<Waiter>& waiter,
                     bool wake_on_delete) {
  std::lock_guard<std::mutex> lock(mu_);
  by_key_[key].push_back(Entry{waiter.get(), waiter, wake_on_delete});
  waiting_.fetch_add(1, std::memory_order_relaxed);
}

void KeyWaiters::Remove(const std::string& key, const Waiter* waiter) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  auto& entries = it->second;
  const auto end = std::remove_if(entries.begin(), entries.end(),
                                  [waiter](const Entry& e) { return e.id == waiter; });
  waiting_.fetch_sub(static_cast<size_t>(entries.end() - end), std::memory_order_relaxed);
  entries.erase(end, entries.end());
  if (entries.empty()) by_key_.erase(it);
}

std::vector<std::shared_ptr<KeyWaiters::Waiter>> KeyWaiters::InOrder(
    const std::vector<Entry>& entries, bool deleted) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  for (const Entry& e : entries) {
    if (deleted && !e.wake_on_delete) continue;
    if (auto w = e.waiter.lock()) waiters.push_back(std::move(w));
  }
  return waiters;
}

void KeyWaiters::Touch(const std::string& key) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) return;
    waiters = InOrder(it->second);
  }
  for (const auto& w : waiters) {
    if (w->TryWake(key)) return;
  }
}

void KeyWaiters::TouchAll(const std::string& key) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) return;
    waiters = InOrder(it->second);
  }
  for (const auto& w : waiters) w->TryWake(key);
}

void KeyWaiters::TouchDeleted(const std::string& key) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) return;
    waiters = InOrder(it->second, /*deleted=*/true);
  }
  for (const auto& w : waiters) w->TryWake(key);
}

std::vector<std::string> KeyWaiters::Keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(by_key_.size());
  for (const auto& [key, entries] : by_key_) keys.push_back(key);
  return keys;
}

}  // namespace teksdb::server
