// The RDB objects of rdb_value.h.
#include "rdb_value.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "double_text.h"
#include "intset.h"
#include "listpack.h"
#include "rdb_payload.h"
#include "rdb_stream.h"
#include "strict_integer.h"
#include "ziplist.h"
#include "zipmap.h"

namespace teksdb::server::rdb_value {
namespace {

// rdb.h's object types.
constexpr uint8_t kString = 0, kList = 1, kSet = 2, kZSet = 3, kHash = 4, kZSet2 = 5,
                  kModule = 6, kModule2 = 7, kHashZipmap = 9, kListZiplist = 10, kSetIntset = 11,
                  kZSetZiplist = 12, kHashZiplist = 13, kListQuicklist = 14, kStreamListpacks = 15,
                  kHashListpack = 16, kZSetListpack = 17, kListQuicklist2 = 18,
                  kStreamListpacks2 = 19, kHashMetadata = 24, kHashListpackEx = 25;
// The largest field deadline an RDB may hold (Redis 7.4's expiry buckets).
constexpr uint64_t kMaxFieldDeadline = (uint64_t{1} << 48) - 1;
// quicklist.h's node containers.
constexpr uint64_t kPlainNode = 1, kPackedNode = 2;
// list-max-listpack-size -2: a quicklist node's listpack holds up to 8 KB.
constexpr size_t kNodeBytes = 8192;

void AppendListpackOf(std::string* out, const std::vector<std::string_view>& entries) {
  rdb_payload::AppendString(out, listpack::Encode(entries));
}

void AppendList(std::string* out, const std::vector<std::string>& elements) {
  std::vector<std::vector<std::string_view>> nodes(1);
  size_t bytes = 0;
  for (const std::string& e : elements) {
    // An entry takes its bytes and up to 11 of encoding and back length.
    const size_t entry_bytes = e.size() + 11;
    if (!nodes.back().empty() && bytes + entry_bytes > kNodeBytes) {
      nodes.emplace_back();
      bytes = 0;
    }
    nodes.back().push_back(e);
    bytes += entry_bytes;
  }
  out->push_back(static_cast<char>(kListQuicklist2));
  rdb_payload::AppendLength(out, nodes.size());
  for (const auto& node : nodes) {
    rdb_payload::AppendLength(out, kPackedNode);
    AppendListpackOf(out, node);
  }
}

// The set's members as integers, if it is an intset's.
bool AsIntegers(const std::vector<std::string>& members, std::vector<int64_t>* values) {
  for (const std::string& m : members) {
    int64_t v;
    if (!ParseStrictInt64(m, &v)) return false;
    values->push_back(v);
  }
  return true;
}

void AppendSet(std::string* out, const RedisValue& value) {
  std::vector<int64_t> integers;
  if (value.compact && AsIntegers(value.elements, &integers)) {
    out->push_back(static_cast<char>(kSetIntset));
    rdb_payload::AppendString(out, intset::Encode(std::move(integers)));
    return;
  }
  out->push_back(static_cast<char>(kSet));
  rdb_payload::AppendLength(out, value.elements.size());
  for (const std::string& m : value.elements) rdb_payload::AppendString(out, m);
}

void AppendZSet(std::string* out, const RedisValue& value) {
  if (value.compact) {
    std::vector<std::string> scores;
    scores.reserve(value.scored.size());
    for (const auto& [member, score] : value.scored) scores.push_back(FormatScore(score));
    std::vector<std::string_view> entries;
    for (size_t i = 0; i < value.scored.size(); ++i) {
      entries.push_back(value.scored[i].first);
      entries.push_back(scores[i]);
    }
    out->push_back(static_cast<char>(kZSetListpack));
    AppendListpackOf(out, entries);
    return;
  }
  // As Redis writes its skip list: from the highest score down.
  out->push_back(static_cast<char>(kZSet2));
  rdb_payload::AppendLength(out, value.scored.size());
  for (auto it = value.scored.rbegin(); it != value.scored.rend(); ++it) {
    rdb_payload::AppendString(out, it->first);
    rdb_payload::AppendBinaryDouble(out, it->second);
  }
}

// A hash with field deadlines, as Redis 7.4 writes one: the smallest
// deadline (8 bytes, little-endian), then a listpack of (field, value,
// deadline or 0) triplets, or the count and (deadline past the smallest + 1
// or 0, field, value) for each field.
void AppendHashWithDeadlines(std::string* out, const RedisValue& value) {
  int64_t smallest = 0;
  for (int64_t d : value.field_deadlines) {
    if (d != 0 && (smallest == 0 || d < smallest)) smallest = d;
  }
  out->push_back(static_cast<char>(value.compact ? kHashListpackEx : kHashMetadata));
  for (int i = 0; i < 8; ++i) {
    out->push_back(static_cast<char>((static_cast<uint64_t>(smallest) >> (8 * i)) & 0xff));
  }
  if (value.compact) {
    std::vector<std::string> deadlines;
    for (int64_t d : value.field_deadlines) deadlines.push_back(std::to_string(d));
    std::vector<std::string_view> entries;
    for (size_t i = 0; i < value.fields.size(); ++i) {
      entries.push_back(value.fields[i].first);
      entries.push_back(value.fields[i].second);
      entries.push_back(deadlines[i]);
    }
    return AppendListpackOf(out, entries);
  }
  rdb_payload::AppendLength(out, value.fields.size());
  for (size_t i = 0; i < value.fields.size(); ++i) {
    const int64_t d = value.field_deadlines[i];
    rdb_payload::AppendLength(out, d == 0 ? 0 : static_cast<uint64_t>(d - smallest) + 1);
    rdb_payload::AppendString(out, value.fields[i].first);
    rdb_payload::AppendString(out, value.fields[i].second);
  }
}

void AppendHash(std::string* out, const RedisValue& value) {
  if (!value.field_deadlines.empty()) return AppendHashWithDeadlines(out, value);
  if (value.compact) {
    std::vector<std::string_view> entries;
    for (const auto& [field, v] : value.fields) {
      entries.push_back(field);
      entries.push_back(v);
    }
    out->push_back(static_cast<char>(kHashListpack));
    AppendListpackOf(out, entries);
    return;
  }
  out->push_back(static_cast<char>(kHash));
  rdb_payload::AppendLength(out, value.fields.size());
  for (const auto& [field, v] : value.fields) {
    rdb_payload::AppendString(out, field);
    rdb_payload::AppendString(out, v);
  }
}

// What Redis's log calls an object of RDB type `type` whose integrity check
// failed ("Zset ziplist integrity check failed."), as rdb.c names each.
const char* IntegrityName(uint8_t type) {
  switch (type) {
    case kHashZipmap: return "Zipmap";
    case kListZiplist: return "Ziplist";
    case kSetIntset: return "Intset";
    case kZSetZiplist: return "Zset ziplist";
    case kHashZiplist: return "Hash ziplist";
    case kHashListpackEx: return "Hash listpackex";
    case kListQuicklist:
    case kListQuicklist2: return "Quicklist";
    case kStreamListpacks:
    case kStreamListpacks2: return "Stream listpack";
    case kHashListpack: return "Hash listpack";
    case kZSetListpack: return "Zset listpack";
    default: return "Object";
  }
}

// The reader of one object, its error the first thing found wrong.
class ObjectReader {
 public:
  ObjectReader(std::string_view body, size_t* pos, RedisValue* value, std::string* error)
      : body_(body), pos_(pos), value_(value), error_(error) {}

