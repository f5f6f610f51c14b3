// XINFO STREAM [FULL [COUNT n]] / GROUPS / CONSUMERS / HELP, as Redis 7.0
// answers them (t_stream.c's xinfoCommand): lengths, ids and counters,
// the groups' lag (streamReplyWithCGLag), pending entries and consumers.
// radix-tree-keys is the number of nodes Redis would keep (stream_store.h);
// radix-tree-nodes, which depends on how Redis's radix tree splits its
// keys, is what that tree has when the nodes' ids share all but their last
// bytes (1 for none, 2 for one, keys + 2 beyond).
#include <map>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "stream_args.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

void Field(Request& r, const char* name) { reply::Bulk(r.out, name); }

void ReplyLag(Request& r, const StreamMeta& meta, const StreamGroup& g) {
  if (meta.entries_added == 0) return reply::Integer(r.out, 0);
  if (g.entries_read != -1 && !HasTombstonesFrom(meta, g.last_id)) {
    return reply::Integer(r.out, GroupLag(meta.entries_added, g.entries_read));
  }
  const int64_t read = EstimateEntriesRead(meta, g.last_id);
  if (read == -1) return reply::Null(r.out, r.protocol());
  reply::Integer(r.out, GroupLag(meta.entries_added, read));
}

void ReplyEntriesRead(Request& r, const StreamGroup& g) {
  g.entries_read == -1 ? reply::Null(r.out, r.protocol()) : reply::Integer(r.out, g.entries_read);
}

bool ReplyStream(Request& r, StreamStore& stream) {
  bool full = false;
  int64_t count = 10;
  const size_t options = r.args.size() - 3;
  if (options != 0) {
    if ((options != 1 && options != 3) || AsciiLower(r.args[3]) != "full" ||
        (options == 3 && AsciiLower(r.args[4]) != "count")) {
      reply::Error(r.out, "ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try "
                          "XINFO HELP.");
      return true;
    }
    full = true;
    if (options == 3) {
      if (!ParseStrictInt64(r.args[5], &count)) return reply::Error(r.out, kNotInteger), true;
      if (count < 0) count = 10;
    }
  }
  const StreamMeta& meta = stream.meta();
  const int64_t keys = static_cast<int64_t>(meta.nodes);
  std::vector<std::pair<std::string, StreamGroup>> groups;
  if (!stream.ForEachGroup(r, [&](const std::string& name, const StreamGroup& g) {
        groups.emplace_back(name, g);
        return true;
      })) {
    return false;
  }
  reply::MapHeader(r.out, r.protocol(), full ? 9 : 10);
  Field(r, "length");
  reply::Integer(r.out, static_cast<int64_t>(meta.length));
  Field(r, "radix-tree-keys");
  reply::Integer(r.out, keys);
  Field(r, "radix-tree-nodes");
  reply::Integer(r.out, keys == 0 ? 1 : keys == 1 ? 2 : keys + 2);
  Field(r, "last-generated-id");
  ReplyStreamId(r, meta.last_id);
  Field(r, "max-deleted-entry-id");
  ReplyStreamId(r, meta.max_deleted);
  Field(r, "entries-added");
  reply::Integer(r.out, static_cast<int64_t>(meta.entries_added));
  Field(r, "recorded-first-entry-id");
  ReplyStreamId(r, meta.first_id);
  if (!full) {
    Field(r, "groups");
    reply::Integer(r.out, static_cast<int64_t>(groups.size()));
    for (const bool last : {false, true}) {
      Field(r, last ? "last-entry" : "first-entry");
      std::optional<StreamEntry> edge;
      if (!stream.Range(r, StreamId(), StreamId::Max(), last, [&](const StreamEntry& e) {
            edge = e;
            return false;
          })) {
        return false;
      }
      edge ? ReplyStreamEntry(r, *edge) : reply::Null(r.out, r.protocol());
    }
    return true;
  }
  Field(r, "entries");
  std::vector<StreamEntry> entries;
  if (!stream.Range(r, StreamId(), StreamId::Max(), false, [&](const StreamEntry& e) {
        entries.push_back(e);
        return count == 0 || static_cast<int64_t>(entries.size()) < count;
      })) {
    return false;
  }
  reply::ArrayHeader(r.out, entries.size());
  for (const StreamEntry& e : entries) ReplyStreamEntry(r, e);
  Field(r, "groups");
  reply::ArrayHeader(r.out, groups.size());
  for (const auto& [name, g] : groups) {
    std::vector<PendingEntry> pending;
    std::map<std::string, std::vector<PendingEntry>> by_consumer;
    if (!stream.ForEachPending(r, name, nullptr, StreamId(), [&](const PendingEntry& p) {
          pending.push_back(p);
          by_consumer[p.consumer].push_back(p);
          return true;
        })) {
      return false;
    }
    std::vector<std::pair<std::string, int64_t>> consumers;
    if (!stream.ForEachConsumer(r, name, [&](const std::string& c, int64_t seen) {
          consumers.emplace_back(c, seen);
          return true;
        })) {
      return false;
    }
    const auto limited = [&](size_t n) {
      return count == 0 ? n : std::min(n, static_cast<size_t>(count));
    };
    reply::MapHeader(r.out, r.protocol(), 7);
    Field(r, "name");
    reply::Bulk(r.out, name);
    Field(r, "last-delivered-id");
    ReplyStreamId(r, g.last_id);
    Field(r, "entries-read");
    ReplyEntriesRead(r, g);
    Field(r, "lag");
    ReplyLag(r, meta, g);
    Field(r, "pel-count");
    reply::Integer(r.out, static_cast<int64_t>(pending.size()));
    Field(r, "pending");
    reply::ArrayHeader(r.out, limited(pending.size()));
    for (size_t i = 0; i < limited(pending.size()); ++i) {
      reply::ArrayHeader(r.out, 4);
      ReplyStreamId(r, pending[i].id);
      reply::Bulk(r.out, pending[i].consumer);
      reply::Integer(r.out, pending[i].delivery_ms);
      reply::Integer(r.out, static_cast<int64_t>(pending[i].delivery_count));
    }
    Field(r, "consumers");
    reply::ArrayHeader(r.out, consumers.size());
    for (const auto& [c, seen] : consumers) {
      const std::vector<PendingEntry>& own = by_consumer[c];
      reply::MapHeader(r.out, r.protocol(), 4);
      Field(r, "name");
      reply::Bulk(r.out, c);
      Field(r, "seen-time");
      reply::Integer(r.out, seen);
      Field(r, "pel-count");
      reply::Integer(r.out, static_cast<int64_t>(own.size()));
      Field(r, "pending");
      reply::ArrayHeader(r.out, limited(own.size()));
      for (size_t i = 0; i < limited(own.size()); ++i) {
        reply::ArrayHeader(r.out, 3);
        ReplyStreamId(r, own[i].id);
        reply::Integer(r.out, own[i].delivery_ms);
        reply::Integer(r.out, static_cast<int64_t>(own[i].delivery_count));
      }
    }
  }
  return true;
}

