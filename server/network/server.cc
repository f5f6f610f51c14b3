// Server implementation: the accept loop, signals, and the I/O threads'
// event loops.
#include "server.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "connection.h"
#include "replication.h"
#include "script_engine.h"

namespace teksdb::server {

Server::Server(ServerState* state, const std::string& bind, uint16_t port, int threads,
               std::string* error)
    : state_(state), accept_strand_(asio::make_strand(io_)), signals_(io_, SIGINT, SIGTERM),
      cron_timer_(io_), accept_backoff_(accept_strand_) {
  for (int i = 1; i < threads; ++i) loops_.push_back(std::make_unique<asio::io_context>(1));
  acceptor_ = Open(bind, port, error);
  if (acceptor_ != nullptr) port_ = acceptor_->local_endpoint().port();
}

std::unique_ptr<asio::ip::tcp::acceptor> Server::Open(const std::string& bind, uint16_t port,
                                                      std::string* error) {
  asio::error_code ec;
  const asio::ip::address address = asio::ip::make_address(bind, ec);
  if (ec) {
    *error = "bad bind address '" + bind + "': " + ec.message();
    return nullptr;
  }
  const asio::ip::tcp::endpoint endpoint(address, port);
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(accept_strand_);
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  // (Redis's words, which its test harness looks for to try another port.)
  if (ec) {
    *error = "Failed listening on port " + std::to_string(port) + " (tcp) of " + bind + ": " +
             ec.message();
    return nullptr;
  }
  return acceptor;
}

std::string Server::Listen(const std::string& bind, uint16_t port) {
  std::string error;
  asio::error_code ec;
  asio::ip::make_address(bind, ec);
  if (ec) return "Failed to bind to specified addresses.";
  std::shared_ptr<asio::ip::tcp::acceptor> fresh = Open(bind, port, &error);
  if (fresh == nullptr) return "Unable to listen on this port: " + error;
  asio::post(accept_strand_, [this, fresh]() mutable {
    asio::error_code ignored;
    acceptor_->close(ignored);  // its pending accept ends, of an older generation
    acceptor_ = std::make_unique<asio::ip::tcp::acceptor>(std::move(*fresh));
    ++acceptor_generation_;
    accept_backoff_.cancel();
    Accept();
  });
  return "";
}

namespace {
// Redis 7.0's refusals, word for word (clients match them).
constexpr const char* kMaxClientsError = "-ERR max number of clients reached\r\n";
constexpr const char* kProtectedModeError =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same host "
    "the server is running, however MAKE SURE Redis is not publicly accessible from internet if "
    "you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just "
    "disable the protected mode by editing the Redis configuration file, and setting the "
    "protected mode option to 'no', and then restarting the server. 3) If you started the server "
    "manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an "
    "authentication password for the default user. NOTE: You only need to do one of the above "
    "things in order for the server to start accepting connections from the outside.\r\n";

bool FromLoopback(const Connection::LoopSocket& socket) {
  asio::error_code error;
  const asio::ip::address peer = socket.remote_endpoint(error).address();
  if (error) return false;
  if (peer.is_v6() && peer.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, peer.to_v6()).is_loopback();
  }
  return peer.is_loopback();
}
}  // namespace

void Server::Refuse(Connection::LoopSocket* socket, const char* error) {
  state_->rejected_connections.fetch_add(1, std::memory_order_relaxed);
  asio::error_code ignored;
  socket->non_blocking(true, ignored);
  socket->write_some(asio::buffer(error, std::strlen(error)), ignored);
  socket->close(ignored);
}

asio::io_context& Server::NextLoop() {
  asio::io_context& loop = next_loop_ == 0 ? io_ : *loops_[next_loop_ - 1];
  next_loop_ = (next_loop_ + 1) % (loops_.size() + 1);
  return loop;
}