  bool Read(uint8_t type) {
    switch (type) {
      case kString:
        value_->type = RedisValue::Type::kString;
        return String(&value_->string);
      case kList:
        return List();
      case kListZiplist:
      case kListQuicklist:
      case kListQuicklist2:
        return Quicklist(type);
      case kSet:
        return Set();
      case kSetIntset:
        return Intset();
      case kZSet:
      case kZSet2:
        return ZSet(type);
      case kZSetZiplist:
      case kZSetListpack:
        return PackedZSet(type);
      case kHash:
        return Hash();
      case kHashZipmap:
      case kHashZiplist:
      case kHashListpack:
        return PackedHash(type);
      case kHashMetadata:
        return HashWithDeadlines();
      case kHashListpackEx:
        return PackedHashWithDeadlines();
      case kStreamListpacks:
      case kStreamListpacks2:
        value_->type = RedisValue::Type::kStream;
        return rdb_stream::Read(type, body_, pos_, &value_->stream, error_, &budget_);
      case kModule:
      case kModule2:
        return Fail("module values cannot be loaded (no modules)");
      default:
        return Fail("unknown RDB object type " + std::to_string(type));
    }
  }

 private:
  bool Fail(const std::string& what) {
    if (error_->empty()) *error_ = what;
    return false;
  }
  bool String(std::string* s) {
    if (!rdb_payload::ReadString(body_, pos_, s)) return Fail("a damaged string");
    return budget_.Spend(s->size()) || Fail("a value larger than the memory a value may take");
  }
  bool Count(uint64_t* n) {
    if (!rdb_payload::ReadLength(body_, pos_, n)) return Fail("a damaged length");
    return *n > 0 || Fail("an empty value");
  }
  bool Unique(std::unordered_set<std::string>* seen, const std::string& s, const char* what) {
    return seen->insert(s).second || Fail(std::string("duplicate ") + what);
  }
  bool NotEmpty(size_t n) { return n > 0 || Fail("an empty value"); }

