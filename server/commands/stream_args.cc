// The stream id parsing and replies of stream_args.h.
#include "stream_args.h"

#include <cerrno>
#include <cstdlib>

#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Redis's string2ull: a strict int64 that is not negative, or what
// strtoull takes whole.
bool ParseUnsigned(const std::string& s, uint64_t* out) {
  int64_t v;
  if (ParseStrictInt64(s, &v)) {
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  *out = std::strtoull(s.c_str(), &end, 10);
  return errno != EINVAL && errno != ERANGE && *end == '\0';
}

}  // namespace

bool ParseStreamIdText(const std::string& arg, StreamId* id, uint64_t missing_seq, bool strict,
                       bool* seq_given) {
  if (arg.size() > 127 || arg.find('\0') != std::string::npos) return false;
  if (strict && (arg == "-" || arg == "+")) return false;
  if (seq_given != nullptr) *seq_given = true;
  if (arg == "-") {
    *id = StreamId();
    return true;
  }
  if (arg == "+") {
    *id = StreamId::Max();
    return true;
  }
  const size_t dash = arg.find('-');
  uint64_t ms, seq = missing_seq;
  if (!ParseUnsigned(arg.substr(0, dash), &ms)) return false;
  if (dash != std::string::npos) {
    const std::string rest = arg.substr(dash + 1);
    if (seq_given != nullptr && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!ParseUnsigned(rest, &seq)) {
      return false;
    }
  }
  id->ms = ms;
  id->seq = seq;
  return true;
}

bool ParseStreamId(Request& r, const std::string& arg, StreamId* id, uint64_t missing_seq,
                   bool strict, bool* seq_given) {
  if (ParseStreamIdText(arg, id, missing_seq, strict, seq_given)) return true;
  reply::Error(r.out, kInvalidStreamId);
  return false;
}

bool ParseIntervalStart(Request& r, const std::string& arg, StreamId* id) {
  const bool exclusive = arg.size() > 1 && arg[0] == '(';
  if (!ParseStreamId(r, exclusive ? arg.substr(1) : arg, id, 0, exclusive)) return false;
  if (exclusive && !id->Increment()) {
    reply::Error(r.out, "ERR invalid start ID for the interval");
    return false;
  }
  return true;
}

bool ParseIntervalEnd(Request& r, const std::string& arg, StreamId* id) {
  const bool exclusive = arg.size() > 1 && arg[0] == '(';
  if (!ParseStreamId(r, exclusive ? arg.substr(1) : arg, id, UINT64_MAX, exclusive)) return false;
  if (exclusive && !id->Decrement()) {
    reply::Error(r.out, "ERR invalid end ID for the interval");
    return false;
  }
  return true;
}

void ReplyStreamId(Request& r, StreamId id) { reply::Bulk(r.out, id.Text()); }

void ReplyStreamEntry(Request& r, const StreamEntry& entry) {
  reply::ArrayHeader(r.out, 2);
  ReplyStreamId(r, entry.id);
  reply::ArrayHeader(r.out, entry.fields.size() * 2);
  for (const auto& [field, value] : entry.fields) {
    reply::Bulk(r.out, field);
    reply::Bulk(r.out, value);
  }
}

std::string NoGroupError(const std::string& key, const std::string& group) {
  return "NOGROUP No such key '" + key + "' or consumer group '" + group + "'";
}

}  // namespace teksdb::server
