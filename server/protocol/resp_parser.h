// RespParser: turns the bytes one client sends into commands, incrementally,
// as Redis reads them: RESP2 multibulk requests ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
// and inline ones ("GET k\r\n", with Redis's quoting rules).
//
// Feed it whatever arrived; it consumes bytes until it has a whole command
// (HasCommand, then TakeCommand) or needs more, and it never rereads what it
// consumed, so a command arriving a byte at a time costs O(its length).
// Limits, as Redis's: a bulk argument of at most proto-max-bulk-len (512
// MiB unless set_limits says otherwise), at most 1M arguments, an inline
// request (or a length line) of at most 64 KiB; for a client yet to
// authenticate, at most 10 arguments and bulks of at most 16 KiB (Redis
// 7.0's, set_limits). Past a limit, or on malformed input, it
// reports Redis's protocol error; the connection must then reply it and
// close, as Redis does. Memory held is the command being read, never more:
// a declared bulk length reserves nothing until its bytes arrive, and the
// buffers kept for reuse (Recycle) are bounded.
//
// Thread safety: none; one parser per connection.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace teksdb::server {

class RespParser {
 public:
  static constexpr size_t kMaxBulkLength = size_t{512} << 20;
  static constexpr size_t kMaxArguments = size_t{1} << 20;
  static constexpr size_t kMaxInlineLength = size_t{64} << 10;
  static constexpr size_t kUnauthenticatedArguments = 10;
  static constexpr size_t kUnauthenticatedBulkLength = size_t{16} << 10;

  // Consumes bytes of data[0, size) up to the end of the next command, or
  // all of them; returns how many. Consumes nothing while a command or an
  // error waits to be taken.
  size_t Consume(const char* data, size_t size);

  // The limits of what Consume reads next: the longest bulk argument, and
  // whether the client is yet to authenticate (Redis's fixed limits then).
  void set_limits(size_t max_bulk_length, bool unauthenticated) {
    max_bulk_length_ = max_bulk_length;
    unauthenticated_ = unauthenticated;
  }
  // The bytes the command being read holds so far (its arguments, with a
  // string's own size each, and the line being read): what
  // client-query-buffer-limit bounds, with what is not yet consumed.
  size_t held_bytes() const {
    return held_bytes_ + line_.size() + args_.size() * sizeof(std::string);
  }
  // Of those, the bytes the client sent (CLIENT LIST's qbuf).
  size_t sent_bytes() const { return held_bytes_ + line_.size(); }
  // held_bytes() with the argument being read at its declared length, as
  // Redis allocates a large argument whole once its header is read (what
  // client eviction counts: the parser itself takes the bytes as they come).
  size_t claimed_bytes() const {
    const size_t unread = state_ == State::kBulkData && args_.back().size() < bulk_length_
                              ? bulk_length_ - args_.back().size()
                              : 0;
    return held_bytes() + unread;
  }

  bool HasCommand() const { return state_ == State::kDone; }
  // REQUIRES: HasCommand(). The command's arguments (never empty); the
  // parser starts on the next command.
  std::vector<std::string> TakeCommand();
  // Takes back a command taken before, once it ran: its argument buffers
  // (up to kSpareArguments of at most kSpareArgumentBytes each) serve the
  // next commands' arguments, so a client's steady stream of commands
  // allocates nothing for them.
  static constexpr size_t kSpareArguments = 64;
  static constexpr size_t kSpareArgumentBytes = 256;
  void Recycle(std::vector<std::string>&& command);

  // The start of the command being read (its first argument so far, or
  // its line), for a log line about it.
  std::string_view first_bytes() const {
    return args_.empty() ? std::string_view(line_) : std::string_view(args_.front());
  }

  // A protocol error ("Protocol error: ..."), or empty.
  const std::string& error() const { return error_; }

 private:
  enum class State { kStart, kInline, kArrayLength, kBulkLength, kBulkData, kDone, kError };

  // Accumulates a line into line_; true once its '\n' arrived (the line,
  // without "\r\n", is in line_). Fails past `limit` bytes.
  bool ReadLine(const char* data, size_t size, size_t* pos, size_t limit, const char* too_long);
  void Fail(const std::string& what);
  void ArgumentDone();

  State state_ = State::kStart;
  std::string line_;
  std::vector<std::string> args_;
  std::vector<std::string> spare_args_;      // empty strings, their buffers kept
  std::vector<std::string> spare_command_;  // an empty vector, its buffer kept
  size_t expected_args_ = 0;
  size_t bulk_length_ = 0;
  size_t held_bytes_ = 0;  // the bytes of args_ (held_bytes())
  size_t max_bulk_length_ = kMaxBulkLength;
  bool unauthenticated_ = false;
  std::string error_;
};

}  // namespace teksdb::server
