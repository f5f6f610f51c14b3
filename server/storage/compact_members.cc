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

std::string Encode(char encoding, const std::map<std::string, std::string>& members) {
  std::string out(1, encoding);
  PutVarint(&out, members.size());
  for (const auto& [member, value] : members) {
    PutVarint(&out, member.size());
    out += member;
    PutVarint(&out, value.size());
    out += value;
  }
  return out;
}

bool Decode(const Slice& payload, std::map<std::string, std::string>* out) {
  Reader reader(payload);
  Slice member, value;
  while (reader.Next(&member, &value)) {
    out->emplace_hint(out->end(), member.ToString(), value.ToString());
  }
  return !reader.corrupt();
}

}  // namespace teksdb::server::compact_members
