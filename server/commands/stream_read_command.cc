// XREAD and XREADGROUP, as Redis 7.0 answers them (t_stream.c's
// xreadCommand): COUNT, BLOCK (woken by a write to any of the keys, as the
// blocking lists are: blocking.h; a "$" keeps the id it had when the
// command first ran), STREAMS with "$" and ids; XREADGROUP's GROUP, NOACK,
// ">" for entries never delivered to the group (each added to the group's
// and the consumer's pending entries, the group's last id and entries-read
// counter moved as Redis moves them) and ids for the consumer's own
// history. A blocked XREADGROUP whose key or group went away meanwhile ends
// with Redis's NOGROUP error; a blocked XREAD waits on for a stream.
#include <algorithm>

#include "ascii_case.h"
#include "blocking.h"
#include "commands.h"
#include "resp_reply.h"
#include "stream_args.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Redis's count for a blocked read served without COUNT.
constexpr int64_t kBlockedDefaultCount = 1000;

struct ReadArgs {
  bool group_mode = false, group_given = false, noack = false, block = false;
  int64_t deadline_ms = 0, count = 0;
  std::string group, consumer;
  std::vector<std::string> keys, ids;
};

bool ParseRead(Request& r, ReadArgs* a) {
  a->group_mode = AsciiLower(r.args[0]) == "xreadgroup";
  size_t streams_at = 0;
  for (size_t i = 1; i < r.args.size(); ++i) {
    const size_t more = r.args.size() - 1 - i;
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "block" && more > 0) {
      if (r.client.in_script) {
        reply::Error(r.out, "ERR " + AsciiLower(r.args[0]) +
                                " command is not allowed with BLOCK option from scripts");
        return false;
      }
      int64_t ms;
      if (!ParseStrictInt64(r.args[++i], &ms)) {
        reply::Error(r.out, "ERR timeout is not an integer or out of range");
        return false;
      }
      if (ms < 0) return reply::Error(r.out, "ERR timeout is negative"), false;
      a->block = true;
      const int64_t now = Keyspace::NowMs();
      a->deadline_ms = ms == 0 ? 0 : ms > INT64_MAX - now ? INT64_MAX : now + ms;
    } else if (opt == "count" && more > 0) {
      if (!ParseStrictInt64(r.args[++i], &a->count)) return reply::Error(r.out, kNotInteger), false;
      if (a->count < 0) a->count = 0;
    } else if (opt == "streams" && more > 0) {
      streams_at = i + 1;
      if ((r.args.size() - streams_at) % 2 != 0) {
        reply::Error(r.out, "ERR Unbalanced " + AsciiLower(r.args[0]) +
                                " list of streams: for each stream key an ID or '$' must be "
                                "specified.");
        return false;
      }
      break;
    } else if (opt == "group" && more >= 2) {
      if (!a->group_mode) {
        reply::Error(r.out, "ERR The GROUP option is only supported by XREADGROUP. You called "
                            "XREAD instead.");
        return false;
      }
      a->group_given = true;
      a->group = r.args[i + 1];
      a->consumer = r.args[i + 2];
      i += 2;
    } else if (opt == "noack") {
      if (!a->group_mode) {
        reply::Error(r.out, "ERR The NOACK option is only supported by XREADGROUP. You called "
                            "XREAD instead.");
        return false;
      }
      a->noack = true;
    } else {
      return reply::Error(r.out, kSyntaxError), false;
    }
  }
  if (streams_at == 0) return reply::Error(r.out, kSyntaxError), false;
  if (a->group_mode && !a->group_given) {
    return reply::Error(r.out, "ERR Missing GROUP option for XREADGROUP"), false;
  }
  const size_t n = (r.args.size() - streams_at) / 2;
  a->keys.assign(r.args.begin() + streams_at, r.args.begin() + streams_at + n);
  a->ids.assign(r.args.begin() + streams_at + n, r.args.end());
  return true;
}

// The consumer, made (or its seen time refreshed) when the group serves
// it, as streamLookupConsumer / streamCreateConsumer do.
bool TouchConsumer(Request& r, StreamStore* stream, const std::string& group,
                   const std::string& consumer) {
  std::optional<int64_t> seen;
  if (!stream->ReadConsumer(r, group, consumer, &seen)) return false;
  r.client.event_hints.stream_consumer_created |= !seen;
  stream->PutConsumer(group, consumer, Keyspace::NowMs());
  return true;
}

