// RequiredPassword: the password AUTH asks for (--requirepass, CONFIG SET
// requirepass); empty: none. A change holds for connections made after it,
// and for AUTH; connections already authenticated stay so, as in Redis.
// A candidate is compared in time that depends on neither password's
// bytes (both are hashed to SHA-256, as Redis's ACL compares their
// hashes, and the digests compared in full), so timing tells an attacker
// nothing of the password.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <nettle/sha2.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace teksdb::server {

class RequiredPassword {
 public:
  void Set(const std::string& password) {
    std::lock_guard<std::mutex> lock(mu_);
    password_ = password;
    digest_ = Hash(password);
    required_.store(!password.empty(), std::memory_order_release);
  }
  std::string Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return password_;
  }
  bool required() const { return required_.load(std::memory_order_acquire); }
  bool Matches(const std::string& candidate) const {
    const Digest given = Hash(candidate);
    std::lock_guard<std::mutex> lock(mu_);
    unsigned char differ = 0;
    for (size_t i = 0; i < given.size(); ++i) differ |= given[i] ^ digest_[i];
    return differ == 0;
  }

 private:
  using Digest = std::array<uint8_t, SHA256_DIGEST_SIZE>;
  static Digest Hash(const std::string& text) {
    sha256_ctx context;
    sha256_init(&context);
    sha256_update(&context, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
    Digest digest;
    sha256_digest(&context, digest.size(), digest.data());
    return digest;
  }

  mutable std::mutex mu_;
  std::string password_;
  Digest digest_ = Hash("");
  std::atomic<bool> required_{false};
};

}  // namespace teksdb::server