void XInfoHelp(Request& r) {
  static const char* const kHelp[] = {
      "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CONSUMERS <key> <groupname>",
      "    Show consumers of <groupname>.",
      "GROUPS <key>",
      "    Show the stream consumer groups.",
      "STREAM <key> [FULL [COUNT <count>]",
      "    Show information about the stream.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kHelp);
}

// XINFO STREAM|GROUPS|CONSUMERS key ... (SubcommandError checked the arity).
void XInfo(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return XInfoHelp(r);
  auto locks = r.keyspace->LockKeys({r.args[2]});
  StreamStore stream;
  if (!stream.Open(r, r.args[2])) return;
  if (!stream.exists()) return reply::Error(r.out, "ERR no such key");
  if (sub == "stream") {
    ReplyStream(r, stream);
    return;
  }
  if (sub == "consumers") {
    std::optional<StreamGroup> group;
    if (!stream.ReadGroup(r, r.args[3], &group)) return;
    if (!group) {
      return reply::Error(r.out, "NOGROUP No such consumer group '" + r.args[3] +
                                     "' for key name '" + r.args[2] + "'");
    }
    std::vector<std::pair<std::string, int64_t>> consumers;
    std::map<std::string, int64_t> pending;
    if (!stream.ForEachConsumer(r, r.args[3], [&](const std::string& c, int64_t seen) {
          consumers.emplace_back(c, seen);
          return true;
        }) ||
        !stream.ForEachPending(r, r.args[3], nullptr, StreamId(), [&](const PendingEntry& p) {
          ++pending[p.consumer];
          return true;
        })) {
      return;
    }
    const int64_t now = Keyspace::NowMs();
    reply::ArrayHeader(r.out, consumers.size());
    for (const auto& [c, seen] : consumers) {
      reply::MapHeader(r.out, r.protocol(), 3);
      Field(r, "name");
      reply::Bulk(r.out, c);
      Field(r, "pending");
      reply::Integer(r.out, pending[c]);
      Field(r, "idle");
      reply::Integer(r.out, ElapsedMs(now, seen));
    }
    return;
  }
  // groups
  std::vector<std::pair<std::string, StreamGroup>> groups;
  if (!stream.ForEachGroup(r, [&](const std::string& name, const StreamGroup& g) {
        groups.emplace_back(name, g);
        return true;
      })) {
    return;
  }
  reply::ArrayHeader(r.out, groups.size());
  for (const auto& [name, g] : groups) {
    int64_t consumers = 0, pending = 0;
    if (!stream.ForEachConsumer(r, name, [&](const std::string&, int64_t) {
          ++consumers;
          return true;
        }) ||
        !stream.ForEachPending(r, name, nullptr, StreamId(), [&](const PendingEntry&) {
          ++pending;
          return true;
        })) {
      return;
    }
    reply::MapHeader(r.out, r.protocol(), 6);
    Field(r, "name");
    reply::Bulk(r.out, name);
    Field(r, "consumers");
    reply::Integer(r.out, consumers);
    Field(r, "pending");
    reply::Integer(r.out, pending);
    Field(r, "last-delivered-id");
    ReplyStreamId(r, g.last_id);
    Field(r, "entries-read");
    ReplyEntriesRead(r, g);
    Field(r, "lag");
    ReplyLag(r, stream.meta(), g);
  }
}

}  // namespace

void AddStreamInfoCommand(std::vector<Command>* table) {
  table->push_back({"xinfo", -2, XInfo});
}

}  // namespace teksdb::server
