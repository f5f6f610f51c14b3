// SCAN, HSCAN, SSCAN and ZSCAN: iteration in pages. Options as Redis 7.0's
// scanGenericCommand: MATCH pattern, COUNT n (n >= 1, default 10), and for
// SCAN, TYPE name. A call examines up to COUNT keys (SCAN, expired ones
// included), fields (HSCAN) or members (SSCAN, ZSCAN), replies those that match, and a cursor
// that resumes at the next one ("0" when there is none). Cursors name saved
// positions (scan_cursors.h); keys come in RocksDB's order. As in Redis, a
// key present from the first call to the last is returned at least once;
// one added or removed meanwhile may or may not be.
#include <cerrno>
#include <cstdlib>

#include "ascii_case.h"
#include "collection.h"
#include "commands.h"
#include "glob_match.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

struct ScanOptions {
  std::string position;  // where to start (inclusive); empty: the beginning
  int64_t count = 10;
  std::optional<std::string> pattern;
  std::optional<std::string> type;
};

// Redis's cursor: an unsigned decimal (strtoul) with nothing around it.
// False, having replied, if it is not one or names no saved position.
bool ParseCursor(Request& r, const std::string& text, std::string* position) {
  bool digits = !text.empty() && text.size() <= 20;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  errno = 0;
  const uint64_t cursor = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || (cursor != 0 && !r.server.cursors.Find(cursor, position))) {
    reply::Error(r.out, "ERR invalid cursor");
    return false;
  }
  return true;
}

// The options from r.args[first] on. False, having replied, on a bad one.
bool ParseOptions(Request& r, size_t first, bool allow_type, ScanOptions* options) {
  for (size_t i = first; i < r.args.size(); i += 2) {
    const std::string name = AsciiLower(r.args[i]);
    const bool has_value = i + 1 < r.args.size();
    if (name == "count" && has_value) {
      if (!ParseStrictInt64(r.args[i + 1], &options->count)) {
        reply::Error(r.out, kNotInteger);
        return false;
      }
      if (options->count < 1) {
        reply::Error(r.out, kSyntaxError);
        return false;
      }
    } else if (name == "match" && has_value) {
      if (r.args[i + 1] != "*") options->pattern = r.args[i + 1];
    } else if (name == "type" && allow_type && has_value) {
      options->type = AsciiLower(r.args[i + 1]);
    } else {
      reply::Error(r.out, kSyntaxError);
      return false;
    }
  }
  return true;
}

// The cursor for what comes next: 0 when nothing does.
std::string NextCursor(Request& r, const std::optional<std::string>& next) {
  return next ? std::to_string(r.server.cursors.Save(*next)) : "0";
}

void Scan(Request& r) {
  ScanOptions options;
  if (!ParseCursor(r, r.args[1], &options.position) || !ParseOptions(r, 2, true, &options)) return;
  std::vector<std::string> keys;
  std::optional<std::string> next;
  int64_t examined = 0;
  const int64_t now = Keyspace::NowMs();
  const Status s = r.keyspace->ForEachKey(
      [&](const std::string& key, const Keyspace::Value& value) {
        if (examined++ == options.count) {
          next = key;
          return false;
        }
        const bool live = value.expire_ms == 0 || value.expire_ms > now;
        if (live && (!options.pattern || GlobMatch(*options.pattern, key)) &&
            (!options.type || *options.type == Keyspace::TypeName(value.type))) {
          keys.push_back(key);
        }
        return true;
      },
      options.position, /*include_expired=*/true);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::ArrayHeader(r.out, 2);
  reply::Bulk(r.out, NextCursor(r, next));
  reply::ArrayHeader(r.out, keys.size());
  for (const std::string& key : keys) reply::Bulk(r.out, key);
}

// HSCAN (field and value pairs), SSCAN (members) and ZSCAN (member and
// score pairs) of collection r.args[1].
void CollectionScan(Request& r, char type) {
  const bool with_values = type != Keyspace::kSet;
  ScanOptions options;
  if (!ParseCursor(r, r.args[2], &options.position)) return;
  Collection collection;
  if (!collection.Open(r, type)) return;
  if (!collection.exists()) {
    reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, "0");
    return reply::ArrayHeader(r.out, 0);
  }
  if (!ParseOptions(r, 3, false, &options)) return;
  std::string pairs;
  size_t matched = 0;
  std::optional<std::string> next;
  int64_t examined = 0;
  // A compact collection comes whole in one reply, cursor 0, as Redis
  // replies for a listpack or an intset.
  if (collection.compact()) options.count = -1;
  // Whether the page is full before `member`, which then starts the next.
  const auto page_full = [&](const std::string& member) {
    if (examined++ != options.count) return false;
    next = member;
    return true;
  };
  if (!collection.ForEach(
      r,
      [&](const std::string& field, const std::string& value) {
        if (page_full(field)) return false;
        if (!options.pattern || GlobMatch(*options.pattern, field)) {
          reply::Bulk(&pairs, field);
          if (type == Keyspace::kZSet) reply::Bulk(&pairs, FormatScore(ScoreOf(value)));
          else if (with_values) reply::Bulk(&pairs, value);
          ++matched;
        }
        return true;
      },
      options.position,
      // A hash field past its deadline is not shown, but it fills the page
      // as Redis's does: a page of them may come back empty.
      [&](const std::string& field) { return !page_full(field); })) {
    return;
  }
  // A last page may have come up short (Collection::Settled).
  if (!next && !collection.Settled(r)) return;
  reply::ArrayHeader(r.out, 2);
  reply::Bulk(r.out, NextCursor(r, next));
  reply::ArrayHeader(r.out, matched * (with_values ? 2 : 1));
  r.out->append(pairs);
}
void HScan(Request& r) { CollectionScan(r, Keyspace::kHash); }
void SScan(Request& r) { CollectionScan(r, Keyspace::kSet); }
void ZScan(Request& r) { CollectionScan(r, Keyspace::kZSet); }

}  // namespace

void AddScanCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"scan", -2, Scan}, {"hscan", -3, HScan}, {"sscan", -3, SScan}, {"zscan", -3, ZScan}});
}

}  // namespace teksdb::server
