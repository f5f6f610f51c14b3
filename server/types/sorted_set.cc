// SortedSet implementation: the score codecs and the helpers commands share.
#include "sorted_set.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "resp_reply.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

// Redis's getDoubleFromObject: all of the string, no leading space, no NaN.
bool ParseScore(const std::string& s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

std::string RawScore(double v) {
  if (v == 0) v = 0;
  return std::string(reinterpret_cast<const char*>(&v), 8);
}
double ScoreOf(const std::string& raw) {
  double v = 0;
  if (raw.size() == 8) std::memcpy(&v, raw.data(), 8);
  return v;
}

// 8 bytes that sort as the doubles do (-0 as 0), then the member.
std::string IndexEntry(double score, const std::string& member) {
  if (score == 0) score = 0;
  uint64_t bits;
  std::memcpy(&bits, &score, 8);
  bits = (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
  std::string entry;
  for (int i = 0; i < 8; ++i) entry.push_back(static_cast<char>(bits >> (56 - 8 * i)));
  return entry + member;
}
double EntryScore(const std::string& entry) {
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(entry[i]);
  bits = (bits >> 63) ? bits & ~(uint64_t{1} << 63) : ~bits;
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

// Sets member's score in an open sorted set, keeping the index; *old is
// its previous score, if any.
bool SetScore(Request& r, Collection* zset, const std::string& member, double score,
              const std::optional<double>& old) {
  bool existed;
  // PutMember first: it gives a new sorted set its version.
  if (!zset->PutMember(r, member, RawScore(score), &existed)) return false;
  if (old) zset->DeleteIndex(IndexEntry(*old, member));
  zset->PutIndex(IndexEntry(score, member));
  return true;
}

// The score of `member`, if any: read under the key's lock, or without it
// (Collection::ReadMemberUnlocked: a miss is checked).
bool ReadScore(Request& r, Collection* zset, const std::string& member, bool locked,
               std::optional<double>* score) {
  std::optional<std::string> raw;
  if (!(locked ? zset->ReadMember(r, member, &raw) : zset->ReadMemberUnlocked(r, member, &raw))) {
    return false;
  }
  score->reset();
  if (raw) *score = ScoreOf(*raw);
  return true;
}

// Every index entry of the open sorted set, in order, without the key's
// lock (a short scan is checked: Collection::Settled).
bool AllEntries(Request& r, Collection& zset, std::vector<std::string>* entries) {
  if (!zset.exists()) return true;
  if (!zset.ForEachIndexEntry(r, [&](const std::string& e) {
        entries->push_back(e);
        return true;
      })) {
    return false;
  }
  return static_cast<int64_t>(entries->size()) >= zset.count() || zset.Settled(r);
}

// Members, or members and scores: in RESP2 one flat array; in RESP3 an
// array of [member, score] pairs, or one flat pair for ZPOPMIN without a
// count (`flat`), as Redis 7.0 replies.
void ReplyEntries(Request& r, const std::vector<std::string>& entries, bool with_scores,
                  bool flat) {
  const bool pairs = with_scores && r.protocol() == 3 && !flat;
  reply::ArrayHeader(r.out, entries.size() * (with_scores && !pairs ? 2 : 1));
  for (const std::string& e : entries) {
    if (pairs) reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, std::string_view(e).substr(8));
    if (with_scores) reply::Double(r.out, r.protocol(), FormatScore(EntryScore(e)));
  }
}

bool RemoveEntries(Request& r, Collection* zset, const std::vector<std::string>& entries) {
  for (const std::string& e : entries) {
    bool existed;
    if (!zset->DeleteMember(r, std::string(EntryMember(e)), &existed)) return false;
    zset->DeleteIndex(e);
  }
  return true;
}

}  // namespace teksdb::server
