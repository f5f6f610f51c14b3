// RespParser implementation: a state machine over lines and bulk bytes.
#include "resp_parser.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "redis_args.h"
#include "strict_integer.h"

namespace teksdb::server {

size_t RespParser::Consume(const char* data, size_t size) {
  size_t pos = 0;
  while (pos < size && state_ != State::kDone && state_ != State::kError) {
    switch (state_) {
      case State::kStart:
        line_.clear();
        args_.clear();
        held_bytes_ = 0;
        state_ = data[pos] == '*' ? State::kArrayLength : State::kInline;
        break;
      case State::kInline:
        if (!ReadLine(data, size, &pos, kMaxInlineLength, "too big inline request")) break;
        if (!SplitRedisArgs(line_, &args_)) {
          Fail("unbalanced quotes in request");
        } else {
          // An empty line is no command, as in Redis.
          state_ = args_.empty() ? State::kStart : State::kDone;
        }
        break;
      case State::kArrayLength: {
        if (!ReadLine(data, size, &pos, kMaxInlineLength, "too big mbulk count string")) break;
        int64_t n;
        if (!ParseStrictInt64(line_.substr(1), &n) || n > static_cast<int64_t>(kMaxArguments)) {
          Fail("invalid multibulk length");
        } else if (unauthenticated_ && n > static_cast<int64_t>(kUnauthenticatedArguments)) {
          Fail("unauthenticated multibulk length");
        } else if (n <= 0) {
          state_ = State::kStart;  // "*0" and "*-1": no command
        } else {
          expected_args_ = static_cast<size_t>(n);
          args_.reserve(std::min<size_t>(expected_args_, 1024));
          line_.clear();
          state_ = State::kBulkLength;
        }
        break;
      }
      case State::kBulkLength: {
        if (line_.empty() && data[pos] != '$') {
          Fail(std::string("expected '$', got '") + data[pos] + "'");
          break;
        }
        if (!ReadLine(data, size, &pos, kMaxInlineLength, "too big bulk count string")) break;
        int64_t n;
        if (!ParseStrictInt64(line_.substr(1), &n) || n < 0 ||
            static_cast<uint64_t>(n) > max_bulk_length_) {
          Fail("invalid bulk length");
          break;
        }
        if (unauthenticated_ && static_cast<uint64_t>(n) > kUnauthenticatedBulkLength) {
          Fail("unauthenticated bulk length");
          break;
        }
        bulk_length_ = static_cast<size_t>(n);
        args_.emplace_back();
        if (!spare_args_.empty()) {
          args_.back().swap(spare_args_.back());
          spare_args_.pop_back();
        }
        line_.clear();
        state_ = State::kBulkData;
        break;
      }
      case State::kBulkData: {
        std::string& arg = args_.back();
        // The argument's bytes, then the 2 bytes of "\r\n", which Redis
        // skips unchecked; line_ counts those.
        if (arg.size() < bulk_length_) {
          const size_t take = std::min(bulk_length_ - arg.size(), size - pos);
          arg.append(data + pos, take);
          held_bytes_ += take;
          pos += take;
          break;
        }
        const size_t take = std::min<size_t>(2 - line_.size(), size - pos);
        line_.append(data + pos, take);
        pos += take;
        if (line_.size() == 2) ArgumentDone();
        break;
      }
      case State::kDone:
      case State::kError:
        break;
    }
  }
  return pos;
}

void RespParser::ArgumentDone() {
  line_.clear();
  state_ = args_.size() == expected_args_ ? State::kDone : State::kBulkLength;
}

bool RespParser::ReadLine(const char* data, size_t size, size_t* pos, size_t limit,
                          const char* too_long) {
  const char* start = data + *pos;
  const void* nl = std::memchr(start, '\n', size - *pos);
  const size_t take = nl != nullptr ? static_cast<const char*>(nl) - start + 1 : size - *pos;
  if (line_.size() + take > limit + 2) {
    Fail(too_long);
    return false;
  }
  line_.append(start, take);
  *pos += take;
  if (nl == nullptr) return false;
  line_.pop_back();
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

void RespParser::Fail(const std::string& what) {
  error_ = "Protocol error: " + what;
  state_ = State::kError;
}

std::vector<std::string> RespParser::TakeCommand() {
  std::vector<std::string> command;
  command.swap(args_);
  args_.swap(spare_command_);
  held_bytes_ = 0;
  line_.clear();
  state_ = State::kStart;
  return command;
}

void RespParser::Recycle(std::vector<std::string>&& command) {
  for (std::string& arg : command) {
    if (spare_args_.size() == kSpareArguments) break;
    // (Short arguments live inside the string: nothing to keep.)
    if (arg.capacity() > kSpareArgumentBytes || arg.capacity() <= std::string().capacity()) {
      continue;
    }
    arg.clear();
    spare_args_.push_back(std::move(arg));
  }
  command.clear();
  if (spare_command_.capacity() == 0 && command.capacity() <= kSpareArguments) {
    spare_command_.swap(command);
  }
}

}  // namespace teksdb::server
