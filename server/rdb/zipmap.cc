// The zipmap format of zipmap.h.
#include "zipmap.h"

#include <cstdint>

#include "rdb_payload.h"

namespace teksdb::server::zipmap {
namespace {

constexpr uint8_t kBigLength = 254, kEnd = 255;

bool ReadLength(std::string_view zm, size_t* pos, uint64_t* n) {
  uint8_t b;
  if (!rdb_payload::ReadByte(zm, pos, &b) || b == kEnd) return false;
  if (b < kBigLength) {
    *n = b;
    return true;
  }
  return rdb_payload::ReadLittleEndian(zm, pos, 4, n);
}

bool ReadBytes(std::string_view zm, size_t* pos, uint64_t n, std::string* out) {
  if (n > zm.size() - *pos) return false;
  if (out != nullptr) out->assign(zm.substr(*pos, n));
  *pos += n;
  return true;
}

}  // namespace

bool Decode(std::string_view zm, std::vector<std::pair<std::string, std::string>>* pairs,
            DecodeBudget* budget) {
  if (zm.size() < 2 || static_cast<uint8_t>(zm.back()) != kEnd) return false;
  const uint8_t count = static_cast<uint8_t>(zm[0]);
  const std::string_view body = zm.substr(0, zm.size() - 1);
  size_t pos = 1;
  pairs->clear();
  while (pos < body.size()) {
    std::pair<std::string, std::string> pair;
    uint64_t length;
    uint8_t free;
    if (!ReadLength(body, &pos, &length) || !ReadBytes(body, &pos, length, &pair.first) ||
        !ReadLength(body, &pos, &length) || !rdb_payload::ReadByte(body, &pos, &free) ||
        !ReadBytes(body, &pos, length, &pair.second) || !ReadBytes(body, &pos, free, nullptr)) {
      return false;
    }
    if (!SpendFrom(budget, pair.first.size() + pair.second.size())) return false;
    pairs->push_back(std::move(pair));
  }
  return count >= kBigLength || count == pairs->size();
}

}  // namespace teksdb::server::zipmap
