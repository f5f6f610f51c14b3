// The monitors' list, and MONITOR's line: Redis's format, quoting and
// redaction.
#include "monitors.h"

#include <chrono>
#include <cstdio>

#include "ascii_case.h"
#include "redacted_arguments.h"

namespace teksdb::server {
namespace {

// sdscatrepr: a quoted string, with \\ \" \n \r \t \a \b escaped and
// other bytes outside the printable ASCII range as \xHH.
void AppendQuoted(std::string* out, std::string_view s) {
  out->push_back('"');
  for (const unsigned char c : s) {
    switch (c) {
      case '\\': *out += "\\\\"; break;
      case '"': *out += "\\\""; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\a': *out += "\\a"; break;
      case '\b': *out += "\\b"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out->push_back(static_cast<char>(c));
        } else {
          char hex[5];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          *out += hex;
        }
    }
  }
  out->push_back('"');
}

}  // namespace

void Monitors::Add(uint64_t client_id, const std::shared_ptr<Subscriber>& monitor) {
  std::lock_guard<std::mutex> lock(mu_);
  monitors_[client_id] = monitor;
  count_.store(monitors_.size(), std::memory_order_relaxed);
}

void Monitors::Remove(uint64_t client_id) {
  std::lock_guard<std::mutex> lock(mu_);
  monitors_.erase(client_id);
  count_.store(monitors_.size(), std::memory_order_relaxed);
}

std::string Monitors::Line(int64_t now_us, int db, std::string_view origin,
                           const std::vector<std::string>& args) {
  char time[48];
  std::snprintf(time, sizeof time, "+%lld.%06lld [%d ", static_cast<long long>(now_us / 1000000),
                static_cast<long long>(now_us % 1000000), db);
  std::string line = time;
  line.append(origin);
  line += "] ";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) line.push_back(' ');
    AppendQuoted(&line, IsRedactedArgument(args, i) ? "(redacted)" : args[i]);
  }
  line += "\r\n";
  return line;
}

void Monitors::Feed(int db, std::string_view origin, const std::vector<std::string>& args) {
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const std::string line = Line(now_us, db, origin, args);
  // Delivered outside the mutex: the last reference to a closed monitor
  // may drop here, and its connection's destructor calls Remove.
  std::vector<std::shared_ptr<Subscriber>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, monitor] : monitors_) {
      if (auto m = monitor.lock()) live.push_back(std::move(m));
    }
  }
  for (const auto& m : live) m->DeliverMonitorLine(line);
}

}  // namespace teksdb::server
