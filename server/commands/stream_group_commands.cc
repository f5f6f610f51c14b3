// The consumer group commands but XREADGROUP (stream_read_command.cc), as
// Redis 7.0 answers them (t_stream.c): XGROUP CREATE (MKSTREAM,
// ENTRIESREAD) / SETID / DESTROY / CREATECONSUMER / DELCONSUMER / HELP,
// XACK, XPENDING (the summary; ranges with IDLE and a consumer), XCLAIM
// (IDLE, TIME, RETRYCOUNT, FORCE, JUSTID, LASTID) and XAUTOCLAIM (COUNT,
// JUSTID; deleted entries dropped from the pending lists and listed).
#include <map>
#include <set>

#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "resp_reply.h"
#include "stream_args.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

void XGroupHelp(Request& r) {
  static const char* const kHelp[] = {
      "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CREATE <key> <groupname> <id|$> [option]",
      "    Create a new consumer group. Options are:",
      "    * MKSTREAM",
      "      Create the empty stream if it does not exist.",
      "    * ENTRIESREAD entries_read",
      "      Set the group's entries_read counter (internal use).",
      "CREATECONSUMER <key> <groupname> <consumer>",
      "    Create a new consumer in the specified group.",
      "DELCONSUMER <key> <groupname> <consumer>",
      "    Remove the specified consumer.",
      "DESTROY <key> <groupname>",
      "    Remove the specified group.",
      "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
      "    Set the current group ID and entries_read counter.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kHelp);
}

void XGroup(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help" && r.args.size() == 2) return XGroupHelp(r);
  const bool create = sub == "create", setid = sub == "setid";
  if (r.args.size() < 4) return reply::Error(r.out, SubcommandSyntaxError(r.args[1], "XGROUP"));
  bool mkstream = false;
  int64_t entries_read = -1;
  for (size_t i = 5; i < r.args.size();) {
    const std::string opt = AsciiLower(r.args[i]);
    if (create && opt == "mkstream") {
      mkstream = true;
      ++i;
    } else if ((create || setid) && opt == "entriesread" && i + 1 < r.args.size()) {
      if (!ParseStrictInt64(r.args[i + 1], &entries_read)) return reply::Error(r.out, kNotInteger);
      if (entries_read < 0 && entries_read != -1) {
        return reply::Error(r.out, "ERR value for ENTRIESREAD must be positive or -1");
      }
      i += 2;
    } else {
      return reply::Error(r.out, SubcommandSyntaxError(r.args[1], "XGROUP"));
    }
  }
  const std::string& key = r.args[2];
  const std::string& name = r.args[3];
  auto locks = r.keyspace->LockKeys({key});
  StreamStore stream;
  if (!stream.Open(r, key)) return;
  std::optional<StreamGroup> group;
  if (!mkstream) {
    if (!stream.exists()) {
      return reply::Error(r.out, "ERR The XGROUP subcommand requires the key to exist. Note that "
                                 "for CREATE you may want to use the MKSTREAM option to create "
                                 "an empty stream automatically.");
    }
    if (!stream.ReadGroup(r, name, &group)) return;
    if (!group && (setid || sub == "createconsumer" || sub == "delconsumer")) {
      return reply::Error(r.out, "NOGROUP No such consumer group '" + name + "' for key name '" +
                                     key + "'");
    }
  } else if (stream.exists() && !stream.ReadGroup(r, name, &group)) {
    return;
  }
  if (create && r.args.size() >= 5 && r.args.size() <= 8) {
    StreamId id;
    if (r.args[4] == "$") {
      id = stream.exists() ? stream.meta().last_id : StreamId();
    } else if (!ParseStreamId(r, r.args[4], &id, 0, true)) {
      return;
    }
    if (group) return reply::Error(r.out, "BUSYGROUP Consumer Group name already exists");
    if (!stream.exists() && !stream.Create(r)) return;
    stream.PutGroup(name, StreamGroup{id, entries_read});
    if (stream.Commit(r)) reply::Ok(r.out);
  } else if (setid && (r.args.size() == 5 || r.args.size() == 7)) {
    StreamId id;
    if (r.args[4] == "$") {
      id = stream.meta().last_id;
    } else if (!ParseStreamId(r, r.args[4], &id, 0, false)) {
      return;
    }
    stream.PutGroup(name, StreamGroup{id, entries_read});
    if (stream.Commit(r)) reply::Ok(r.out);
  } else if (sub == "destroy" && r.args.size() == 4) {
    if (!group) return reply::Integer(r.out, 0);
    if (stream.DestroyGroup(r, name) && stream.Commit(r)) reply::Integer(r.out, 1);
  } else if (sub == "createconsumer" && r.args.size() == 5) {
    std::optional<int64_t> seen;
    if (!stream.ReadConsumer(r, name, r.args[4], &seen)) return;
    if (seen) return reply::Integer(r.out, 0);
    stream.PutConsumer(name, r.args[4], Keyspace::NowMs());
    if (stream.Commit(r)) reply::Integer(r.out, 1);
  } else if (sub == "delconsumer" && r.args.size() == 5) {
    std::optional<int64_t> seen;
    if (!stream.ReadConsumer(r, name, r.args[4], &seen)) return;
    if (!seen) return reply::Integer(r.out, 0);
    int64_t pending;
    if (stream.DeleteConsumer(r, name, r.args[4], &pending) && stream.Commit(r)) {
      reply::Integer(r.out, pending);
    }
  } else {
    reply::Error(r.out, SubcommandSyntaxError(r.args[1], "XGROUP"));
  }
}

// Opens the stream and its group for XACK, XPENDING, XCLAIM, XAUTOCLAIM:
// false having replied (WRONGTYPE, storage); *group empty when either is
// missing.
bool OpenGroup(Request& r, StreamStore* stream, std::optional<StreamGroup>* group) {
  if (!stream->Open(r, r.args[1])) return false;
  group->reset();
  return !stream->exists() || stream->ReadGroup(r, r.args[2], group);
}

// OpenGroup for the commands that need the group (XPENDING, XCLAIM,
// XAUTOCLAIM): a missing key or group is Redis's NOGROUP error.
bool OpenExistingGroup(Request& r, StreamStore* stream, std::optional<StreamGroup>* group) {
  if (!OpenGroup(r, stream, group)) return false;
  if (!*group) return reply::Error(r.out, NoGroupError(r.args[1], r.args[2])), false;
  return true;
}

// XACK key group id ...
void XAck(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  std::optional<StreamGroup> group;
  if (!OpenGroup(r, &stream, &group)) return;
  if (!group) return reply::Integer(r.out, 0);
  std::vector<StreamId> ids(r.args.size() - 3);
  for (size_t j = 3; j < r.args.size(); ++j) {
    if (!ParseStreamId(r, r.args[j], &ids[j - 3], 0, true)) return;
  }
  std::set<StreamId> acked;
  for (const StreamId id : ids) {
    if (acked.count(id) != 0) continue;
    std::optional<PendingEntry> p;
    if (!stream.ReadPending(r, r.args[2], id, &p)) return;
    if (!p) continue;
    stream.DeletePending(r.args[2], *p);
    acked.insert(id);
  }
  if (!acked.empty() && !stream.Commit(r)) return;
  reply::Integer(r.out, static_cast<int64_t>(acked.size()));
}

// XPENDING key group [[IDLE min-idle] start end count [consumer]]
void XPending(Request& r) {
  const size_t argc = r.args.size();
  if (argc != 3 && (argc < 6 || argc > 9)) return reply::Error(r.out, kSyntaxError);
  int64_t min_idle = 0, count = 0;
  StreamId start, end;
  const std::string* consumer = nullptr;
  if (argc >= 6) {
    size_t at = 3;
    if (AsciiLower(r.args[3]) == "idle") {
      if (!ParseStrictInt64(r.args[4], &min_idle)) return reply::Error(r.out, kNotInteger);
      if (argc < 8) return reply::Error(r.out, kSyntaxError);
      at += 2;
    }
    if (!ParseStrictInt64(r.args[at + 2], &count)) return reply::Error(r.out, kNotInteger);
    if (count < 0) count = 0;
    if (!ParseIntervalStart(r, r.args[at], &start) || !ParseIntervalEnd(r, r.args[at + 1], &end)) {
      return;
    }
    if (at + 3 < argc) consumer = &r.args[at + 3];
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  std::optional<StreamGroup> group;
  if (!OpenExistingGroup(r, &stream, &group)) return;
  const std::string& name = r.args[2];
  if (argc == 3) {
    std::vector<PendingEntry> all;
    if (!stream.ForEachPending(r, name, nullptr, StreamId(), [&](const PendingEntry& p) {
          all.push_back(p);
          return true;
        })) {
      return;
    }
    reply::ArrayHeader(r.out, 4);
    reply::Integer(r.out, static_cast<int64_t>(all.size()));
    if (all.empty()) {
      reply::Null(r.out, r.protocol());
      reply::Null(r.out, r.protocol());
      return reply::NullArray(r.out, r.protocol());
    }
    ReplyStreamId(r, all.front().id);
    ReplyStreamId(r, all.back().id);
    std::map<std::string, int64_t> per_consumer;
    for (const PendingEntry& p : all) ++per_consumer[p.consumer];
    reply::ArrayHeader(r.out, per_consumer.size());
    for (const auto& [c, n] : per_consumer) {
      reply::ArrayHeader(r.out, 2);
      reply::Bulk(r.out, c);
      reply::Bulk(r.out, std::to_string(n));
    }
    return;
  }
  if (consumer != nullptr) {
    std::optional<int64_t> seen;
    if (!stream.ReadConsumer(r, name, *consumer, &seen)) return;
    if (!seen) return reply::ArrayHeader(r.out, 0);
  }
  const int64_t now = Keyspace::NowMs();
  std::vector<PendingEntry> listed;
  if (count > 0 && !stream.ForEachPending(r, name, consumer, start, [&](const PendingEntry& p) {
        if (p.id > end) return false;
        if (min_idle != 0 && ElapsedMs(now, p.delivery_ms) < min_idle) return true;
        listed.push_back(p);
        return static_cast<int64_t>(listed.size()) < count;
      })) {
    return;
  }
  reply::ArrayHeader(r.out, listed.size());
  for (const PendingEntry& p : listed) {
    reply::ArrayHeader(r.out, 4);
    ReplyStreamId(r, p.id);
    reply::Bulk(r.out, p.consumer);
    reply::Integer(r.out, ElapsedMs(now, p.delivery_ms));
    reply::Integer(r.out, static_cast<int64_t>(p.delivery_count));
  }
}

// Claims pending entry `p` for `consumer` (created when missing), as
// XCLAIM and XAUTOCLAIM do; the entry's reply goes to *replies.
bool Claim(Request& r, StreamStore* stream, const std::string& group, PendingEntry p,
           const std::string& consumer, bool* consumer_touched, int64_t delivery_ms,
           int64_t retry_count, bool just_id, std::vector<StreamEntry>* claimed) {
  if (!*consumer_touched) {
    std::optional<int64_t> seen;
    if (!stream->ReadConsumer(r, group, consumer, &seen)) return false;
    r.client.event_hints.stream_consumer_created |= !seen;
    stream->PutConsumer(group, consumer, Keyspace::NowMs());
    *consumer_touched = true;
  }
  const std::string old_consumer = p.consumer;
  p.consumer = consumer;
  p.delivery_ms = delivery_ms;
  if (retry_count >= 0) {
    p.delivery_count = static_cast<uint64_t>(retry_count);
  } else if (!just_id) {
    ++p.delivery_count;
  }
  stream->PutPending(group, p, old_consumer.empty() ? nullptr : &old_consumer);
  std::optional<StreamEntry> entry;
  if (!just_id && !stream->ReadEntry(r, p.id, &entry)) return false;
  claimed->push_back(entry ? *entry : StreamEntry{p.id, {}});
  return true;
}

void ReplyClaimed(Request& r, const std::vector<StreamEntry>& claimed, bool just_id) {
  reply::ArrayHeader(r.out, claimed.size());
  for (const StreamEntry& e : claimed) just_id ? ReplyStreamId(r, e.id) : ReplyStreamEntry(r, e);
}

// XCLAIM key group consumer min-idle-time id ... [IDLE ms] [TIME ms]
//        [RETRYCOUNT n] [FORCE] [JUSTID] [LASTID id]
void XClaim(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  std::optional<StreamGroup> group;
  if (!OpenExistingGroup(r, &stream, &group)) return;
  int64_t min_idle;
  if (!ParseStrictInt64(r.args[4], &min_idle)) {
    return reply::Error(r.out, "ERR Invalid min-idle-time argument for XCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  // The ids run until the first argument that is not one.
  std::vector<StreamId> ids;
  size_t j = 5;
  for (; j < r.args.size(); ++j) {
    StreamId id;
    if (!ParseStreamIdText(r.args[j], &id, 0, true)) break;
    ids.push_back(id);
  }
  const int64_t now = Keyspace::NowMs();
  int64_t delivery_ms = -1, retry_count = -1;
  bool force = false, just_id = false;
  StreamId last_id;
  for (; j < r.args.size(); ++j) {
    const bool more = j + 1 < r.args.size();
    const std::string opt = AsciiLower(r.args[j]);
    int64_t n;
    if (opt == "force") {
      force = true;
    } else if (opt == "justid") {
      just_id = true;
    } else if (opt == "idle" && more) {
      if (!ParseStrictInt64(r.args[++j], &n)) {
        return reply::Error(r.out, "ERR Invalid IDLE option argument for XCLAIM");
      }
      delivery_ms = n < 0 || n > now ? now : now - n;  // clamped below, as Redis clamps
    } else if (opt == "time" && more) {
      if (!ParseStrictInt64(r.args[++j], &n)) {
        return reply::Error(r.out, "ERR Invalid TIME option argument for XCLAIM");
      }
      delivery_ms = n;
    } else if (opt == "retrycount" && more) {
      if (!ParseStrictInt64(r.args[++j], &retry_count)) {
        return reply::Error(r.out, "ERR Invalid RETRYCOUNT option argument for XCLAIM");
      }
    } else if (opt == "lastid" && more) {
      if (!ParseStreamId(r, r.args[++j], &last_id, 0, true)) return;
    } else {
      return reply::Error(r.out, "ERR Unrecognized XCLAIM option '" + r.args[j] + "'");
    }
  }
  const std::string& name = r.args[2];
  bool changed = false;
  if (last_id > group->last_id) {
    group->last_id = last_id;
    stream.PutGroup(name, *group);
    changed = true;
  }
  if (delivery_ms == -1 || delivery_ms < 0 || delivery_ms > now) delivery_ms = now;
  std::vector<StreamEntry> claimed;
  bool consumer_touched = false;
  std::set<StreamId> seen_ids;
  for (const StreamId id : ids) {
    if (!seen_ids.insert(id).second) continue;
    std::optional<PendingEntry> p;
    std::optional<StreamEntry> entry;
    if (!stream.ReadPending(r, name, id, &p) || !stream.ReadEntry(r, id, &entry)) return;
    if (!entry) {
      // Deleted from the stream: dropped from the pending lists too.
      if (p) {
        stream.DeletePending(name, *p);
        changed = true;
      }
      continue;
    }
    // FORCE makes the entry pending first, delivered once (streamCreateNACK).
    if (!p && force) p = PendingEntry{id, std::string(), now, 1};
    if (!p) continue;
    if (!p->consumer.empty() && min_idle != 0 && ElapsedMs(now, p->delivery_ms) < min_idle) continue;
    if (!Claim(r, &stream, name, *p, r.args[3], &consumer_touched, delivery_ms, retry_count,
               just_id, &claimed)) {
      return;
    }
    changed = true;
  }
  if ((changed || consumer_touched) && !stream.Commit(r)) return;
  ReplyClaimed(r, claimed, just_id);
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT n] [JUSTID]
void XAutoClaim(Request& r) {
  int64_t min_idle;
  if (!ParseStrictInt64(r.args[4], &min_idle)) {
    return reply::Error(r.out, "ERR Invalid min-idle-time argument for XAUTOCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  StreamId start;
  if (!ParseIntervalStart(r, r.args[5], &start)) return;
  int64_t count = 100;
  bool just_id = false;
  for (size_t j = 6; j < r.args.size(); ++j) {
    const std::string opt = AsciiLower(r.args[j]);
    if (opt == "count" && j + 1 < r.args.size()) {
      constexpr int64_t kMaxCount = INT64_MAX / 16;
      if (!ParseStrictInt64(r.args[j + 1], &count) || count < 1 || count > kMaxCount) {
        return reply::Error(r.out, "ERR COUNT must be > 0");
      }
      ++j;
    } else if (opt == "justid") {
      just_id = true;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  std::optional<StreamGroup> group;
  if (!OpenExistingGroup(r, &stream, &group)) return;
  const std::string& name = r.args[2];
  const int64_t now = Keyspace::NowMs();
  int64_t attempts = count * 10;
  std::vector<PendingEntry> candidates;
  std::optional<StreamId> next;
  // Up to `attempts` pending entries from `start`, and the one after them
  // (where the next call starts).
  if (!stream.ForEachPending(r, name, nullptr, start, [&](const PendingEntry& p) {
        if (static_cast<int64_t>(candidates.size()) == attempts) {
          next = p.id;
          return false;
        }
        candidates.push_back(p);
        return true;
      })) {
    return;
  }
  std::vector<StreamEntry> claimed;
  std::vector<StreamId> deleted;
  bool consumer_touched = false;
  size_t used = 0;
  for (; used < candidates.size() && count > 0; ++used) {
    const PendingEntry& p = candidates[used];
    std::optional<StreamEntry> entry;
    if (!stream.ReadEntry(r, p.id, &entry)) return;
    if (!entry) {
      stream.DeletePending(name, p);
      deleted.push_back(p.id);
      --count;
      continue;
    }
    if (min_idle != 0 && ElapsedMs(now, p.delivery_ms) < min_idle) continue;
    if (!Claim(r, &stream, name, p, r.args[3], &consumer_touched, now, -1, just_id, &claimed)) {
      return;
    }
    --count;
  }
  if (used < candidates.size()) next = candidates[used].id;
  if ((!claimed.empty() || !deleted.empty() || consumer_touched) && !stream.Commit(r)) return;
  reply::ArrayHeader(r.out, 3);
  ReplyStreamId(r, next ? *next : StreamId());
  ReplyClaimed(r, claimed, just_id);
  reply::ArrayHeader(r.out, deleted.size());
  for (const StreamId id : deleted) ReplyStreamId(r, id);
}

}  // namespace

void AddStreamGroupCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"xgroup", -2, XGroup},
                               {"xack", -4, XAck},
                               {"xpending", -3, XPending},
                               {"xclaim", -6, XClaim},
                               {"xautoclaim", -6, XAutoClaim}});
}

}  // namespace teksdb::server
