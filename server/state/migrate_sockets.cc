// MIGRATE's connection cache of migrate_sockets.h.
#include "migrate_sockets.h"

namespace teksdb::server {
namespace {

constexpr size_t kMaxSockets = 64;      // MIGRATE_SOCKET_CACHE_ITEMS
constexpr int64_t kIdleMs = 10 * 1000;  // MIGRATE_SOCKET_CACHE_TTL

std::string Name(const std::string& host, const std::string& port) { return host + ":" + port; }

}  // namespace

std::unique_ptr<MigrateSockets::Cached> MigrateSockets::Take(const std::string& host,
                                                             const std::string& port,
                                                             int timeout_ms, std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = sockets_.find(Name(host, port));
    if (it != sockets_.end()) {
      std::unique_ptr<Cached> cached = std::move(it->second.cached);
      sockets_.erase(it);
      cached->reused = true;
      cached->socket->SetTimeout(timeout_ms);
      return cached;
    }
  }
  auto cached = std::make_unique<Cached>();
  cached->socket = std::make_unique<RespSocket>();
  if (!cached->socket->Connect(host, port, timeout_ms, error)) return nullptr;
  return cached;
}

void MigrateSockets::Return(const std::string& host, const std::string& port,
                            std::unique_ptr<Cached> cached, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  // Full: one kept connection goes, as Redis closes a random one.
  if (sockets_.size() >= kMaxSockets && sockets_.count(Name(host, port)) == 0) {
    sockets_.erase(sockets_.begin());
  }
  cached->reused = false;
  sockets_[Name(host, port)] = Entry{std::move(cached), now_ms};
}

void MigrateSockets::CloseIdle(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = sockets_.begin(); it != sockets_.end();) {
    it = now_ms - it->second.last_use_ms > kIdleMs ? sockets_.erase(it) : std::next(it);
  }
}

size_t MigrateSockets::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sockets_.size();
}

}  // namespace teksdb::server
