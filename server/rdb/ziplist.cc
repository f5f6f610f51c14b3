// The ziplist format of ziplist.h.
#include "ziplist.h"

#include <cstdint>

#include "rdb_payload.h"

namespace teksdb::server::ziplist {
namespace {

constexpr size_t kHeaderBytes = 10;
constexpr uint8_t kEnd = 0xff;
constexpr uint8_t kBigPreviousLength = 0xfe;
constexpr uint64_t kUnknownCount = 65535;
// ziplist.c's ZIP_STR_* (top two bits) and ZIP_INT_* encodings.
constexpr uint8_t k6BitString = 0x00, k14BitString = 0x40, k32BitString = 0x80;
constexpr uint8_t kInt16 = 0xc0, kInt32 = 0xd0, kInt64 = 0xe0, kInt24 = 0xf0, kInt8 = 0xfe;
constexpr uint8_t kImmediateMin = 0xf1, kImmediateMax = 0xfd;

// The entry at zl[*pos], whose previous entry took `previous` bytes.
bool DecodeEntry(std::string_view zl, size_t* pos, uint64_t previous, std::string* entry) {
  uint8_t b;
  if (!rdb_payload::ReadByte(zl, pos, &b)) return false;
  uint64_t previous_length = b;
  if (b == kBigPreviousLength && !rdb_payload::ReadLittleEndian(zl, pos, 4, &previous_length)) {
    return false;
  }
  if (b == kEnd || previous_length != previous) return false;
  uint8_t encoding;
  if (!rdb_payload::ReadByte(zl, pos, &encoding)) return false;
  if ((encoding & 0xc0) != 0xc0) {
    uint64_t length = encoding & 0x3f;
    if ((encoding & 0xc0) == k14BitString) {
      uint8_t low;
      if (!rdb_payload::ReadByte(zl, pos, &low)) return false;
      length = (length << 8) | low;
    } else if ((encoding & 0xc0) == k32BitString) {
      length = 0;
      for (int i = 0; i < 4; ++i) {
        if (!rdb_payload::ReadByte(zl, pos, &b)) return false;
        length = (length << 8) | b;
      }
    } else if ((encoding & 0xc0) != k6BitString) {
      return false;
    }
    if (length > zl.size() - *pos) return false;
    entry->assign(zl.substr(*pos, length));
    *pos += length;
    return true;
  }
  int bytes;
  switch (encoding) {
    case kInt8: bytes = 1; break;
    case kInt16: bytes = 2; break;
    case kInt24: bytes = 3; break;
    case kInt32: bytes = 4; break;
    case kInt64: bytes = 8; break;
    default:
      if (encoding < kImmediateMin || encoding > kImmediateMax) return false;
      *entry = std::to_string((encoding & 0x0f) - 1);
      return true;
  }
  uint64_t u;
  if (!rdb_payload::ReadLittleEndian(zl, pos, bytes, &u)) return false;
  const int shift = 64 - 8 * bytes;
  *entry = std::to_string(shift == 0 ? static_cast<int64_t>(u)
                                     : static_cast<int64_t>(u << shift) >> shift);
  return true;
}

}  // namespace

bool Decode(std::string_view zl, std::vector<std::string>* entries, DecodeBudget* budget) {
  size_t pos = 0;
  uint64_t total, tail, count;
  if (!rdb_payload::ReadLittleEndian(zl, &pos, 4, &total) ||
      !rdb_payload::ReadLittleEndian(zl, &pos, 4, &tail) ||
      !rdb_payload::ReadLittleEndian(zl, &pos, 2, &count)) {
    return false;
  }
  if (total != zl.size() || zl.size() < kHeaderBytes + 1 ||
      static_cast<uint8_t>(zl.back()) != kEnd || tail > zl.size() - 1) {
    return false;
  }
  const std::string_view body = zl.substr(0, zl.size() - 1);
  entries->clear();
  uint64_t previous = 0;
  size_t last_start = kHeaderBytes;
  while (pos < body.size()) {
    const size_t start = pos;
    std::string entry;
    if (!DecodeEntry(body, &pos, previous, &entry) || !SpendFrom(budget, entry.size())) return false;
    previous = pos - start;
    last_start = start;
    entries->push_back(std::move(entry));
  }
  if (!entries->empty() && tail != last_start) return false;
  return count == kUnknownCount || count == entries->size();
}

}  // namespace teksdb::server::ziplist
