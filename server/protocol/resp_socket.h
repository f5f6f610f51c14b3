// RespSocket: a blocking RESP client connection, for the server's own
// outgoing commands (MIGRATE's RESTOREs to another server) and for
// teksdb-rdb-import: commands are queued, sent in one write, and their
// replies read one by one. Every operation has a time limit (the one
// Connect was given): a peer that stops answering makes it fail, never
// hang.
//
// Replies are read as these callers need them: a status, integer, bulk or
// null is a success, an error reply's text is given back; aggregate
// replies are not expected and fail the read.
//
// Thread safety: one thread at a time.
#pragma once

#include <string>
#include <vector>

namespace teksdb::server {

class RespSocket {
 public:
  RespSocket() = default;
  RespSocket(const RespSocket&) = delete;
  RespSocket& operator=(const RespSocket&) = delete;
  ~RespSocket();

  // Connects to host:port within timeout_ms (0: no limit), which then
  // bounds every send and read; false, with *error, if it cannot.
  bool Connect(const std::string& host, const std::string& port, int timeout_ms, std::string* error);
  // A new time limit for what follows (a cached connection's next user).
  void SetTimeout(int timeout_ms);
  // Queues a command.
  void Append(const std::vector<std::string>& args);
  // Sends what is queued; false if the peer is gone or too slow.
  bool Flush();
  // Reads one reply: true with *error empty for a success, with the error
  // reply's text (without '-') for an error; false if the connection
  // failed, timed out, or the reply was not a simple one.
  bool ReadReply(std::string* error);
  // Whether the last failure was the time limit.
  bool timed_out() const { return timed_out_; }
  bool connected() const { return fd_ >= 0; }

 private:
  bool Fill();
  bool ReadLine(std::string* line);
  bool Skip(size_t n);
  void Compact();

  int fd_ = -1;
  bool timed_out_ = false;
  std::string out_, in_;
  size_t start_ = 0;  // where unread bytes begin in in_
};

}  // namespace teksdb::server
