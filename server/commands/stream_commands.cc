// The stream commands without consumer groups, as Redis 7.0 answers them
// (t_stream.c): XADD (MAXLEN/MINID trimming, "=" and "~", LIMIT,
// NOMKSTREAM, "*", "ms-*" and explicit ids), XLEN, XRANGE, XREVRANGE (COUNT,
// exclusive "(" ends), XDEL, XTRIM, XSETID (ENTRIESADDED, MAXDELETEDID).
// Storage and Redis's node boundaries: types/stream_store.h.
#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "stream_args.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// XADD/XTRIM's options (streamParseAddOrTrimArgsOrReply); for XADD,
// *id_at is where the id is. False, having replied.
bool ParseTrim(Request& r, bool xadd, StreamTrim* trim, size_t* id_at, bool* nomkstream,
               bool* id_given, StreamId* id, bool* seq_given) {
  bool limit_given = false;
  size_t i = 2;
  for (; i < r.args.size(); ++i) {
    const size_t more = r.args.size() - 1 - i;
    const std::string& arg = r.args[i];
    const std::string opt = AsciiLower(arg);
    if (xadd && arg == "*") {
      break;
    } else if ((opt == "maxlen" || opt == "minid") && more > 0) {
      if (trim->strategy != StreamTrim::Strategy::kNone) {
        reply::Error(r.out, "ERR syntax error, MAXLEN and MINID options at the same time are not "
                            "compatible");
        return false;
      }
      trim->approx = false;
      const std::string& next = r.args[i + 1];
      if (more >= 2 && (next == "~" || next == "=")) {
        trim->approx = next == "~";
        ++i;
      }
      if (opt == "maxlen") {
        int64_t n;
        if (!ParseStrictInt64(r.args[i + 1], &n)) return reply::Error(r.out, kNotInteger), false;
        if (n < 0) return reply::Error(r.out, "ERR The MAXLEN argument must be >= 0."), false;
        trim->maxlen = static_cast<uint64_t>(n);
        trim->strategy = StreamTrim::Strategy::kMaxLen;
      } else {
        if (!ParseStreamId(r, r.args[i + 1], &trim->minid, 0, true)) return false;
        trim->strategy = StreamTrim::Strategy::kMinId;
      }
      ++i;
    } else if (opt == "limit" && more > 0) {
      if (!ParseStrictInt64(r.args[i + 1], &trim->limit)) return reply::Error(r.out, kNotInteger), false;
      if (trim->limit < 0) return reply::Error(r.out, "ERR The LIMIT argument must be >= 0."), false;
      limit_given = true;
      ++i;
    } else if (xadd && opt == "nomkstream") {
      *nomkstream = true;
    } else if (xadd) {
      if (!ParseStreamId(r, arg, id, 0, true, seq_given)) return false;
      *id_given = true;
      break;
    } else {
      return reply::Error(r.out, kSyntaxError), false;
    }
  }
  *id_at = i;
  if (trim->limit != 0 && trim->strategy == StreamTrim::Strategy::kNone) {
    reply::Error(r.out, "ERR syntax error, LIMIT cannot be used without specifying a trimming "
                        "strategy");
    return false;
  }
  if (!xadd && trim->strategy == StreamTrim::Strategy::kNone) {
    reply::Error(r.out, "ERR syntax error, XTRIM must be called with a trimming strategy");
    return false;
  }
  if (limit_given) {
    if (!trim->approx) {
      reply::Error(r.out, "ERR syntax error, LIMIT cannot be used without the special ~ option");
      return false;
    }
  } else if (trim->approx) {
    // At most 100 nodes' worth, as Redis bounds an approximate trim
    // (between 10,000 for no node limit and 1,000,000).
    const int64_t per_node = r.server.stream_node_max_entries.load();
    trim->limit = per_node <= 0 ? 10000 : per_node > 10000 ? 1000000 : 100 * per_node;
  } else {
    trim->limit = 0;
  }
  return true;
}

