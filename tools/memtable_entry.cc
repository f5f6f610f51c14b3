// Memtable entry encoding and order (see memtable_entry.h).
#include "memtable_entry.h"


#include "rocksdb_internals.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::SequenceNumber;
using ROCKSDB_NAMESPACE::Slice;

int InternalKeyOrder::Compare(const Slice& a, const Slice& b) {
  const int r = UserKeyOf(a).compare(UserKeyOf(b));
  if (r != 0) return r;
  const uint64_t ta = PackedTagOf(a), tb = PackedTagOf(b);
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

int InternalKeyOrder::operator()(const char* a, const char* b) const {
  return Compare(EntryView::Decode(a).internal_key, EntryView::Decode(b).internal_key);
}

int InternalKeyOrder::operator()(const char* a, const Slice& internal_key) const {
  return Compare(EntryView::Decode(a).internal_key, internal_key);
}

std::string InternalKey(const Slice& user_key, SequenceNumber seq, uint8_t type) {
  std::string k(user_key.data(), user_key.size());
  const uint64_t tag = PackedTag(seq, type);
  k.append(reinterpret_cast<const char*>(&tag), kTagSize);  // little-endian fixed64
  return k;
}

namespace {
void PutVarint32(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
}  // namespace

std::string EncodeEntry(const Slice& user_key, SequenceNumber seq, uint8_t type,
                        const Slice& value) {
  std::string encoded;
  PutVarint32(&encoded, static_cast<uint32_t>(user_key.size() + kTagSize));
  encoded += InternalKey(user_key, seq, type);
  PutVarint32(&encoded, static_cast<uint32_t>(value.size()));
  encoded.append(value.data(), value.size());
  return encoded;
}

DecodedEntry DecodeEntry(const char* entry) {
  const EntryView view = EntryView::Decode(entry);
  const char* p = view.internal_key.data() + view.internal_key.size();
  uint32_t len = 0;
  int shift = 0;
  while (true) {
    const uint32_t byte = static_cast<uint8_t>(*p++);
    len |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
  }
  return DecodedEntry{view.user_key().ToString(), view.sequence(), view.type(),
                      std::string(p, len)};
}

}  // namespace teksdb
