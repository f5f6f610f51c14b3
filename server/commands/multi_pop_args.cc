// ParseMultiPop (multi_pop_args.h).
#include "multi_pop_args.h"

#include "ascii_case.h"
#include "blocking.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {

bool ParseMultiPop(Request& r, size_t at, bool blocking, const char* first_end,
                   const char* second_end, MultiPopArgs* args) {
  int64_t numkeys;
  if (!ParseStrictInt64(r.args[at], &numkeys) || numkeys <= 0) {
    return reply::Error(r.out, "ERR numkeys should be greater than 0"), false;
  }
  const size_t end_at = at + 1 + static_cast<size_t>(numkeys);
  if (numkeys > static_cast<int64_t>(r.args.size()) || end_at >= r.args.size()) {
    return reply::Error(r.out, kSyntaxError), false;
  }
  const std::string end = AsciiLower(r.args[end_at]);
  if (end != first_end && end != second_end) return reply::Error(r.out, kSyntaxError), false;
  args->first_end = end == first_end;
  int64_t count = -1;
  for (size_t i = end_at + 1; i < r.args.size(); ++i) {
    if (count != -1 || AsciiLower(r.args[i]) != "count" || i + 1 == r.args.size()) {
      return reply::Error(r.out, kSyntaxError), false;
    }
    if (!ParseStrictInt64(r.args[++i], &count) || count <= 0) {
      return reply::Error(r.out, "ERR count should be greater than 0"), false;
    }
  }
  args->count = count == -1 ? 1 : count;
  args->deadline_ms = -1;
  if (blocking && !ParseBlockTimeout(r, r.args[1], &args->deadline_ms)) return false;
  args->keys.assign(r.args.begin() + at + 1, r.args.begin() + end_at);
  return true;
}

}  // namespace teksdb::server
