// ClientRegistry implementation.
#include "client_registry.h"

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

}  // namespace teksdb::server
