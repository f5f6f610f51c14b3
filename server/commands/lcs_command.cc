// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN], as Redis 7.0
// computes it: the classic dynamic-programming table, walked back from its
// end, matches reported from the last to the first. Bounded where Redis is
// not: strings whose table would pass kMaxCells cells (256 MiB) are
// refused rather than computed (those past 512 MiB with Redis's error).
#include <cstdint>
#include <vector>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

constexpr uint64_t kMaxCells = uint64_t{64} << 20;
// Redis refuses a table past proto-max-bulk-len (512 MiB by default) with
// its own words.
constexpr uint64_t kRedisMaxTableBytes = uint64_t{512} << 20;

void Lcs(Request& r) {
  std::string a, b;
  for (int i = 0; i < 2; ++i) {
    std::optional<Keyspace::Value> v;
    const ROCKSDB_NAMESPACE::Status s = r.keyspace->Read(r.args[1 + i], &v);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (v && v->type != Keyspace::kString) {
      return reply::Error(r.out, "ERR The specified keys must contain string values");
    }
    (i == 0 ? a : b) = v ? v->payload : std::string();
  }
  bool len = false, idx = false, with_match_len = false;
  int64_t min_match_len = 0;
  for (size_t i = 3; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    if (opt == "idx") {
      idx = true;
    } else if (opt == "len") {
      len = true;
    } else if (opt == "withmatchlen") {
      with_match_len = true;
    } else if (opt == "minmatchlen" && i + 1 < r.args.size()) {
      if (!ParseStrictInt64(r.args[++i], &min_match_len)) return reply::Error(r.out, kNotInteger);
      if (min_match_len < 0) min_match_len = 0;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  if (idx && len) {
    return reply::Error(r.out, "ERR If you want both the length and indexes, please just use IDX.");
  }
  const uint64_t alen = a.size(), blen = b.size();
  if ((alen + 1) * (blen + 1) * sizeof(uint32_t) > kRedisMaxTableBytes) {
    return reply::Error(
        r.out, "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  if ((alen + 1) * (blen + 1) > kMaxCells) {
    return reply::Error(r.out, "ERR LCS of strings this long is not supported (the table would pass 256 MiB)");
  }
  std::vector<uint32_t> table((alen + 1) * (blen + 1), 0);
  auto at = [&](uint64_t i, uint64_t j) -> uint32_t& { return table[i * (blen + 1) + j]; };
  for (uint64_t i = 1; i <= alen; ++i) {
    for (uint64_t j = 1; j <= blen; ++j) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  uint32_t length = at(alen, blen);
  if (len) return reply::Integer(r.out, length);
  std::string common(length, '\0');
  std::string matches;
  size_t match_count = 0;
  uint64_t i = alen, j = blen;
  uint64_t a_start = alen, a_end = 0, b_start = 0, b_end = 0;  // a_start == alen: no range
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      common[length - 1] = a[i - 1];
      if (a_start == alen) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;
        --b_start;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      --length;
      --i;
      --j;
    } else {
      at(i - 1, j) > at(i, j - 1) ? --i : --j;
      if (a_start != alen) emit = true;
    }
    const uint64_t match_len = a_end - a_start + 1;
    if (emit) {
      if (idx && (min_match_len == 0 || match_len >= static_cast<uint64_t>(min_match_len))) {
        reply::ArrayHeader(&matches, with_match_len ? 3 : 2);
        reply::ArrayHeader(&matches, 2);
        reply::Integer(&matches, static_cast<int64_t>(a_start));
        reply::Integer(&matches, static_cast<int64_t>(a_end));
        reply::ArrayHeader(&matches, 2);
        reply::Integer(&matches, static_cast<int64_t>(b_start));
        reply::Integer(&matches, static_cast<int64_t>(b_end));
        if (with_match_len) reply::Integer(&matches, static_cast<int64_t>(match_len));
        ++match_count;
      }
      a_start = alen;
    }
  }
  if (!idx) return reply::Bulk(r.out, common);
  reply::MapHeader(r.out, r.protocol(), 2);
  reply::Bulk(r.out, "matches");
  reply::ArrayHeader(r.out, match_count);
  r.out->append(matches);
  reply::Bulk(r.out, "len");
  reply::Integer(r.out, at(alen, blen));
}

}  // namespace

void AddLcsCommand(std::vector<Command>* table) { table->push_back({"lcs", -3, Lcs}); }

}  // namespace teksdb::server
