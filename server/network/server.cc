// Server implementation: the accept loop, signals, and the thread pool.
#include "server.h"

#include <memory>
#include <thread>
#include <vector>

#include "connection.h"
#include "script_engine.h"

namespace teksdb::server {

Server::Server(ServerState* state, const std::string& bind, uint16_t port, std::string* error)
    : state_(state), acceptor_(io_), signals_(io_, SIGINT, SIGTERM), cron_timer_(io_) {
  asio::error_code ec;
  const asio::ip::address address = asio::ip::make_address(bind, ec);
  if (ec) {
    *error = "bad --bind address '" + bind + "': " + ec.message();
    return;
  }
  const asio::ip::tcp::endpoint endpoint(address, port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) *error = "cannot listen on " + bind + ":" + std::to_string(port) + ": " + ec.message();
}

void Server::Accept() {
  acceptor_.async_accept([this](const asio::error_code& error, asio::ip::tcp::socket socket) {
    if (!acceptor_.is_open()) return;
    if (!error) {
      asio::error_code ignored;
      socket.set_option(asio::ip::tcp::no_delay(true), ignored);
      std::make_shared<Connection>(std::move(socket), state_)->Start();
    }
    Accept();
  });
}

void Server::Cron() {
  const int64_t now_ms = Keyspace::NowMs();
  state_->stats.SampleOps(now_ms, state_->commands.load(std::memory_order_relaxed));
  state_->migrate_sockets.CloseIdle(now_ms);
  cron_timer_.expires_after(std::chrono::milliseconds(kCronMs));
  cron_timer_.async_wait([this](const asio::error_code& error) {
    if (!error) Cron();
  });
}

void Server::Run(int threads) {
  signals_.async_wait([this](const asio::error_code& error, int) {
    if (!error) Stop();
  });
  Accept();
  Cron();
  // A busy script serves the other clients from its hook (running_script.h).
  state_->scripts->running().set_serve_others([this] { io_.poll(); });
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([this] { io_.run(); });
  io_.run();
  for (std::thread& t : pool) t.join();
}

void Server::Stop() {
  state_->scripts->running().StopForShutdown();
  io_.stop();
}

}  // namespace teksdb::server
