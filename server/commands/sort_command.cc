// SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
// [ALPHA] [STORE destination] and SORT_RO (no STORE), as Redis 7.0 answers
// them: the elements of a list, set or sorted set, sorted by their own
// value or by the keys a pattern names ("weight_*", "hash_*->field"; a
// pattern without "*" does not sort), numerically (every weight a double,
// else an error) or bytewise (ALPHA), each replied as is or as the keys the
// GET patterns name ("#": the element), or stored as a list at
// `destination` (replacing what was there; nothing to store deletes it).
// Ties between equal weights fall back to the elements' bytes, as Redis's;
// a set read without sorting comes out in member order (integers by value,
// as Redis's intsets), sorted ALPHA inside scripts and for STORE, as Redis
// does so that replicas agree.
//
// Runs under the locks of the sorted key (a small sorted set sorted is
// converted to one record per member, as Redis converts it to a skip list)
// and of STORE's destination; the pattern keys are read without theirs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "acl_check.h"
#include "ascii_case.h"
#include "collection.h"
#include "commands.h"
#include "list_store.h"
#include "replication.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

struct Options {
  bool desc = false;
  bool alpha = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::optional<std::string> by;
  std::vector<std::string> gets;
  std::optional<std::string> store;
};

// Redis's option parsing, errors in its order: false having replied.
bool ParseOptions(Request& r, bool read_only, Options* o) {
  // BY (a pattern with '*') and GET read keys no ACL check saw: only a
  // user that may read every key may give them (Redis's errors).
  std::optional<bool> reads_every_key;
  auto may_read_every_key = [&] {
    if (!reads_every_key) {
      const AclUser* user = CurrentUser(r.server, r.client);
      const Command* sort = LookupCommand(AsciiLower(r.args[0]));
      reads_every_key = user == nullptr ||
                        AclReadsEveryKey(*user, static_cast<size_t>(sort - CommandTable().data()), r.args);
    }
    return *reads_every_key;
  };
  for (size_t j = 2; j < r.args.size(); ++j) {
    const size_t left = r.args.size() - j - 1;
    const std::string option = AsciiLower(r.args[j]);
    if (option == "asc") {
      o->desc = false;
    } else if (option == "desc") {
      o->desc = true;
    } else if (option == "alpha") {
      o->alpha = true;
    } else if (option == "limit" && left >= 2) {
      if (!ParseStrictInt64(r.args[j + 1], &o->limit_start) ||
          !ParseStrictInt64(r.args[j + 2], &o->limit_count)) {
        return reply::Error(r.out, kNotInteger), false;
      }
      j += 2;
    } else if (!read_only && option == "store" && left >= 1) {
      o->store = r.args[++j];
    } else if (option == "by" && left >= 1) {
      o->by = r.args[++j];
      if (o->by->find('*') != std::string::npos && !may_read_every_key()) {
        return reply::Error(r.out, "ERR BY option of SORT denied due to insufficient ACL permissions."), false;
      }
    } else if (option == "get" && left >= 1) {
      if (!may_read_every_key()) {
        return reply::Error(r.out, "ERR GET option of SORT denied due to insufficient ACL permissions."), false;
      }
      o->gets.push_back(r.args[++j]);
    } else {
      return reply::Error(r.out, kSyntaxError), false;
    }
  }
  return true;
}

// The value a pattern names for `element` (Redis's lookupKeyByPattern):
// "#" the element; else the first "*" replaced by it names a string key,
// or, with "->field" after the "*", a hash's field. nullopt when there is
// no "*", no such key or field, or the key is of another type. False
// having replied (storage) or set r.retry.
bool Lookup(Request& r, const std::string& pattern, const std::string& element,
            std::optional<std::string>* value) {
  value->reset();
  if (pattern == "#") return *value = element, true;
  const size_t star = pattern.find('*');
  if (star == std::string::npos) return true;
  const size_t arrow = pattern.find("->", star + 1);
  const bool field = arrow != std::string::npos && arrow + 2 < pattern.size();
  const size_t key_end = field ? arrow : pattern.size();
  const std::string key = pattern.substr(0, star) + element + pattern.substr(star + 1, key_end - star - 1);
  std::optional<Keyspace::Value> meta;
  const Status s = r.keyspace->Read(key, &meta);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (!meta) return true;
  if (!field) {
    if (meta->type == Keyspace::kString) *value = std::move(meta->payload);
    return true;
  }
  if (meta->type != Keyspace::kHash) return true;
  Collection hash;
  return hash.Open(r, Keyspace::kHash, key) &&
         hash.ReadMemberUnlocked(r, pattern.substr(arrow + 2), value);
}

