// The stream RDB objects of rdb_stream.h.
#include "rdb_stream.h"

#include <algorithm>
#include <map>
#include <set>

#include "listpack.h"
#include "rdb_payload.h"
#include "strict_integer.h"

namespace teksdb::server::rdb_stream {
namespace {

constexpr uint8_t kStreamListpacks = 15;
// t_stream.c's entry flags.
constexpr int64_t kDeletedFlag = 1, kSameFieldsFlag = 2;
constexpr size_t kNodeEntries = 100, kNodeBytes = 4096;

std::string IdBytes(const RedisStream::Id& id) {
  std::string s;
  for (const uint64_t v : {id.ms, id.seq}) {
    for (int shift = 56; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xff));
  }
  return s;
}

RedisStream::Id IdFromBytes(std::string_view b) {
  RedisStream::Id id;
  for (int i = 0; i < 8; ++i) id.ms = (id.ms << 8) | static_cast<uint8_t>(b[i]);
  for (int i = 8; i < 16; ++i) id.seq = (id.seq << 8) | static_cast<uint8_t>(b[i]);
  return id;
}

void AppendTime(std::string* out, int64_t ms) {
  const uint64_t u = static_cast<uint64_t>(ms);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

// One node: master entry, then each entry, as streamAppendItem writes them.
std::string EncodeNode(const std::vector<RedisStream::Entry>& entries, size_t from, size_t to) {
  std::vector<std::string> items;
  const RedisStream::Entry& master = entries[from];
  items.push_back(std::to_string(to - from));  // live entries
  items.push_back("0");                        // deleted
  items.push_back(std::to_string(master.fields.size()));
  for (const auto& field : master.fields) items.push_back(field.first);
  items.push_back("0");
  for (size_t i = from; i < to; ++i) {
    const RedisStream::Entry& e = entries[i];
    bool same = e.fields.size() == master.fields.size();
    for (size_t f = 0; same && f < e.fields.size(); ++f) same = e.fields[f].first == master.fields[f].first;
    items.push_back(std::to_string(same ? kSameFieldsFlag : 0));
    items.push_back(std::to_string(static_cast<int64_t>(e.id.ms - master.id.ms)));
    items.push_back(std::to_string(static_cast<int64_t>(e.id.seq - master.id.seq)));
    if (!same) items.push_back(std::to_string(e.fields.size()));
    for (const auto& [field, value] : e.fields) {
      if (!same) items.push_back(field);
      items.push_back(value);
    }
    const size_t n = e.fields.size();
    items.push_back(std::to_string(same ? n + 3 : 2 * n + 4));
  }
  std::vector<std::string_view> views(items.begin(), items.end());
  return listpack::Encode(views);
}

// Reads a stream body, its first error kept.
class StreamReader {
 public:
  StreamReader(std::string_view body, size_t* pos, RedisStream* stream, std::string* error,
               DecodeBudget* budget)
      : body_(body), pos_(pos), s_(stream), error_(error), budget_(budget) {}

  bool Read(uint8_t type) {
    uint64_t nodes;
    if (!Length(&nodes)) return false;
    for (uint64_t i = 0; i < nodes; ++i) {
      std::string key, lp;
      if (!String(&key) || !String(&lp)) return false;
      if (key.size() != 16) return Fail("a stream node key that is not an id");
      if (!Node(IdFromBytes(key), lp)) return false;
    }
    uint64_t length;
    if (!Length(&length) || !Id(&s_->last_id)) return false;
    if (length != s_->entries.size()) return Fail("a stream length that is not its entries'");
    if (!s_->entries.empty() && s_->last_id < s_->entries.back().id) {
      return Fail("a stream's last id below its last entry");
    }
    if (type == kStreamListpacks) {
      s_->entries_added = length;
      s_->first_id = s_->entries.empty() ? RedisStream::Id() : s_->entries.front().id;
    } else if (!Id(&s_->first_id) || !Id(&s_->max_deleted) || !Length(&s_->entries_added)) {
      return false;
    }
    uint64_t groups;
    if (!Length(&groups)) return false;
    std::set<std::string> names;
    for (uint64_t g = 0; g < groups; ++g) {
      RedisStream::Group group;
      if (!String(&group.name) || !Id(&group.last_id)) return false;
      if (!names.insert(group.name).second) return Fail("duplicate consumer groups");
      if (type == kStreamListpacks) {
        group.entries_read = Estimate(group.last_id);
      } else {
        uint64_t read;
        if (!Length(&read)) return false;
        group.entries_read = static_cast<int64_t>(read);
      }
      if (!Group(&group)) return false;
      s_->groups.push_back(std::move(group));
    }
    return true;
  }

 private:
  bool Fail(const std::string& what) {
    if (error_->empty()) *error_ = what;
    return false;
  }
  bool Length(uint64_t* n) {
    return rdb_payload::ReadLength(body_, pos_, n) || Fail("a damaged length");
  }
  bool String(std::string* s) {
    if (!rdb_payload::ReadString(body_, pos_, s)) return Fail("a damaged string");
    return Spend(s->size());
  }
  bool Spend(uint64_t bytes) {
    return budget_->Spend(bytes) || Fail("a value larger than the memory a value may take");
  }
  bool Id(RedisStream::Id* id) { return Length(&id->ms) && Length(&id->seq); }
  bool RawId(RedisStream::Id* id) {
    if (*pos_ > body_.size() || body_.size() - *pos_ < 16) return Fail("a damaged pending entry");
    *id = IdFromBytes(body_.substr(*pos_, 16));
    *pos_ += 16;
    return true;
  }
  bool Time(int64_t* ms) {
    uint64_t u;
    if (!rdb_payload::ReadLittleEndian(body_, pos_, 8, &u)) return Fail("a damaged time");
    *ms = static_cast<int64_t>(u);
    return true;
  }

  // streamEstimateDistanceFromFirstEverEntry for an old file's groups
  // (no tombstones are known there).
  int64_t Estimate(const RedisStream::Id& id) const {
    if (s_->entries_added == 0) return 0;
    if (s_->entries.empty() && !(s_->last_id < id)) return static_cast<int64_t>(s_->entries_added);
    if (id == s_->last_id) return static_cast<int64_t>(s_->entries_added);
    if (s_->last_id < id) return -1;
    const int64_t before = static_cast<int64_t>(s_->entries_added - s_->entries.size());
    if (id < s_->first_id) return before;
    if (id == s_->first_id) return before + 1;
    return -1;
  }

  bool Node(const RedisStream::Id& master, const std::string& lp) {
    std::vector<std::string> items;
    if (!listpack::Decode(lp, &items, budget_)) return Fail("a damaged stream listpack");
    size_t i = 0;
    auto integer = [&](int64_t* v) {
      return (i < items.size() && ParseStrictInt64(items[i++], v)) || Fail("a damaged stream node");
    };
    int64_t count, deleted, master_fields, terminator;
    if (!integer(&count) || !integer(&deleted) || !integer(&master_fields)) return false;
    if (count < 0 || deleted < 0 || master_fields < 0 ||
        static_cast<uint64_t>(master_fields) > items.size() - i) {
      return Fail("a damaged stream node");
    }
    std::vector<std::string> fields(items.begin() + i, items.begin() + i + master_fields);
    i += master_fields;
    if (!integer(&terminator) || terminator != 0) return Fail("a damaged stream master entry");
    int64_t live = 0, dead = 0;
    while (i < items.size()) {
      int64_t flags, ms_delta, seq_delta, n, back;
      if (!integer(&flags) || !integer(&ms_delta) || !integer(&seq_delta)) return false;
      RedisStream::Entry e;
      e.id.ms = master.ms + static_cast<uint64_t>(ms_delta);
      e.id.seq = master.seq + static_cast<uint64_t>(seq_delta);
      const bool same = (flags & kSameFieldsFlag) != 0;
      if (same) {
        n = master_fields;
      } else if (!integer(&n)) {
        return false;
      }
      if (n < 0 || static_cast<uint64_t>(n) > (items.size() - i) / (same ? 1 : 2)) {
        return Fail("a damaged stream entry");
      }
      for (int64_t f = 0; f < n; ++f) {
        // A field of the master entry is a copy: it costs again.
        if (same && !Spend(fields[f].size())) return false;
        std::string field = same ? fields[f] : std::move(items[i++]);
        e.fields.emplace_back(std::move(field), std::move(items[i++]));
      }
      if (!integer(&back) || back != (same ? n + 3 : 2 * n + 4)) {
        return Fail("a damaged stream entry count");
      }
      if (flags & kDeletedFlag) {
        ++dead;
        continue;
      }
      if (!s_->entries.empty() && !(s_->entries.back().id < e.id)) {
        return Fail("stream entries out of order");
      }
      ++live;
      s_->entries.push_back(std::move(e));
    }
    if (live != count || dead != deleted) return Fail("a stream node's counts are wrong");
    if (live + dead == 0) return Fail("an empty stream node");
    return true;
  }

  bool Group(RedisStream::Group* group) {
    uint64_t pending;
    if (!Length(&pending)) return false;
    std::map<RedisStream::Id, RedisStream::Pending> by_id;
    for (uint64_t p = 0; p < pending; ++p) {
      RedisStream::Pending entry;
      if (!RawId(&entry.id) || !Time(&entry.delivery_ms) || !Length(&entry.delivery_count)) return false;
      if (!by_id.emplace(entry.id, entry).second) return Fail("duplicate pending entries");
    }
    uint64_t consumers;
    if (!Length(&consumers)) return false;
    std::set<std::string> names;
    for (uint64_t c = 0; c < consumers; ++c) {
      RedisStream::Consumer consumer;
      uint64_t owned;
      if (!String(&consumer.name) || !Time(&consumer.seen_ms) || !Length(&owned)) return false;
      if (!names.insert(consumer.name).second) return Fail("Duplicate stream consumer detected");
      for (uint64_t o = 0; o < owned; ++o) {
        RedisStream::Id id;
        if (!RawId(&id)) return false;
        const auto it = by_id.find(id);
        if (it == by_id.end()) return Fail("a consumer's pending entry not in its group's");
        if (!it->second.consumer.empty()) return Fail("a pending entry of two consumers");
        it->second.consumer = consumer.name;
      }
      group->consumers.push_back(std::move(consumer));
    }
    for (auto& [id, entry] : by_id) {
      if (entry.consumer.empty()) return Fail("a pending entry of no consumer");
      group->pending.push_back(std::move(entry));
    }
    return true;
  }

  std::string_view body_;
  size_t* pos_;
  RedisStream* s_;
  std::string* error_;
  DecodeBudget* budget_;
};

}  // namespace

void Append(std::string* out, const RedisStream& stream) {
  // Nodes of up to kNodeEntries entries and about kNodeBytes of fields
  // and values (Redis's defaults), so no listpack nears its 4 GiB bound.
  std::vector<std::pair<size_t, size_t>> nodes;
  for (size_t from = 0; from < stream.entries.size();) {
    size_t to = from, bytes = 0;
    while (to < stream.entries.size() && to - from < kNodeEntries && (to == from || bytes < kNodeBytes)) {
      for (const auto& [field, value] : stream.entries[to].fields) bytes += field.size() + value.size();
      ++to;
    }
    nodes.emplace_back(from, to);
    from = to;
  }
  rdb_payload::AppendLength(out, nodes.size());
  for (const auto& [from, to] : nodes) {
    rdb_payload::AppendString(out, IdBytes(stream.entries[from].id));
    rdb_payload::AppendString(out, EncodeNode(stream.entries, from, to));
  }
  rdb_payload::AppendLength(out, stream.entries.size());
  for (const RedisStream::Id& id : {stream.last_id, stream.first_id, stream.max_deleted}) {
    rdb_payload::AppendLength(out, id.ms);
    rdb_payload::AppendLength(out, id.seq);
  }
  rdb_payload::AppendLength(out, stream.entries_added);
  rdb_payload::AppendLength(out, stream.groups.size());
  for (const RedisStream::Group& g : stream.groups) {
    rdb_payload::AppendString(out, g.name);
    rdb_payload::AppendLength(out, g.last_id.ms);
    rdb_payload::AppendLength(out, g.last_id.seq);
    rdb_payload::AppendLength(out, static_cast<uint64_t>(g.entries_read));
    rdb_payload::AppendLength(out, g.pending.size());
    for (const RedisStream::Pending& p : g.pending) {
      out->append(IdBytes(p.id));
      AppendTime(out, p.delivery_ms);
      rdb_payload::AppendLength(out, p.delivery_count);
    }
    std::map<std::string, std::vector<RedisStream::Id>> owned_by;
    for (const RedisStream::Pending& p : g.pending) owned_by[p.consumer].push_back(p.id);
    rdb_payload::AppendLength(out, g.consumers.size());
    for (const RedisStream::Consumer& c : g.consumers) {
      rdb_payload::AppendString(out, c.name);
      AppendTime(out, c.seen_ms);
      const std::vector<RedisStream::Id>& owned = owned_by[c.name];
      rdb_payload::AppendLength(out, owned.size());
      for (const RedisStream::Id& id : owned) out->append(IdBytes(id));
    }
  }
}

bool Read(uint8_t type, std::string_view body, size_t* pos, RedisStream* stream, std::string* error,
          DecodeBudget* budget) {
  *stream = RedisStream();
  return StreamReader(body, pos, stream, error, budget).Read(type);
}

}  // namespace teksdb::server::rdb_stream