// The id XADD gives the entry (streamAppendItem); false when it cannot.
bool NextId(const StreamMeta& meta, bool id_given, StreamId given, bool seq_given, StreamId* id) {
  if (!id_given) {
    const uint64_t now = static_cast<uint64_t>(Keyspace::NowMs());
    if (now > meta.last_id.ms) {
      *id = {now, 0};
    } else {
      *id = meta.last_id;
      id->Increment();
    }
  } else if (seq_given) {
    *id = given;
  } else if (meta.last_id.ms == given.ms) {
    if (meta.last_id.seq == UINT64_MAX) return false;
    *id = {given.ms, meta.last_id.seq + 1};
  } else {
    *id = given;
  }
  return *id > meta.last_id;
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT n]] *|id field value ...
void XAdd(Request& r) {
  StreamTrim trim;
  size_t id_at;
  bool nomkstream = false, id_given = false, seq_given = true;
  StreamId given;
  if (!ParseTrim(r, true, &trim, &id_at, &nomkstream, &id_given, &given, &seq_given)) return;
  const size_t fields_at = id_at + 1;
  if (fields_at > r.args.size() || r.args.size() - fields_at < 2 ||
      (r.args.size() - fields_at) % 2 != 0) {
    return reply::Error(r.out, "ERR wrong number of arguments for 'xadd' command");
  }
  if (id_given && seq_given && given.zero()) {
    return reply::Error(r.out, "ERR The ID specified in XADD must be greater than 0-0");
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  if (!stream.Open(r, r.args[1])) return;
  if (!stream.exists()) {
    if (nomkstream) return reply::Null(r.out, r.protocol());
    if (!stream.Create(r)) return;
  }
  if (stream.meta().last_id == StreamId::Max()) {
    return reply::Error(r.out, "ERR The stream has exhausted the last possible ID, unable to add "
                               "more items");
  }
  StreamId id;
  if (!NextId(stream.meta(), id_given, given, seq_given, &id)) {
    return reply::Error(r.out, "ERR The ID specified in XADD is equal or smaller than the target "
                               "stream top item");
  }
  StreamFields fields;
  uint64_t bytes = 0;
  for (size_t i = fields_at; i + 1 < r.args.size(); i += 2) {
    fields.emplace_back(r.args[i], r.args[i + 1]);
    bytes += r.args[i].size() + r.args[i + 1].size();
  }
  if (bytes > (uint64_t{1} << 30)) return reply::Error(r.out, "ERR Elements are too large to be stored");
  stream.Append(id, fields, r.server.stream_node_max_bytes.load(),
                r.server.stream_node_max_entries.load());
  if (!stream.Commit(r)) return;
  // Trimmed after the add, in a write of its own, as Redis trims (and
  // tells "xtrim") after the entry is in.
  int64_t deleted = 0;
  if (!stream.Trim(r, trim, &deleted)) return;
  if (deleted > 0 && !stream.Commit(r)) return;
  ReplyStreamId(r, id);
}

void XLen(Request& r) {
  StreamStore stream;
  if (!stream.Open(r, r.args[1])) return;
  reply::Integer(r.out, stream.exists() ? static_cast<int64_t>(stream.meta().length) : 0);
}

// XRANGE key start end [COUNT n], XREVRANGE key end start [COUNT n]
void Range(Request& r, bool reverse) {
  StreamId start, end;
  if (!ParseIntervalStart(r, r.args[reverse ? 3 : 2], &start)) return;
  if (!ParseIntervalEnd(r, r.args[reverse ? 2 : 3], &end)) return;
  int64_t count = -1;
  for (size_t j = 4; j < r.args.size(); ++j) {
    if (AsciiLower(r.args[j]) == "count" && j + 1 < r.args.size()) {
      if (!ParseStrictInt64(r.args[++j], &count)) return reply::Error(r.out, kNotInteger);
      if (count < 0) count = 0;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  if (!stream.Open(r, r.args[1])) return;
  if (!stream.exists()) return reply::ArrayHeader(r.out, 0);
  if (count == 0) return reply::NullArray(r.out, r.protocol());
  std::vector<StreamEntry> entries;
  if (!stream.Range(r, start, end, reverse, [&](const StreamEntry& e) {
        entries.push_back(e);
        return count < 0 || entries.size() < static_cast<size_t>(count);
      })) {
    return;
  }
  reply::ArrayHeader(r.out, entries.size());
  for (const StreamEntry& e : entries) ReplyStreamEntry(r, e);
}
void XRange(Request& r) { Range(r, false); }
void XRevRange(Request& r) { Range(r, true); }

// XDEL key id ...
void XDel(Request& r) {
  std::vector<StreamId> ids(r.args.size() - 2);
  for (size_t j = 2; j < r.args.size(); ++j) {
    if (!ParseStreamId(r, r.args[j], &ids[j - 2], 0, true)) return;
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  if (!stream.Open(r, r.args[1])) return;
  if (!stream.exists()) return reply::Integer(r.out, 0);
  StreamMeta& meta = stream.meta();
  int64_t deleted = 0;
  bool first_entry = false;
  for (const StreamId id : ids) {
    bool gone;
    if (!stream.Delete(r, id, &gone)) return;
    if (!gone) continue;
    ++deleted;
    first_entry |= id == meta.first_id;
    if (id > meta.max_deleted) meta.max_deleted = id;
  }
  if (deleted > 0) {
    if (meta.length == 0) {
      meta.first_id = StreamId();
    } else if (first_entry) {
      std::optional<StreamId> first;
      if (!stream.EdgeId(r, false, &first)) return;
      meta.first_id = first ? *first : StreamId();
    }
    if (!stream.Commit(r)) return;
  }
  reply::Integer(r.out, deleted);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT n]
void XTrim(Request& r) {
  StreamTrim trim;
  size_t unused_at;
  bool unused_nomkstream = false, unused_given = false, unused_seq = true;
  StreamId unused_id;
  if (!ParseTrim(r, false, &trim, &unused_at, &unused_nomkstream, &unused_given, &unused_id,
                 &unused_seq)) {
    return;
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  if (!stream.Open(r, r.args[1])) return;
  if (!stream.exists()) return reply::Integer(r.out, 0);
  int64_t deleted = 0;
  if (!stream.Trim(r, trim, &deleted)) return;
  if (deleted > 0 && !stream.Commit(r)) return;
  reply::Integer(r.out, deleted);
}

// XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]
void XSetId(Request& r) {
  StreamId id, max_deleted;
  if (!ParseStreamId(r, r.args[2], &id, 0, true)) return;
  int64_t entries_added = -1;
  for (size_t i = 3; i < r.args.size(); i += 2) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "entriesadded" && i + 1 < r.args.size()) {
      if (!ParseStrictInt64(r.args[i + 1], &entries_added)) return reply::Error(r.out, kNotInteger);
      if (entries_added < 0) return reply::Error(r.out, "ERR entries_added must be positive");
    } else if (opt == "maxdeletedid" && i + 1 < r.args.size()) {
      if (!ParseStreamId(r, r.args[i + 1], &max_deleted, 0, true)) return;
      if (id < max_deleted) {
        return reply::Error(r.out, "ERR The ID specified in XSETID is smaller than the provided "
                                   "max_deleted_entry_id");
      }
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StreamStore stream;
  if (!stream.Open(r, r.args[1])) return;
  if (!stream.exists()) return reply::Error(r.out, "ERR no such key");
  StreamMeta& meta = stream.meta();
  if (meta.length > 0) {
    std::optional<StreamId> last;
    if (!stream.EdgeId(r, true, &last)) return;
    if (last && id < *last) {
      return reply::Error(r.out, "ERR The ID specified in XSETID is smaller than the target "
                                 "stream top item");
    }
    if (entries_added != -1 && meta.length > static_cast<uint64_t>(entries_added)) {
      return reply::Error(r.out, "ERR The entries_added specified in XSETID is smaller than the "
                                 "target stream length");
    }
  }
  meta.last_id = id;
  if (entries_added != -1) meta.entries_added = static_cast<uint64_t>(entries_added);
  if (!max_deleted.zero()) meta.max_deleted = max_deleted;
  if (stream.Commit(r)) reply::Ok(r.out);
}

}  // namespace

void AddStreamCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"xadd", -5, XAdd},
                               {"xlen", 2, XLen},
                               {"xrange", -4, XRange},
                               {"xrevrange", -4, XRevRange},
                               {"xdel", -3, XDel},
                               {"xtrim", -4, XTrim},
                               {"xsetid", -3, XSetId}});
}

}  // namespace teksdb::server