// The elements of the sorted key, in its own order (a sorted set's by
// score, a set's by member, integers by value); *type 0 when absent. False
// having replied (WRONGTYPE, storage) or set r.retry.
bool SortedKeyElements(Request& r, char* type, std::vector<std::string>* elements) {
  std::optional<Keyspace::Value> meta;
  const Status s = r.keyspace->Read(r.args[1], &meta);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  *type = meta ? meta->type : 0;
  if (!meta) return true;
  if (meta->type == Keyspace::kList) {
    StoredList list;
    return list.Open(r, r.args[1]) && list.All(r, elements);
  }
  if (meta->type != Keyspace::kSet && meta->type != Keyspace::kZSet) {
    return reply::Error(r.out, kWrongType), false;
  }
  Collection collection;
  if (!collection.Open(r, meta->type, r.args[1])) return false;
  // Redis's SORT converts a small sorted set to its skip list (sort.c),
  // which OBJECT ENCODING shows: so here (not on a replica, which takes
  // writes from its primary only).
  if (meta->type == Keyspace::kZSet && !r.server.replication->replica() &&
      !collection.ConvertNow(r)) {
    return false;
  }
  if (meta->type == Keyspace::kZSet) {
    if (!collection.ForEachIndexEntry(r, [&](const std::string& entry) {
          elements->emplace_back(EntryMember(entry));
          return true;
        })) {
      return false;
    }
  } else if (!collection.ForEach(r, [&](const std::string& member, const std::string&) {
               elements->push_back(member);
               return true;
             })) {
    return false;
  }
  if (static_cast<int64_t>(elements->size()) < collection.count() && !collection.Settled(r)) {
    return false;
  }
  std::vector<int64_t> integers(elements->size());
  bool all_integers = meta->type == Keyspace::kSet;
  for (size_t i = 0; all_integers && i < elements->size(); ++i) {
    all_integers = ParseStrictInt64((*elements)[i], &integers[i]);
  }
  if (all_integers) {
    std::vector<size_t> order(elements->size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return integers[a] < integers[b]; });
    std::vector<std::string> sorted;
    for (size_t i : order) sorted.push_back(std::move((*elements)[i]));
    *elements = std::move(sorted);
  }
  return true;
}

// Redis's compareStringObjects (bytes, then length) and strcoll in the C
// locale (up to the first zero byte).
int CompareBytes(const std::string& a, const std::string& b) { return a.compare(b); }
int CompareText(const std::string& a, const std::string& b) { return std::strcmp(a.c_str(), b.c_str()); }

struct Item {
  std::string element;
  double score = 0;
  std::optional<std::string> weight;  // ALPHA BY: the pattern's value
};

