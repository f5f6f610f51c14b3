// CompactMembers (compact_members.h): varints as RocksDB writes them (7 bits
// a byte, low first), read with a bound on the bytes left; a listpackex's
// due version and deadlines big-endian.
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

constexpr size_t kDueVersionBytes = 8;

uint64_t ReadU64(const char* bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

void AppendU64(std::string* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// The bytes before the count: the encoding, and a kListpackEx's due version.
size_t PrefixBytes(char encoding) { return encoding == kListpackEx ? 1 + kDueVersionBytes : 1; }

}  // namespace

bool ReadHeader(const Slice& payload, char* encoding, int64_t* count) {
  Slice in = payload;
  uint64_t n;
  if (in.empty() || (in[0] != kListpack && in[0] != kIntset && in[0] != kListpackEx)) return false;
  *encoding = in[0];
  if (in.size() < PrefixBytes(*encoding)) return false;
  in.remove_prefix(PrefixBytes(*encoding));
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
  rest_.remove_prefix(PrefixBytes(encoding));
  GetVarint(&rest_, &n);
  deadlines_ = encoding == kListpackEx;
}

bool Reader::Next(Slice* member, Slice* value) {
  if (corrupt_ || left_ == 0) {
    corrupt_ = corrupt_ || !rest_.empty();
    return false;
  }
  --left_;
  if (!GetLengthPrefixed(&rest_, member) || !GetLengthPrefixed(&rest_, value) ||
      (deadlines_ && value->size() < 8)) {
    corrupt_ = true;
    return false;
  }
  return true;
}

std::string Empty(char encoding) { return std::string(1, encoding) + '\0'; }

uint64_t DueVersion(const Slice& payload) {
  if (payload.size() < 1 + kDueVersionBytes || payload[0] != kListpackEx) return 0;
  return ReadU64(payload.data() + 1);
}

std::string WithDeadlines(const Slice& listpack, uint64_t due_version) {
  Reader reader(listpack);
  int64_t count = 0;
  char encoding;
  ReadHeader(listpack, &encoding, &count);
  std::string out(1, kListpackEx);
  AppendU64(&out, due_version);
  PutVarint(&out, static_cast<uint64_t>(count));
  Slice member, value;
  while (reader.Next(&member, &value)) {
    PutVarint(&out, member.size());
    out.append(member.data(), member.size());
    PutVarint(&out, value.size() + 8);
    AppendU64(&out, 0);
    out.append(value.data(), value.size());
  }
  return out;
}

void SetDueVersion(std::string* payload, uint64_t due_version) {
  std::string bytes;
  AppendU64(&bytes, due_version);
  payload->replace(1, kDueVersionBytes, bytes);
}

int64_t DeadlineOf(const Slice& stored) { return static_cast<int64_t>(ReadU64(stored.data())); }

Slice ValueOf(const Slice& stored) { return Slice(stored.data() + 8, stored.size() - 8); }

std::string Stored(int64_t deadline_ms, const Slice& value) {
  std::string out;
  out.reserve(8 + value.size());
  AppendU64(&out, static_cast<uint64_t>(deadline_ms));
  out.append(value.data(), value.size());
  return out;
}

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
  in.remove_prefix(PrefixBytes(payload[0]));
  GetVarint(&in, count);
  return payload.size() - in.size();
}

void SetCount(std::string* payload, uint64_t count) {
  uint64_t old;
  const size_t at = EntriesAt(*payload, &old);
  const size_t prefix = PrefixBytes((*payload)[0]);
  std::string header;
  PutVarint(&header, count);
  payload->replace(prefix, at - prefix, header);
}

// The first member at or after `member`: where its entry begins and ends,
// and whether it is `member` (else `begin` is where `member` would go).
struct Position {
  size_t begin, end;
  bool found;
};
Position Locate(const std::string& payload, const Slice& member, Slice* value = nullptr) {
  uint64_t count;
  size_t at = EntriesAt(payload, &count);
  Slice in(payload.data() + at, payload.size() - at);
  for (uint64_t i = 0; i < count; ++i) {
    Slice m, v;
    GetLengthPrefixed(&in, &m);
    GetLengthPrefixed(&in, &v);
    const int order = m.compare(member);
    const size_t end = payload.size() - in.size();
    if (order == 0 && value != nullptr) *value = v;
    if (order >= 0) return {at, end, order == 0};
    at = end;
  }
  return {payload.size(), payload.size(), false};
}

}  // namespace

bool Contains(const std::string& payload, const Slice& member) {
  return Locate(payload, member).found;
}

bool Find(const std::string& payload, const Slice& member, Slice* value) {
  return Locate(payload, member, value).found;
}

bool Put(std::string* payload, const Slice& member, const Slice& value) {
  const Position p = Locate(*payload, member);
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
  const Position p = Locate(*payload, member);
  if (!p.found) return false;
  payload->erase(p.begin, p.end - p.begin);
  uint64_t count;
  EntriesAt(*payload, &count);
  SetCount(payload, count - 1);
  return true;
}

void SetEncoding(std::string* payload, char encoding) { (*payload)[0] = encoding; }

}  // namespace teksdb::server::compact_members
