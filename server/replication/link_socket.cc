// LinkSocket (link_socket.h) on POSIX sockets and poll.
#include "link_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstring>

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

namespace {

Status Errno(const std::string& what) { return Status::IOError(what, std::strerror(errno)); }

// Waits up to timeout_ms for `events` on fd: OK, TimedOut, or IOError.
Status Await(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n > 0) return Status::OK();
    if (n == 0) return Status::TimedOut();
    if (errno != EINTR) return Errno("poll");
  }
}

// What is left until `deadline`, rounded up (a wait of 1 ms waits), at
// least 0 (a read polls at least once).
int MillisecondsLeft(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

}  // namespace

LinkSocket::~LinkSocket() {
  if (fd_ >= 0) ::close(fd_);
}

Status LinkSocket::Connect(const std::string& host, int port, int timeout_ms,
                           const std::string& source) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int error = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (error != 0) return Status::IOError("cannot resolve " + host, ::gai_strerror(error));
  Status s = Status::IOError("no address for " + host);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      s = Errno("socket");
      continue;
    }
    if (!source.empty()) {
      addrinfo source_hints{};
      source_hints.ai_family = a->ai_family;
      source_hints.ai_socktype = SOCK_STREAM;
      source_hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
      addrinfo* from = nullptr;
      if (::getaddrinfo(source.c_str(), nullptr, &source_hints, &from) != 0 || from == nullptr) {
        s = Status::InvalidArgument("bind-source-addr '" + source + "' is no address of " +
                                    (a->ai_family == AF_INET6 ? "IPv6" : "IPv4"));
        ::close(fd);
        continue;
      }
      const int bound = ::bind(fd, from->ai_addr, from->ai_addrlen);
      ::freeaddrinfo(from);
      if (bound != 0) {
        s = Errno("bind to " + source);
        ::close(fd);
        continue;
      }
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      s = Errno("connect to " + host + ":" + std::to_string(port));
      ::close(fd);
      continue;
    }
    s = Await(fd, POLLOUT, timeout_ms);
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    if (s.ok() && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error != 0) {
      s = Status::IOError("connect to " + host + ":" + std::to_string(port), std::strerror(so_error));
    } else if (s.IsTimedOut()) {
      s = Status::TimedOut("connect to " + host + ":" + std::to_string(port));
    }
    if (!s.ok()) {
      ::close(fd);
      continue;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fd_ = fd;
    break;
  }
  ::freeaddrinfo(found);
  return s;
}

std::string LinkSocket::PeerAddress() const {
  sockaddr_storage address{};
  socklen_t len = sizeof(address);
  if (fd_ < 0 || ::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &len) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {0};
  const void* raw = address.ss_family == AF_INET6
                        ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr)
                        : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&address)->sin_addr);
  return ::inet_ntop(address.ss_family, raw, text, sizeof(text)) ? text : "";
}

Status LinkSocket::WriteAll(std::string_view bytes, int timeout_ms) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Status s = Await(fd_, POLLOUT, timeout_ms);
      if (s.IsTimedOut()) return Status::TimedOut("the peer reads nothing");
      if (!s.ok()) return s;
      continue;
    }
    return Errno("send");
  }
  return Status::OK();
}

Status LinkSocket::Fill(int timeout_ms) {
  Status s = Await(fd_, POLLIN, timeout_ms);
  if (!s.ok()) return s;
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      pending_.append(buffer, static_cast<size_t>(n));
      return Status::OK();
    }
    if (n == 0) return Status::IOError("the link closed");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::OK();
    return Errno("recv");
  }
}

Status LinkSocket::ReadLine(std::string* line, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const size_t end = pending_.find("\r\n");
    if (end != std::string::npos) {
      line->assign(pending_, 0, end);
      pending_.erase(0, end + 2);
      return Status::OK();
    }
    if (pending_.size() > RespParser::kMaxInlineLength) return Status::IOError("a line too long");
    Status s = Fill(MillisecondsLeft(deadline));
    if (s.IsTimedOut()) return Status::TimedOut("no reply");
    if (!s.ok()) return s;
  }
}

Status LinkSocket::ReadFrame(std::vector<std::string>* frame, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    size_t used = 0;
    while (used < pending_.size() && !parser_.HasCommand() && parser_.error().empty()) {
      used += parser_.Consume(pending_.data() + used, pending_.size() - used);
    }
    pending_.erase(0, used);
    if (!parser_.error().empty()) return Status::IOError("the link spoke no RESP: " + parser_.error());
    if (parser_.HasCommand()) {
      *frame = parser_.TakeCommand();
      return Status::OK();
    }
    Status s = Fill(MillisecondsLeft(deadline));
    if (s.IsTimedOut()) return Status::TimedOut("no frame");
    if (!s.ok()) return s;
  }
}

void LinkSocket::Shutdown() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

}  // namespace teksdb::server
