// Server: teksdb-server's listening socket and I/O threads (Asio). Accepts
// connections and hands each to a Connection; every kCronMs (a timer on
// the same threads) samples the ops/s for INFO and closes MIGRATE's
// connections unused for 10 s (Cron); Stop (from SHUTDOWN or a
// signal) stops a running script, stops accepting and ends Run once the
// threads return.
//
// Thread safety: Run blocks the calling thread and `threads - 1` more, all
// running the io_context; Stop may be called from any thread.
#pragma once

#include <asio.hpp>
#include <string>

#include "commands.h"

namespace teksdb::server {

class Server {
 public:
  // Binds to bind:port; on failure, `error` says why and Run must not be called.
  Server(ServerState* state, const std::string& bind, uint16_t port, std::string* error);
  void Run(int threads);
  void Stop();
  uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  static constexpr int kCronMs = 100;
  void Accept();
  void Cron();

  ServerState* const state_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer cron_timer_;
};

}  // namespace teksdb::server
