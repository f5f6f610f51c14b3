// ClientRegistry implementation.
#include "client_registry.h"

#include <algorithm>

namespace teksdb::server {

void ClientRegistry::Add(const std::shared_ptr<Info>& info, const std::shared_ptr<Closer>& closer,
                         const std::shared_ptr<Subscriber>& subscriber) {
  std::lock_guard<std::mutex> lock(mu_);
  clients_[info->id] = Entry{info, closer, subscriber};
}

std::shared_ptr<Subscriber> ClientRegistry::SubscriberOf(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second.subscriber.lock();
}

void ClientRegistry::Remove(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  clients_.erase(id);
}

std::vector<std::shared_ptr<ClientRegistry::Info>> ClientRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<Info>> infos;
  for (const auto& [id, entry] : clients_) infos.push_back(entry.info);
  return infos;
}

bool ClientRegistry::Unblock(uint64_t id, bool with_error) const {
  std::shared_ptr<Closer> closer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = clients_.find(id);
    if (it != clients_.end()) closer = it->second.closer.lock();
  }
  return closer != nullptr && closer->Unblock(with_error);
}

int64_t ClientRegistry::Close(const std::function<bool(const Info&)>& match) {
  std::vector<std::shared_ptr<Closer>> closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = clients_.begin(); it != clients_.end();) {
      if (!match(*it->second.info)) {
        ++it;
        continue;
      }
      if (auto closer = it->second.closer.lock()) closing.push_back(std::move(closer));
      ForgetMemory(*it->second.info);
      it = clients_.erase(it);
    }
  }
  for (const auto& closer : closing) closer->Close();
  return static_cast<int64_t>(closing.size());
}

void ClientRegistry::CheckOutputLimits() const {
  std::vector<std::shared_ptr<Closer>> holding;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, entry] : clients_) {
      if (entry.info->output_bytes.load(std::memory_order_relaxed) == 0) continue;
      if (auto closer = entry.closer.lock()) holding.push_back(std::move(closer));
    }
  }
  for (const auto& closer : holding) closer->CheckLimits();
}

void ClientRegistry::SetEvictionLimit(int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    eviction_limit_.store(bytes, std::memory_order_relaxed);
    // What each connection published while nothing was counted.
    if (bytes > 0) {
      for (const auto& [id, entry] : clients_) {
        PublishMemory(*entry.info, entry.info->memory_bytes.load(std::memory_order_relaxed));
      }
    }
  }
  EvictOverLimit();
}

bool ClientRegistry::PublishMemory(Info& info, int64_t bytes) {
  info.memory_bytes.store(bytes, std::memory_order_relaxed);
  const int64_t limit = eviction_limit_.load(std::memory_order_relaxed);
  if (limit == 0 || info.gone.load(std::memory_order_relaxed)) return false;
  const int64_t counted = info.no_evict.load(std::memory_order_relaxed) ? 0 : bytes;
  const int64_t delta = counted - info.counted_bytes.exchange(counted, std::memory_order_relaxed);
  if (delta == 0) return false;
  return counted_total_.fetch_add(delta, std::memory_order_relaxed) + delta >= limit;
}

void ClientRegistry::ForgetMemory(Info& info) {
  info.gone.store(true, std::memory_order_relaxed);
  counted_total_.fetch_sub(info.counted_bytes.exchange(0, std::memory_order_relaxed),
                           std::memory_order_relaxed);
}

int64_t ClientRegistry::EvictOverLimit() {
  std::vector<std::shared_ptr<Closer>> evicting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t limit = eviction_limit_.load(std::memory_order_relaxed);
    if (limit == 0 || counted_total_.load(std::memory_order_relaxed) < limit) return 0;
    std::vector<std::pair<int64_t, uint64_t>> largest;  // (bytes, id)
    for (const auto& [id, entry] : clients_) {
      if (entry.info->no_evict.load(std::memory_order_relaxed)) continue;
      largest.emplace_back(entry.info->counted_bytes.load(std::memory_order_relaxed), id);
    }
    std::sort(largest.begin(), largest.end(), std::greater<>());
    for (const auto& [bytes, id] : largest) {
      if (counted_total_.load(std::memory_order_relaxed) < limit) break;
      const auto it = clients_.find(id);
      ForgetMemory(*it->second.info);
      if (auto closer = it->second.closer.lock()) evicting.push_back(std::move(closer));
      clients_.erase(it);
    }
  }
  evicted_.fetch_add(static_cast<int64_t>(evicting.size()), std::memory_order_relaxed);
  for (const auto& closer : evicting) closer->Evict();
  return static_cast<int64_t>(evicting.size());
}

}  // namespace teksdb::server
