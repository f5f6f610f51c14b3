// List edits: LSET LINSERT LREM LTRIM LPOS, as Redis 7.0 answers them
// (the layout and shared reads and writes: list_store.h). LSET rewrites
// one chunk; LTRIM pops from both ends (whole chunks deleted unread);
// LINSERT and LREM rewrite the list (O(n), as in Redis). Writes run under
// the key's lock; LPOS reads without it (with it when it runs again).
#include <algorithm>

#include "ascii_case.h"
#include "commands.h"
#include "list_store.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

bool CommitBatch(Request& r, Keyspace::Batch* batch) {
  const Status s = r.keyspace->Commit(batch);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

// LSET key index element
void LSet(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StoredList list;
  if (!list.Open(r, r.args[1])) return;
  if (!list.exists()) return reply::Error(r.out, "ERR no such key");
  // Redis looks the key up before it reads the index.
  int64_t index;
  if (!ParseStrictInt64(r.args[2], &index)) return reply::Error(r.out, kNotInteger);
  index = NormalizeIndex(index, list.count());
  if (index < 0 || index >= list.count()) return reply::Error(r.out, "ERR index out of range");
  if (!list.Set(r, index, r.args[3])) return;
  Keyspace::Batch batch;
  list.Stage(&batch);
  if (CommitBatch(r, &batch)) reply::Ok(r.out);
}

// LINSERT key BEFORE|AFTER pivot element: the new length, -1 without the
// pivot, 0 without the list.
void LInsert(Request& r) {
  const std::string where = AsciiLower(r.args[2]);
  if (where != "before" && where != "after") return reply::Error(r.out, kSyntaxError);
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StoredList list;
  std::vector<std::string> elements;
  if (!list.Open(r, r.args[1])) return;
  if (!list.exists()) return reply::Integer(r.out, 0);
  if (!list.All(r, &elements)) return;
  const auto pivot = std::find(elements.begin(), elements.end(), r.args[3]);
  if (pivot == elements.end()) return reply::Integer(r.out, -1);
  elements.insert(where == "before" ? pivot : pivot + 1, r.args[4]);
  if (WriteNewList(r, r.args[1], list.expire_ms(), elements)) {
    reply::Integer(r.out, static_cast<int64_t>(elements.size()));
  }
}

// LREM key count element: count > 0 from the head, < 0 from the tail, 0
// all of them.
void LRem(Request& r) {
  int64_t count;
  if (!ParseStrictInt64(r.args[2], &count)) return reply::Error(r.out, kNotInteger);
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StoredList list;
  std::vector<std::string> elements;
  if (!list.Open(r, r.args[1])) return;
  if (!list.exists()) return reply::Integer(r.out, 0);
  if (!list.All(r, &elements)) return;
  if (count < 0) std::reverse(elements.begin(), elements.end());
  std::vector<std::string> kept;
  int64_t removed = 0;
  for (std::string& e : elements) {
    if (e == r.args[3] && (count == 0 || removed < (count < 0 ? -count : count))) {
      ++removed;
    } else {
      kept.push_back(std::move(e));
    }
  }
  if (count < 0) std::reverse(kept.begin(), kept.end());
  if (removed == 0 || WriteNewList(r, r.args[1], list.expire_ms(), kept)) {
    reply::Integer(r.out, removed);
  }
}

// LTRIM key start stop
void LTrim(Request& r) {
  int64_t start, stop;
  if (!ParseStrictInt64(r.args[2], &start) || !ParseStrictInt64(r.args[3], &stop)) {
    return reply::Error(r.out, kNotInteger);
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  StoredList list;
  if (!list.Open(r, r.args[1])) return;
  if (!list.exists()) return reply::Ok(r.out);
  const int64_t n = list.count();
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  int64_t left_trim, right_trim;
  if (start > stop || start >= n) {
    left_trim = n;
    right_trim = 0;
  } else {
    if (stop >= n) stop = n - 1;
    left_trim = start;
    right_trim = n - stop - 1;
  }
  if (left_trim == 0 && right_trim == 0) return reply::Ok(r.out);
  if (!list.Pop(r, true, left_trim, nullptr) || !list.Pop(r, false, right_trim, nullptr)) return;
  Keyspace::Batch batch;
  list.Stage(&batch);
  if (CommitBatch(r, &batch)) reply::Ok(r.out);
}

// A non-negative option of LPOS; false having replied `message` (Redis
// replies it for a non-integer too).
bool ParseNonNegative(Request& r, const std::string& arg, const char* message, int64_t* value) {
  if (ParseStrictInt64(arg, value) && *value >= 0) return true;
  reply::Error(r.out, message);
  return false;
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void LPos(Request& r) {
  int64_t rank = 1, count = -1, maxlen = 0;
  for (size_t i = 3; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    const bool more = i + 1 < r.args.size();
    if (opt == "rank" && more) {
      if (!ParseStrictInt64(r.args[++i], &rank)) return reply::Error(r.out, kNotInteger);
      if (rank == 0) {
        return reply::Error(r.out,
                            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                            "second ... or use negative to start from the end of the list");
      }
      if (rank == INT64_MIN) return reply::Error(r.out, "ERR value is out of range");
    } else if (opt == "count" && more) {
      if (!ParseNonNegative(r, r.args[++i], "ERR COUNT can't be negative", &count)) return;
    } else if (opt == "maxlen" && more) {
      if (!ParseNonNegative(r, r.args[++i], "ERR MAXLEN can't be negative", &maxlen)) return;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  auto locks = LockOnRerun(r, r.args[1]);
  StoredList list;
  std::vector<std::string> elements;
  if (!list.Open(r, r.args[1]) || !list.All(r, &elements)) return;
  const int64_t n = static_cast<int64_t>(elements.size());
  std::vector<int64_t> found;
  int64_t skip = (rank < 0 ? -rank : rank) - 1;
  const int64_t want = count == -1 ? 1 : count;
  for (int64_t step = 0; step < n && (maxlen == 0 || step < maxlen); ++step) {
    const int64_t i = rank > 0 ? step : n - 1 - step;
    if (elements[i] != r.args[2]) continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    found.push_back(i);
    if (want != 0 && static_cast<int64_t>(found.size()) == want) break;
  }
  if (count == -1) {
    return found.empty() ? reply::Null(r.out, r.protocol()) : reply::Integer(r.out, found[0]);
  }
  reply::ArrayHeader(r.out, found.size());
  for (int64_t i : found) reply::Integer(r.out, i);
}

}  // namespace

void AddListEditCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"lset", 4, LSet},   {"linsert", 5, LInsert}, {"lrem", 4, LRem},
      {"ltrim", 4, LTrim}, {"lpos", -3, LPos},
  });
}

}  // namespace teksdb::server