// New entries after the group's last id (streamReplyWithRange with a group).
bool ServeNew(Request& r, StreamStore* stream, const ReadArgs& a, StreamGroup* group,
              int64_t count, std::vector<StreamEntry>* served) {
  StreamId start = group->last_id;
  if (!start.Increment()) return true;
  const int64_t now = Keyspace::NowMs();
  std::vector<StreamEntry> entries;
  if (!stream->Range(r, start, StreamId::Max(), false, [&](const StreamEntry& e) {
        entries.push_back(e);
        return count == 0 || entries.size() < static_cast<size_t>(count);
      })) {
    return false;
  }
  const StreamMeta& meta = stream->meta();
  for (const StreamEntry& e : entries) {
    if (e.id > group->last_id) {
      if (group->entries_read != -1 && !HasTombstonesFrom(meta, e.id)) {
        if (group->entries_read < INT64_MAX) ++group->entries_read;
      } else if (meta.entries_added != 0) {
        group->entries_read = EstimateEntriesRead(meta, e.id);
      }
      group->last_id = e.id;
    }
    if (!a.noack) {
      std::optional<PendingEntry> old;
      if (!stream->ReadPending(r, a.group, e.id, &old)) return false;
      const PendingEntry p{e.id, a.consumer, now, 1};
      stream->PutPending(a.group, p, old ? &old->consumer : nullptr);
    }
    served->push_back(e);
  }
  stream->PutGroup(a.group, *group);
  return true;
}

// The consumer's pending entries from `start` (streamReplyWithRangeFromConsumerPEL):
// a deleted entry comes as its id and a null.
bool ServeHistory(Request& r, StreamStore* stream, const ReadArgs& a, StreamId start,
                  int64_t count, std::vector<std::optional<StreamEntry>>* served,
                  std::vector<StreamId>* ids) {
  std::vector<PendingEntry> pending;
  if (!stream->ForEachPending(r, a.group, &a.consumer, start, [&](const PendingEntry& p) {
        pending.push_back(p);
        return count == 0 || pending.size() < static_cast<size_t>(count);
      })) {
    return false;
  }
  const int64_t now = Keyspace::NowMs();
  for (PendingEntry& p : pending) {
    std::optional<StreamEntry> entry;
    if (!stream->ReadEntry(r, p.id, &entry)) return false;
    if (entry) {
      p.delivery_ms = now;
      ++p.delivery_count;
      stream->PutPending(a.group, p, nullptr);
    }
    ids->push_back(p.id);
    served->push_back(std::move(entry));
  }
  return true;
}

