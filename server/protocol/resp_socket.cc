// The blocking RESP client of resp_socket.h.
#include "resp_socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace teksdb::server {
namespace {

// A reply line longer than this is not one these commands get: the read
// fails rather than hold whatever the peer sends.
constexpr size_t kMaxLineBytes = 1 << 20;

// Connects `fd` to `address` within timeout_ms (0: no limit).
bool ConnectWithin(int fd, const addrinfo* address, int timeout_ms) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return false;
  if (connect(fd, address->ai_addr, address->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return false;
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, timeout_ms > 0 ? timeout_ms : -1) != 1) {
      errno = ETIMEDOUT;
      return false;
    }
    int error = 0;
    socklen_t len = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
      errno = error;
      return false;
    }
  }
  return fcntl(fd, F_SETFL, flags) == 0;
}

}  // namespace

RespSocket::~RespSocket() {
  if (fd_ >= 0) close(fd_);
}

bool RespSocket::Connect(const std::string& host, const std::string& port, int timeout_ms,
                         std::string* error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    *error = "cannot resolve " + host + ":" + port;
    return false;
  }
  int last_errno = 0;
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    fd_ = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd_ >= 0 && !ConnectWithin(fd_, a, timeout_ms)) {
      last_errno = errno;
      close(fd_);
      fd_ = -1;
    }
  }
  freeaddrinfo(found);
  if (fd_ < 0) {
    timed_out_ = last_errno == ETIMEDOUT;
    *error = "cannot connect to " + host + ":" + port + ": " + std::strerror(last_errno);
    return false;
  }
  SetTimeout(timeout_ms);
  return true;
}

void RespSocket::SetTimeout(int timeout_ms) {
  timeval limit{timeout_ms / 1000, (timeout_ms % 1000) * 1000};  // 0: none
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

void RespSocket::Append(const std::vector<std::string>& args) {
  out_ += "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out_ += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
}

bool RespSocket::Flush() {
  for (size_t sent = 0; sent < out_.size();) {
    const ssize_t n = send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      timed_out_ = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
      out_.clear();
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  out_.clear();
  return true;
}

bool RespSocket::ReadReply(std::string* error) {
  error->clear();
  std::string line;
  if (!ReadLine(&line) || line.empty()) return false;
  switch (line[0]) {
    case '-':
      *error = line.substr(1);
      return true;
    case '+':
    case ':':
    case '_':
      return true;
    case '$': {
      const long n = std::strtol(line.c_str() + 1, nullptr, 10);
      return n < 0 || Skip(static_cast<size_t>(n) + 2);
    }
    default:
      return false;
  }
}

bool RespSocket::Fill() {
  char buf[65536];
  const ssize_t n = recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) {
    timed_out_ = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    return false;
  }
  in_.append(buf, static_cast<size_t>(n));
  return true;
}

bool RespSocket::ReadLine(std::string* line) {
  size_t end;
  while ((end = in_.find("\r\n", start_)) == std::string::npos) {
    if (in_.size() - start_ > kMaxLineBytes || !Fill()) return false;
  }
  line->assign(in_, start_, end - start_);
  start_ = end + 2;
  Compact();
  return true;
}

bool RespSocket::Skip(size_t n) {
  // Consumed as it arrives: a large bulk is never held whole.
  while (n > 0) {
    if (start_ == in_.size() && !Fill()) return false;
    const size_t take = std::min(n, in_.size() - start_);
    start_ += take;
    n -= take;
    Compact();
  }
  return true;
}

void RespSocket::Compact() {
  if (start_ == in_.size() || start_ > kMaxLineBytes) {
    in_.erase(0, start_);
    start_ = 0;
  }
}

}  // namespace teksdb::server
