// SortedSet: how a sorted set is stored and read back, shared by the sorted
// set commands (zset_commands.cc, zset_range_commands.cc) and ZSCAN.
//
// A sorted set is a Collection (collection.h) of type 'z' whose members
// hold their scores (8 raw bytes of the double, RawScore), plus a score
// index: "score + member" entries whose bytes sort as (score, member) do,
// as Redis orders them (IndexEntry). A large one keeps the index as records
// under its version; a compact one (inside its meta record) has it made
// from its members when read (Collection::ForEachIndexEntry). Scores are
// read and printed as Redis 7.0 does (ParseScore, FormatScore: d2string).
//
// Thread safety: pure functions, and helpers of one command's Collection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collection.h"
#include "double_text.h"
#include "request.h"

namespace teksdb::server {

constexpr const char* kNotFloat = "ERR value is not a valid float";

// Redis's getDoubleFromObject: all of the string, no leading space, no NaN.
bool ParseScore(const std::string& s, double* out);
// A stored score: the double's 8 bytes, -0 stored as 0, as Redis's listpack
// stores it (Redis's skip list keeps -0; the score index, which orders -0
// as 0, could not give it back, so neither encoding keeps it here).
std::string RawScore(double v);
double ScoreOf(const std::string& raw);
// 8 bytes that sort as the doubles do (-0 as 0), then the member.
std::string IndexEntry(double score, const std::string& member);
double EntryScore(const std::string& entry);
inline std::string_view EntryMember(const std::string& entry) {
  return std::string_view(entry).substr(8);
}

// Sets member's score in an open sorted set, keeping the index; *old is
// its previous score, if any.
bool SetScore(Request& r, Collection* zset, const std::string& member, double score,
              const std::optional<double>& old);
// The score of `member`, if any: read under the key's lock, or without it
// (Collection::ReadMemberUnlocked: a miss is checked).
bool ReadScore(Request& r, Collection* zset, const std::string& member, bool locked,
               std::optional<double>* score);
// Every index entry of the open sorted set, in order (a short scan read
// without the key's lock is checked: Collection::Settled).
bool AllEntries(Request& r, Collection& zset, std::vector<std::string>* entries);
// Members, or members and scores: in RESP2 one flat array; in RESP3 an
// array of [member, score] pairs, or one flat pair for ZPOPMIN without a
// count (`flat`), as Redis 7.0 replies.
void ReplyEntries(Request& r, const std::vector<std::string>& entries, bool with_scores,
                  bool flat = false);
// Removes the index entries from the open sorted set (their members too).
bool RemoveEntries(Request& r, Collection* zset, const std::vector<std::string>& entries);

}  // namespace teksdb::server