void XRead(Request& r) {
  ReadArgs a;
  if (!ParseRead(r, &a)) return;
  const bool rerun = r.client.block_rerun;
  auto locks = r.keyspace->LockKeys(a.keys);
  const int64_t count = a.count == 0 && rerun ? kBlockedDefaultCount : a.count;
  if (!rerun) r.client.xread_ids.assign(a.ids.size(), std::string());
  // Every key, group and id checked first, as Redis checks them before it
  // serves any.
  struct Source {
    StreamStore stream;
    std::optional<StreamGroup> group;
    StreamId after;
  };
  std::vector<Source> sources(a.keys.size());
  for (size_t i = 0; i < a.keys.size(); ++i) {
    const std::string& key = a.keys[i];
    Source& src = sources[i];
    bool other_type;
    if (!src.stream.Load(r, key, &other_type)) return;
    const bool is_stream = src.stream.exists();
    // Woken to find the key gone or of another type: a blocked XREAD
    // waits on, a blocked XREADGROUP ends as Redis ends it.
    if (other_type && !rerun) return reply::Error(r.out, kWrongType);
    if (a.group_mode && rerun && !is_stream) {
      return reply::Error(r.out, "UNBLOCKED the stream key no longer exists");
    }
    if (a.group_mode && is_stream && !src.stream.ReadGroup(r, a.group, &src.group)) return;
    if (a.group_mode && !src.group) {
      if (rerun) {
        return reply::Error(r.out, "NOGROUP the consumer group this client was blocked on no "
                                   "longer exists");
      }
      return reply::Error(r.out, "NOGROUP No such key '" + key + "' or consumer group '" + a.group +
                                     "' in XREADGROUP with GROUP option");
    }
    const std::string& arg = a.ids[i];
    if (arg == "$") {
      if (a.group_mode) {
        return reply::Error(r.out, "ERR The $ ID is meaningless in the context of XREADGROUP: you "
                                   "want to read the history of this consumer by specifying a "
                                   "proper ID, or use the > ID to get new messages. The $ ID would "
                                   "just return an empty result set.");
      }
      if (!rerun) {
        src.after = src.stream.exists() ? src.stream.meta().last_id : StreamId();
        r.client.xread_ids[i] = src.after.Bytes();
      } else {
        src.after = StreamId::FromBytes(r.client.xread_ids[i]);
      }
    } else if (arg == ">") {
      if (!a.group_mode) {
        return reply::Error(r.out, "ERR The > ID can be specified only when calling XREADGROUP "
                                   "using the GROUP <group> <consumer> option.");
      }
      src.after = StreamId::Max();
    } else if (!ParseStreamId(r, arg, &src.after, 0, true)) {
      return;
    }
  }
  // Per stream served: the key, and its entries (history may hold nulls).
  struct Served {
    std::string key;
    std::vector<std::optional<StreamEntry>> entries;
    std::vector<StreamId> ids;
  };
  std::vector<Served> served;
  for (size_t i = 0; i < a.keys.size(); ++i) {
    Source& src = sources[i];
    // A key named again is read again: what serving it before changed
    // (the group's last id, its pending entries) counts, as in Redis.
    if (a.group_mode && std::find(a.keys.begin(), a.keys.begin() + i, a.keys[i]) != a.keys.begin() + i) {
      src.stream = StreamStore();
      if (!src.stream.Open(r, a.keys[i]) || !src.stream.ReadGroup(r, a.group, &src.group)) return;
      if (!src.group) continue;
    }
    StreamStore& stream = src.stream;
    if (!stream.exists()) continue;
    Served out{a.keys[i], {}, {}};
    if (a.group_mode && src.after != StreamId::Max()) {
      // The consumer's pending entries after the id given.
      StreamId start = src.after;
      start.Increment();
      if (!TouchConsumer(r, &stream, a.group, a.consumer) ||
          !ServeHistory(r, &stream, a, start, count, &out.entries, &out.ids) ||
          !stream.Commit(r)) {
        return;
      }
      served.push_back(std::move(out));
      continue;
    }
    if (stream.meta().length == 0) continue;
    std::optional<StreamId> last;
    if (!stream.EdgeId(r, true, &last)) return;
    const StreamId from = a.group_mode ? src.group->last_id : src.after;
    if (!last || *last <= from) continue;
    std::vector<StreamEntry> entries;
    if (a.group_mode) {
      if (!TouchConsumer(r, &stream, a.group, a.consumer) ||
          !ServeNew(r, &stream, a, &*src.group, count, &entries) || !stream.Commit(r)) {
        return;
      }
    } else {
      StreamId start = src.after;
      start.Increment();
      if (!stream.Range(r, start, StreamId::Max(), false, [&](const StreamEntry& e) {
            entries.push_back(e);
            return count == 0 || entries.size() < static_cast<size_t>(count);
          })) {
        return;
      }
    }
    for (StreamEntry& e : entries) {
      out.ids.push_back(e.id);
      out.entries.push_back(std::move(e));
    }
    served.push_back(std::move(out));
  }
  if (served.empty()) {
    if (a.block) return BlockOrNull(r, a.keys, a.deadline_ms, /*wake_on_delete=*/a.group_mode);
    return reply::NullArray(r.out, r.protocol());
  }
  // RESP2: [[key, entries], ...]; RESP3: a map of key to entries.
  if (r.protocol() == 2) {
    reply::ArrayHeader(r.out, served.size());
  } else {
    reply::MapHeader(r.out, r.protocol(), served.size());
  }
  for (const Served& s : served) {
    if (r.protocol() == 2) reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, s.key);
    reply::ArrayHeader(r.out, s.entries.size());
    for (size_t j = 0; j < s.entries.size(); ++j) {
      if (s.entries[j]) {
        ReplyStreamEntry(r, *s.entries[j]);
      } else {
        reply::ArrayHeader(r.out, 2);
        ReplyStreamId(r, s.ids[j]);
        reply::NullArray(r.out, r.protocol());
      }
    }
  }
}

}  // namespace

void AddStreamReadCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"xread", -4, XRead}, {"xreadgroup", -7, XRead}});
}

}  // namespace teksdb::server