  bool List() {
    value_->type = RedisValue::Type::kList;
    uint64_t n;
    if (!Count(&n)) return false;
    for (uint64_t i = 0; i < n; ++i) {
      std::string e;
      if (!String(&e)) return false;
      value_->elements.push_back(std::move(e));
    }
    return true;
  }

  bool Quicklist(uint8_t type) {
    value_->type = RedisValue::Type::kList;
    uint64_t nodes = 1;
    if (type != kListZiplist && !Count(&nodes)) return false;
    for (uint64_t i = 0; i < nodes; ++i) {
      uint64_t container = kPackedNode;
      if (type == kListQuicklist2 &&
          (!rdb_payload::ReadLength(body_, pos_, &container) ||
           (container != kPlainNode && container != kPackedNode))) {
        return Fail("a damaged quicklist node");
      }
      std::string node;
      if (!String(&node)) return false;
      if (node.empty()) return Fail("an empty quicklist node");
      if (container == kPlainNode) {
        value_->elements.push_back(std::move(node));
        continue;
      }
      std::vector<std::string> entries;
      const bool ok = type == kListQuicklist2 ? listpack::Decode(node, &entries, &budget_)
                                              : ziplist::Decode(node, &entries, &budget_);
      if (!ok) return Fail(type == kListQuicklist2 ? "a damaged listpack" : "a damaged ziplist");
      for (std::string& e : entries) value_->elements.push_back(std::move(e));
    }
    // Redis skips empty nodes, and refuses a list they leave empty.
    return NotEmpty(value_->elements.size());
  }

  bool Set() {
    value_->type = RedisValue::Type::kSet;
    uint64_t n;
    if (!Count(&n)) return false;
    std::unordered_set<std::string> seen;
    for (uint64_t i = 0; i < n; ++i) {
      std::string m;
      if (!String(&m) || !Unique(&seen, m, "set members")) return false;
      value_->elements.push_back(std::move(m));
    }
    return true;
  }

  bool Intset() {
    value_->type = RedisValue::Type::kSet;
    value_->compact = true;
    std::string is;
    if (!String(&is)) return false;
    return intset::Decode(is, &value_->elements, &budget_) || Fail("a damaged intset");
  }

  bool Score(uint8_t type, double* score) {
    const bool ok = type == kZSet2 ? rdb_payload::ReadBinaryDouble(body_, pos_, score)
                                   : rdb_payload::ReadTextDouble(body_, pos_, score);
    if (!ok) return Fail("a damaged score");
    return !std::isnan(*score) || Fail("a NaN score");
  }

