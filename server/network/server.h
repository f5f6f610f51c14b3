// Server: teksdb-server's listening socket and I/O threads (Asio). Accepts
// connections and hands each to a Connection, or refuses it with Redis's
// error: past maxclients, connections and replicas being fed together
// ("-ERR max number of clients reached"), or, in
// protected mode with no password set, from an address not on the loopback
// interface ("-DENIED ..."); both count in INFO's rejected_connections.
// Out of descriptors (EMFILE, ENFILE), it waits kAcceptBackoffMs before it
// accepts again rather than spin, logging once per episode. Every kCronMs (a
// timer on the same threads) it samples the ops/s for INFO, closes MIGRATE's
// connections unused for 10 s and has clients check their output soft
// limits (Cron); Stop (from SHUTDOWN or a signal) stops a running script,
// stops accepting and ends Run once the threads return. CONFIG SET bind or
// port moves the listening socket (Listen, installed as the state's
// ListenAddress mover): the new one is bound first, then swapped in on
// the accept strand.
//
// Event loops: one per I/O thread, each run by its thread alone. The first
// (io_, run by Run's caller) also holds the listening socket, the signals
// and the cron; each accepted connection lives on one loop (round robin),
// so a request's read, run and reply stay on one thread, never handed to
// another (a hand-off between threads that share one loop costs futex
// calls and wake-ups per request).
//
// Thread safety: Run blocks the calling thread and `threads - 1` more, each
// running its loop (loops stopped before Run starts return at once); Stop and Listen may be called from any thread; the
// acceptor is touched only on accept_strand_ once Run started.
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "connection.h"

namespace teksdb::server {

class Server {
 public:
  // Binds to bind:port, for `threads` I/O threads; on failure, `error`
  // says why and Run must not be called.
  Server(ServerState* state, const std::string& bind, uint16_t port, int threads,
         std::string* error);
  void Run();
  void Stop();
  // Where it first listened (after Listen: the state's ListenAddress).
  uint16_t port() const { return port_; }
  // Listens on bind:port instead; Redis's complaint (the old socket kept),
  // or empty.
  std::string Listen(const std::string& bind, uint16_t port);

 private:
  static constexpr int kCronMs = 100;
  static constexpr int kAcceptBackoffMs = 100;
  // A listening socket on bind:port, or null with *error set.
  std::unique_ptr<asio::ip::tcp::acceptor> Open(const std::string& bind, uint16_t port,
                                                std::string* error);
  void Accept();
  // Writes Redis's refusal `error` to `socket` (best effort) and closes it.
  void Refuse(Connection::LoopSocket* socket, const char* error);
  void Cron();

  // The loop the next accepted connection lives on (on accept_strand_).
  asio::io_context& NextLoop();

  ServerState* const state_;
  // The other I/O threads' loops (fixed). Destroyed after io_, whose
  // pending accept holds a socket of one of them.
  std::vector<std::unique_ptr<asio::io_context>> loops_;
  asio::io_context io_{1};
  size_t next_loop_ = 0;  // 0: io_; i: loops_[i - 1] (on accept_strand_)
  asio::strand<asio::io_context::executor_type> accept_strand_;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor_;
  uint64_t acceptor_generation_ = 0;  // a new one per Listen (on accept_strand_)
  uint16_t port_ = 0;
  asio::signal_set signals_;
  asio::steady_timer cron_timer_;
  asio::steady_timer accept_backoff_;
  bool backing_off_logged_ = false;  // the descriptors' exhaustion was logged
};

}  // namespace teksdb::server
