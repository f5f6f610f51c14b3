// CompactMembers (compact_members.h): varints as RocksDB writes them (7 bits
// a byte, low first), read with a bound on the bytes left.
#include "compact_members.h"

namespace teksdb::server::compact_members {

using ROCKSDB_NAMESPACE::Slice;

namespace {

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(Slice* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint64_t byte = static_cast<unsigned char>((*in)[0]);
    in->remove_prefix(1);
    *v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool GetLengthPrefixed(Slice* in, Slice* out) {
  uint64_t n;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  *out = Slice(in->data(), n);
  in->remove_prefix(n);
  return true;
}

}  // namespace

bool ReadHeader(const Slice& payload, char* encoding, int64_t* count) {
  Slice in = payload;
  uint64_t n;
  if (in.empty() || (in[0] != kListpack && in[0] != kIntset)) return false;
  *encoding = in[0];
  in.remove_prefix(1);
  // Each member takes two bytes at least.
  if (!GetVarint(&in, &n) || n > in.size() / 2) return false;
  *count = static_cast<int64_t>(n);
  return true;
}

Reader::Reader(const Slice& payload) : rest_(payload) {
  char encoding;
  uint64_t n;
  if (!ReadHeader(payload, &encoding, &left_)) {
    corrupt_ = true;
    return;
  }
  rest_.remove_prefix(1);
  GetVarint(&rest_, &n);
}

bool Reader::Next(Slice* member, Slice* value) {
  if (corrupt_ || left_ == 0) {
    corrupt_ = corrupt_ || !rest_.empty();
    return false;
  }
  --left_;
  if (!GetLengthPrefixed(&rest_, member) || !GetLengthPrefixed(&rest_, value)) {
    corrupt_ = true;
    return false;
  }
  return true;
}

std::string Empty(char encoding) { return std::string(1, encoding) + '\0'; }

bool WellFormed(const Slice& payload) {
  Reader reader(payload);
  Slice member, value, previous;
  bool first = true;
  while (reader.Next(&member, &value)) {
    if (!first && previous.compare(member) >= 0) return false;
    previous = member;
    first = false;
  }
  return !reader.corrupt();
}

namespace {

// Where the members start, and the count, of a well-formed payload.
size_t EntriesAt(const std::string& payload, uint64_t* count) {
  Slice in(payload);
  in.remove_prefix(1);
  GetVarint(&in, count);
  return payload.size() - in.size();
}

void SetCount(std::string* payload, uint64_t count) {
  uint64_t old;
  const size_t at = EntriesAt(*payload, &old);
  std::string header;
  PutVarint(&header, count);
  payload->replace(1, at - 1, header);
}

// The first member at or after `member`: where its entry begins and ends,
// and whether it is `member` (else `begin` is where `member` would go).
struct Position {
  size_t begin, end;
  bool found;
};
Position Find(const std::string& payload, const Slice& member) {
  uint64_t count;
  size_t at = EntriesAt(payload, &count);
  Slice in(payload.data() + at, payload.size() - at);
  for (uint64_t i = 0; i < count; ++i) {
    Slice m, v;
    GetLengthPrefixed(&in, &m);
    GetLengthPrefixed(&in, &v);
    const int order = m.compare(member);
    const size_t end = payload.size() - in.size();
    if (order >= 0) return {at, end, order == 0};
    at = end;
  }
  return {payload.size(), payload.size(), false};
}

}  // namespace

bool Contains(const std::string& payload, const Slice& member) { return Find(payload, member).found; }

bool Put(std::string* payload, const Slice& member, const Slice& value) {
  const Position p = Find(*payload, member);
  std::string entry;
  PutVarint(&entry, member.size());
  entry.append(member.data(), member.size());
  PutVarint(&entry, value.size());
  entry.append(value.data(), value.size());
  if (p.found) {
    payload->replace(p.begin, p.end - p.begin, entry);
    return true;
  }
  payload->insert(p.begin, entry);
  uint64_t count;
  EntriesAt(*payload, &count);
  SetCount(payload, count + 1);
  return false;
}

bool Erase(std::string* payload, const Slice& member) {
  const Position p = Find(*payload, member);
  if (!p.found) return false;
  payload->erase(p.begin, p.end - p.begin);
  uint64_t count;
  EntriesAt(*payload, &count);
  SetCount(payload, count - 1);
  return true;
}

void SetEncoding(std::string* payload, char encoding) { (*payload)[0] = encoding; }

}  // namespace teksdb::server::compact_members
