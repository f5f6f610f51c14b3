// What the stream commands share (stream_commands.cc,
// stream_group_commands.cc, stream_info_command.cc): stream ids as Redis
// 7.0 parses them (t_stream.c's streamGenericParseIDOrReply: "ms-seq",
// "ms" with a default sequence, "-" and "+", "(" for exclusive interval
// ends, "ms-*" for XADD), and entries and ids as Redis replies them.
#pragma once

#include <cstdint>
#include <string>

#include "request.h"
#include "stream_store.h"

namespace teksdb::server {

constexpr const char* kInvalidStreamId =
    "ERR Invalid stream ID specified as stream command argument";

// Parses `arg` into *id; a missing sequence is `missing_seq`. Strict: "-"
// and "+" refused. `seq_given` (XADD's, may be null): false for "ms-*".
// False if it is not an id; ParseStreamId has then replied Redis's error.
bool ParseStreamIdText(const std::string& arg, StreamId* id, uint64_t missing_seq, bool strict,
                       bool* seq_given = nullptr);
bool ParseStreamId(Request& r, const std::string& arg, StreamId* id, uint64_t missing_seq,
                   bool strict, bool* seq_given = nullptr);
// An interval end: "(" makes it exclusive (*id moved past it); false,
// having replied, when it cannot be (Redis's "invalid start ID ..." errors).
bool ParseIntervalStart(Request& r, const std::string& arg, StreamId* id);
bool ParseIntervalEnd(Request& r, const std::string& arg, StreamId* id);

void ReplyStreamId(Request& r, StreamId id);
// [id, [field, value, ...]]
void ReplyStreamEntry(Request& r, const StreamEntry& entry);
// The NOGROUP errors.
std::string NoGroupError(const std::string& key, const std::string& group);

// Milliseconds from `then` to `now`: 0 when `then` is later, saturated
// (delivery and seen times restored from a payload may be anything).
inline int64_t ElapsedMs(int64_t now, int64_t then) {
  if (then >= now) return 0;
  if (then < now - INT64_MAX) return INT64_MAX;
  return now - then;
}

}  // namespace teksdb::server
