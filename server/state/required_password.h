// RequiredPassword: the password AUTH asks for (--requirepass, CONFIG SET
// requirepass); empty: none. A change holds for connections made after it,
// and for AUTH; connections already authenticated stay so, as in Redis.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace teksdb::server {

class RequiredPassword {
 public:
  void Set(const std::string& password) {
    std::lock_guard<std::mutex> lock(mu_);
    password_ = password;
    required_.store(!password.empty(), std::memory_order_release);
  }
  std::string Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return password_;
  }
  bool required() const { return required_.load(std::memory_order_acquire); }
  bool Matches(const std::string& candidate) const {
    std::lock_guard<std::mutex> lock(mu_);
    return candidate == password_;
  }

 private:
  mutable std::mutex mu_;
  std::string password_;
  std::atomic<bool> required_{false};
};

}  // namespace teksdb::server