  bool ZSet(uint8_t type) {
    value_->type = RedisValue::Type::kZSet;
    uint64_t n;
    if (!Count(&n)) return false;
    std::unordered_set<std::string> seen;
    for (uint64_t i = 0; i < n; ++i) {
      std::string m;
      double score;
      if (!String(&m) || !Score(type, &score) || !Unique(&seen, m, "sorted set members")) {
        return false;
      }
      value_->scored.emplace_back(std::move(m), score);
    }
    return true;
  }

  // A packed encoding's entries, read from one RDB string.
  bool Packed(uint8_t type, std::vector<std::string>* entries) {
    std::string packed;
    if (!String(&packed)) return false;
    const bool listpack = type == kZSetListpack || type == kHashListpack;
    const bool ok = listpack ? listpack::Decode(packed, entries, &budget_)
                             : ziplist::Decode(packed, entries, &budget_);
    if (!ok) return Fail(listpack ? "a damaged listpack" : "a damaged ziplist");
    if (entries->size() % 2 != 0) return Fail("an odd number of entries in a packed map");
    return NotEmpty(entries->size());
  }

  bool PackedZSet(uint8_t type) {
    value_->type = RedisValue::Type::kZSet;
    value_->compact = true;
    std::vector<std::string> entries;
    if (!Packed(type, &entries)) return false;
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < entries.size(); i += 2) {
      const std::string& text = entries[i + 1];
      char* end = nullptr;
      const double score = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || std::isnan(score)) {
        return Fail("a damaged score");
      }
      if (!Unique(&seen, entries[i], "sorted set members")) return false;
      value_->scored.emplace_back(std::move(entries[i]), score);
    }
    return true;
  }

  bool Hash() {
    value_->type = RedisValue::Type::kHash;
    uint64_t n;
    if (!Count(&n)) return false;
    std::unordered_set<std::string> seen;
    for (uint64_t i = 0; i < n; ++i) {
      std::string field, v;
      if (!String(&field) || !String(&v) || !Unique(&seen, field, "hash fields")) return false;
      value_->fields.emplace_back(std::move(field), std::move(v));
    }
    return true;
  }

  // A field deadline as the RDB gives it, checked.
  bool Deadline(uint64_t ms, int64_t* deadline) {
    if (ms > kMaxFieldDeadline) return Fail("a field deadline past its range");
    *deadline = static_cast<int64_t>(ms);
    return true;
  }

