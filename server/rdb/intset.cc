// The intset format of intset.h.
#include "intset.h"

#include <algorithm>

#include "rdb_payload.h"

namespace teksdb::server::intset {

bool Decode(std::string_view is, std::vector<std::string>* members, DecodeBudget* budget) {
  size_t pos = 0;
  uint64_t width, count;
  if (!rdb_payload::ReadLittleEndian(is, &pos, 4, &width) ||
      !rdb_payload::ReadLittleEndian(is, &pos, 4, &count)) {
    return false;
  }
  if ((width != 2 && width != 4 && width != 8) || count == 0 || (is.size() - 8) / width != count ||
      (is.size() - 8) % width != 0) {
    return false;
  }
  members->clear();
  const int shift = 64 - 8 * static_cast<int>(width);
  int64_t previous = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t u;
    if (!rdb_payload::ReadLittleEndian(is, &pos, static_cast<int>(width), &u)) return false;
    const int64_t v = shift == 0 ? static_cast<int64_t>(u) : static_cast<int64_t>(u << shift) >> shift;
    if ((i > 0 && v <= previous) || !SpendFrom(budget, 20)) return false;
    previous = v;
    members->push_back(std::to_string(v));
  }
  return true;
}

std::string Encode(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  int width = 2;
  for (const int64_t v : values) {
    if (v < INT32_MIN || v > INT32_MAX) {
      width = 8;
    } else if ((v < INT16_MIN || v > INT16_MAX) && width < 4) {
      width = 4;
    }
  }
  std::string is;
  auto append = [&](uint64_t u, int bytes) {
    for (int i = 0; i < bytes; ++i) is.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
  };
  append(static_cast<uint64_t>(width), 4);
  append(values.size(), 4);
  for (const int64_t v : values) append(static_cast<uint64_t>(v), width);
  return is;
}

}  // namespace teksdb::server::intset