void Server::Accept() {
  const uint64_t generation = acceptor_generation_;
  acceptor_->async_accept(NextLoop(), asio::bind_executor(accept_strand_, [this, generation](
                                                         const asio::error_code& error,
                                                         Connection::LoopSocket socket) {
    if (generation != acceptor_generation_ || !acceptor_->is_open()) return;
    if (error == asio::error::no_descriptors || error.value() == ENFILE ||
        error == asio::error::no_buffer_space || error == asio::error::no_memory) {
      // The listening socket stays readable: accepting again at once would
      // spin. What holds descriptors may let go of them meanwhile.
      if (!backing_off_logged_) {
        std::fprintf(stderr, "teksdb-server: Error accepting a client connection: %s (retrying every %d ms)\n",
                     error.message().c_str(), kAcceptBackoffMs);
        backing_off_logged_ = true;
      }
      accept_backoff_.expires_after(std::chrono::milliseconds(kAcceptBackoffMs));
      accept_backoff_.async_wait([this, generation](const asio::error_code& cancelled) {
        if (!cancelled && generation == acceptor_generation_) Accept();
      });
      return;
    }
    if (!error) {
      backing_off_logged_ = false;
      const ClientLimits& limits = state_->client_limits;
      const int64_t clients = state_->connected.load(std::memory_order_relaxed) +
                              static_cast<int64_t>(state_->replication->feeds().Count());
      if (clients >= limits.maxclients.load(std::memory_order_relaxed)) {
        Refuse(&socket, kMaxClientsError);
      } else if (limits.protected_mode.load(std::memory_order_relaxed) &&
                 state_->acl.DefaultNoPass() && !FromLoopback(socket)) {
        Refuse(&socket, kProtectedModeError);
      } else {
        asio::error_code ignored;
        socket.set_option(asio::ip::tcp::no_delay(true), ignored);
        std::make_shared<Connection>(std::move(socket), state_)->Start();
      }
    }
    Accept();
  }));
}

void Server::Cron() {
  if (!state_->cron_paused.load(std::memory_order_relaxed)) {
    const int64_t now_ms = Keyspace::NowMs();
    state_->stats.SampleOps(now_ms, state_->commands.load(std::memory_order_relaxed));
    state_->migrate_sockets.CloseIdle(now_ms);
    state_->clients.CheckOutputLimits();
    state_->pause.ExpireDue(now_ms);  // (Redis's cron ends a pause too)
  }
  cron_timer_.expires_after(std::chrono::milliseconds(kCronMs));
  cron_timer_.async_wait([this](const asio::error_code& error) {
    if (!error) Cron();
  });
}

namespace {
// The loop the calling thread runs (a busy script serves its clients).
thread_local asio::io_context* running_loop = nullptr;

void RunLoop(asio::io_context* loop) {
  running_loop = loop;
  loop->run();
  running_loop = nullptr;
}
}  // namespace

void Server::Run() {
  using WorkGuard = asio::executor_work_guard<asio::io_context::executor_type>;
  std::vector<WorkGuard> keep_running;  // (a loop with no connection yet waits)
  for (const std::unique_ptr<asio::io_context>& loop : loops_) {
    keep_running.push_back(asio::make_work_guard(*loop));
  }
  signals_.async_wait([this](const asio::error_code& error, int) {
    if (!error) Stop();
  });
  asio::post(accept_strand_, [this] { Accept(); });
  Cron();
  // A busy script serves the other clients of its loop from its hook
  // (running_script.h); the other loops' threads serve theirs.
  state_->scripts->running().set_serve_others([] {
    if (running_loop != nullptr) running_loop->poll();
  });
  std::vector<std::thread> pool;
  for (const std::unique_ptr<asio::io_context>& loop : loops_) {
    pool.emplace_back(RunLoop, loop.get());
  }
  RunLoop(&io_);
  for (std::thread& t : pool) t.join();
}

void Server::Stop() {
  state_->scripts->running().StopForShutdown();
  io_.stop();
  for (const std::unique_ptr<asio::io_context>& loop : loops_) loop->stop();
}

}  // namespace teksdb::server