  bool HashWithDeadlines() {
    value_->type = RedisValue::Type::kHash;
    uint64_t smallest, n;
    if (!rdb_payload::ReadLittleEndian(body_, pos_, 8, &smallest)) return Fail("a damaged time");
    if (!Count(&n)) return false;
    std::unordered_set<std::string> seen;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t relative;
      std::string field, v;
      if (!rdb_payload::ReadLength(body_, pos_, &relative)) return Fail("a damaged length");
      if (relative != 0 && relative - 1 > kMaxFieldDeadline - std::min(smallest, kMaxFieldDeadline)) {
        return Fail("a field deadline past its range");
      }
      int64_t deadline = 0;
      if (relative != 0 && !Deadline(smallest + relative - 1, &deadline)) return false;
      if (!String(&field) || !String(&v) || !Unique(&seen, field, "hash fields")) return false;
      value_->fields.emplace_back(std::move(field), std::move(v));
      value_->field_deadlines.push_back(deadline);
    }
    return true;
  }

  bool PackedHashWithDeadlines() {
    value_->type = RedisValue::Type::kHash;
    value_->compact = true;
    uint64_t smallest;
    if (!rdb_payload::ReadLittleEndian(body_, pos_, 8, &smallest)) return Fail("a damaged time");
    std::string packed;
    std::vector<std::string> entries;
    if (!String(&packed)) return false;
    if (!listpack::Decode(packed, &entries, &budget_)) return Fail("a damaged listpack");
    if (entries.size() % 3 != 0) return Fail("a listpack of hash fields not in triplets");
    if (!NotEmpty(entries.size())) return false;
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < entries.size(); i += 3) {
      int64_t ms, deadline;
      if (!ParseStrictInt64(entries[i + 2], &ms) || ms < 0 ||
          !Deadline(static_cast<uint64_t>(ms), &deadline)) {
        return Fail("a damaged field deadline");
      }
      if (!Unique(&seen, entries[i], "hash fields")) return false;
      value_->fields.emplace_back(std::move(entries[i]), std::move(entries[i + 1]));
      value_->field_deadlines.push_back(deadline);
    }
    return true;
  }

  bool PackedHash(uint8_t type) {
    value_->type = RedisValue::Type::kHash;
    value_->compact = true;
    std::vector<std::pair<std::string, std::string>> pairs;
    if (type == kHashZipmap) {
      std::string zm;
      if (!String(&zm)) return false;
      if (!zipmap::Decode(zm, &pairs, &budget_)) return Fail("a damaged zipmap");
      if (!NotEmpty(pairs.size())) return false;
    } else {
      std::vector<std::string> entries;
      if (!Packed(type, &entries)) return false;
      for (size_t i = 0; i < entries.size(); i += 2) {
        pairs.emplace_back(std::move(entries[i]), std::move(entries[i + 1]));
      }
    }
    std::unordered_set<std::string> seen;
    const char* dup = type == kHashZipmap    ? "zipmap with dup elements"
                      : type == kHashListpack ? "listpack with dup elements"
                                              : "ziplist with dup elements";
    for (auto& pair : pairs) {
      if (!seen.insert(pair.first).second) return Fail(dup);
      value_->fields.push_back(std::move(pair));
    }
    return true;
  }

  std::string_view body_;
  size_t* pos_;
  RedisValue* value_;
  std::string* error_;
  DecodeBudget budget_;
};

}  // namespace

void Append(std::string* out, const RedisValue& value) {
  switch (value.type) {
    case RedisValue::Type::kString:
      out->push_back(static_cast<char>(kString));
      rdb_payload::AppendString(out, value.string);
      return;
    case RedisValue::Type::kList:
      return AppendList(out, value.elements);
    case RedisValue::Type::kSet:
      return AppendSet(out, value);
    case RedisValue::Type::kZSet:
      return AppendZSet(out, value);
    case RedisValue::Type::kHash:
      return AppendHash(out, value);
    case RedisValue::Type::kStream:
      out->push_back(static_cast<char>(kStreamListpacks2));
      return rdb_stream::Append(out, value.stream);
  }
}

bool Read(uint8_t type, std::string_view body, size_t* pos, RedisValue* value, std::string* error) {
  *value = RedisValue();
  error->clear();
  return ObjectReader(body, pos, value, error).Read(type);
}

std::string Dump(const RedisValue& value) {
  std::string payload;
  Append(&payload, value);
  rdb_payload::AppendFooter(&payload, value.field_deadlines.empty()
                                          ? rdb_payload::kRdbVersion
                                          : rdb_payload::kHashFieldsRdbVersion);
  return payload;
}

RestoreResult Restore(std::string_view payload, RedisValue* value, bool verify_checksum,
                      std::string* error) {
  std::string_view body;
  if (!rdb_payload::CheckFooter(payload, &body, verify_checksum)) return RestoreResult::kBadFooter;
  size_t pos = 0;
  uint8_t type = 0;
  std::string what;
  if (!rdb_payload::ReadByte(body, &pos, &type)) {
    what = "no object";
  } else if (Read(type, body, &pos, value, &what) && pos == body.size()) {
    return RestoreResult::kOk;
  } else if (what.empty()) {
    what = "bytes past the object";
  }
  if (error != nullptr) *error = std::string(IntegrityName(type)) + " integrity check failed: " + what;
  return RestoreResult::kBadData;
}

}  // namespace teksdb::server::rdb_value
