// ListenAddress: where the server listens (CONFIG GET/SET bind and port),
// and how to move it: the network layer installs `move` (Server::Listen),
// which binds the new address before it lets go of the old one, so a
// failed move leaves the server where it was (Redis's "Unable to listen on
// this port", "Failed to bind to specified addresses").
//
// Thread safety: every member may be called from any thread; the mutex
// guards the address and the mover, which runs outside it.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace teksdb::server {

class ListenAddress {
 public:
  // Moves to bind:port; Redis's complaint, or empty.
  using Mover = std::function<std::string(const std::string& bind, uint16_t port)>;

  void Set(const std::string& bind, uint16_t port) {
    std::lock_guard<std::mutex> lock(mu_);
    bind_ = bind;
    port_ = port;
  }
  std::string bind() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bind_;
  }
  uint16_t port() const {
    std::lock_guard<std::mutex> lock(mu_);
    return port_;
  }
  void set_mover(Mover move) {
    std::lock_guard<std::mutex> lock(mu_);
    move_ = std::move(move);
  }
  // Listens on bind:port instead (the address kept only if it worked);
  // where it listens already, nothing to do (CONFIG SET of the value it has,
  // as Redis leaves it).
  std::string Move(const std::string& bind, uint16_t port) {
    Mover move;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (bind == bind_ && port == port_) return "";
      move = move_;
    }
    if (!move) return "the server is not listening yet";
    std::string error = move(bind, port);
    if (error.empty()) Set(bind, port);
    return error;
  }

 private:
  mutable std::mutex mu_;
  std::string bind_;
  uint16_t port_ = 0;
  Mover move_;
};

}  // namespace teksdb::server