// Sorts `items` as Redis does; false having replied (a weight that is not
// a double) or set r.retry.
bool Sort(Request& r, const Options& o, std::vector<Item>* items) {
  bool not_double = false;
  for (Item& item : *items) {
    std::optional<std::string> by;
    if (o.by) {
      if (!Lookup(r, *o.by, item.element, &by)) return false;
      if (!by) continue;
    } else {
      by = item.element;
    }
    if (o.alpha) {
      if (o.by) item.weight = std::move(by);
      continue;
    }
    errno = 0;
    char* end = nullptr;
    item.score = std::strtod(by->c_str(), &end);
    if (*end != '\0' || errno == ERANGE || std::isnan(item.score)) not_double = true;
  }
  if (not_double) {
    return reply::Error(r.out, "ERR One or more scores can't be converted into double"), false;
  }
  const bool store = o.store.has_value();
  const auto compare = [&](const Item& a, const Item& b) {
    int cmp;
    if (!o.alpha) {
      cmp = a.score > b.score ? 1 : a.score < b.score ? -1 : CompareBytes(a.element, b.element);
    } else if (o.by) {
      if (!a.weight || !b.weight) {
        cmp = a.weight.has_value() == b.weight.has_value() ? 0 : a.weight ? 1 : -1;
      } else {
        cmp = store ? CompareBytes(*a.weight, *b.weight) : CompareText(*a.weight, *b.weight);
      }
    } else {
      cmp = store ? CompareBytes(a.element, b.element) : CompareText(a.element, b.element);
    }
    return (o.desc ? -cmp : cmp) < 0;
  };
  std::stable_sort(items->begin(), items->end(), compare);
  return true;
}

// Writes `values` as a list at the destination, replacing what was there
// (no expiry kept), or deletes it when there are none: false having
// replied.
bool Store(Request& r, const std::string& destination, const std::vector<std::string>& values) {
  Keyspace::Batch batch;
  if (values.empty()) {
    std::optional<Keyspace::Value> old;
    const Status s = r.keyspace->Read(destination, &old);
    if (!s.ok()) return ReplyStorageError(r, s), false;
    if (!old) return true;
    batch.Delete(destination);
  } else if (!StageNewList(r, destination, 0, values, &batch)) {
    return false;
  }
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

void Run(Request& r, bool read_only) {
  Options o;
  if (!ParseOptions(r, read_only, &o)) return;
  // The sorted key's lock too: sorting a small sorted set converts it.
  std::vector<std::string> keys = {r.args[1]};
  if (o.store) keys.push_back(*o.store);
  auto locks = r.keyspace->LockKeys(keys);
  char type;
  std::vector<std::string> elements;
  if (!SortedKeyElements(r, &type, &elements)) return;
  // A pattern without "*" names no key per element: nothing to sort by.
  bool sort = !(o.by && o.by->find('*') == std::string::npos);
  if (!sort && type == Keyspace::kSet && (o.store || r.client.in_script)) {
    sort = true;
    o.alpha = true;
    o.by.reset();
  }
  // LIMIT, clamped as Redis clamps it.
  const int64_t n = static_cast<int64_t>(elements.size());
  int64_t start = std::min(std::max<int64_t>(o.limit_start, 0), n);
  const int64_t count = std::min(std::max<int64_t>(o.limit_count, -1), n);
  int64_t end = count < 0 ? n - 1 : start + count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  end = std::min(end, n - 1);
  std::vector<Item> items(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) items[i].element = std::move(elements[i]);
  if (sort) {
    if (!Sort(r, o, &items)) return;
  } else if (o.desc && type != Keyspace::kSet) {
    std::reverse(items.begin(), items.end());  // a list's or sorted set's order, from its end
  }
  std::vector<std::optional<std::string>> out;
  for (int64_t j = start; j <= end; ++j) {
    if (o.gets.empty()) out.emplace_back(items[static_cast<size_t>(j)].element);
    for (const std::string& pattern : o.gets) {
      std::optional<std::string> value;
      if (!Lookup(r, pattern, items[static_cast<size_t>(j)].element, &value)) return;
      out.push_back(std::move(value));
    }
  }
  if (!o.store) {
    reply::ArrayHeader(r.out, out.size());
    for (const auto& value : out) value ? reply::Bulk(r.out, *value) : reply::Null(r.out, r.protocol());
    return;
  }
  std::vector<std::string> values;
  for (auto& value : out) values.push_back(value.value_or(""));
  if (Store(r, *o.store, values)) reply::Integer(r.out, static_cast<int64_t>(values.size()));
}

void SortCommand(Request& r) { Run(r, false); }
void SortRo(Request& r) { Run(r, true); }

}  // namespace

void AddSortCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"sort", -2, SortCommand}, {"sort_ro", -2, SortRo}});
}

}  // namespace teksdb::server
