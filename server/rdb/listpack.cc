// The listpack format of listpack.h.
#include "listpack.h"

#include <cstdint>

#include "rdb_payload.h"
#include "strict_integer.h"

namespace teksdb::server::listpack {
namespace {

constexpr size_t kHeaderBytes = 6;
constexpr uint8_t kEnd = 0xff;
constexpr uint16_t kUnknownCount = 65535;
// The first byte of each encoding (listpack.c's LP_ENCODING_*).
constexpr uint8_t k7BitUint = 0x00, k6BitString = 0x80, k13BitInt = 0xc0, k12BitString = 0xe0;
constexpr uint8_t k32BitString = 0xf0, k16BitInt = 0xf1, k24BitInt = 0xf2, k32BitInt = 0xf3,
                  k64BitInt = 0xf4;

// How many bytes the back length of an entry of `size` bytes takes (its
// thresholds, one short of the powers of 128, are lpEncodeBacklen's).
size_t BackLengthBytes(uint64_t size) {
  return size <= 127 ? 1 : size < 16383 ? 2 : size < 2097151 ? 3 : size < 268435455 ? 4 : 5;
}

// lpEncodeBacklen: the most significant 7 bits first, every byte after the
// first with its top bit set, so that it reads right to left.
void AppendBackLength(std::string* out, uint64_t size) {
  const size_t n = BackLengthBytes(size);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t group = static_cast<uint8_t>((size >> (7 * (n - 1 - i))) & 127);
    out->push_back(static_cast<char>(i == 0 ? group : (group | 128)));
  }
}

uint64_t SignExtend(uint64_t u, int bits) {
  return static_cast<uint64_t>(static_cast<int64_t>(u << (64 - bits)) >> (64 - bits));
}

// One entry at lp[*pos]: its text into *entry, *pos past its back length.
bool DecodeEntry(std::string_view lp, size_t* pos, std::string* entry) {
  const size_t start = *pos;
  uint8_t first;
  if (!rdb_payload::ReadByte(lp, pos, &first)) return false;
  uint64_t length = 0;
  bool is_string = true;
  int int_bytes = 0;
  uint64_t u = 0;
  if ((first & 0x80) == k7BitUint) {
    is_string = false;
    u = first & 0x7f;
  } else if ((first & 0xc0) == k6BitString) {
    length = first & 0x3f;
  } else if ((first & 0xe0) == k13BitInt) {
    uint8_t low;
    if (!rdb_payload::ReadByte(lp, pos, &low)) return false;
    is_string = false;
    u = SignExtend((uint64_t{first & 0x1fu} << 8) | low, 13);
  } else if ((first & 0xf0) == k12BitString) {
    uint8_t low;
    if (!rdb_payload::ReadByte(lp, pos, &low)) return false;
    length = (uint64_t{first & 0x0fu} << 8) | low;
  } else if (first == k32BitString) {
    if (!rdb_payload::ReadLittleEndian(lp, pos, 4, &length)) return false;
  } else if (first >= k16BitInt && first <= k64BitInt) {
    is_string = false;
    int_bytes = first == k16BitInt ? 2 : first == k24BitInt ? 3 : first == k32BitInt ? 4 : 8;
    if (!rdb_payload::ReadLittleEndian(lp, pos, int_bytes, &u)) return false;
    u = SignExtend(u, int_bytes * 8);
  } else {
    return false;  // 0xf5-0xfe are unused; 0xff is the end, not an entry
  }
  if (is_string) {
    if (length > lp.size() - *pos) return false;
    entry->assign(lp.substr(*pos, length));
    *pos += length;
  } else {
    *entry = std::to_string(static_cast<int64_t>(u));
  }
  // The back length: what was read, written as AppendBackLength writes it.
  const uint64_t size = *pos - start;
  const size_t n = BackLengthBytes(size);
  if (n > lp.size() - *pos) return false;
  std::string expected;
  AppendBackLength(&expected, size);
  if (lp.substr(*pos, n) != expected) return false;
  *pos += n;
  return true;
}

void AppendEntry(std::string* out, std::string_view s) {
  const size_t start = out->size();
  int64_t v;
  if (s.size() <= 20 && ParseStrictInt64(std::string(s), &v)) {
    const uint64_t u = static_cast<uint64_t>(v);
    auto little_endian = [&](uint8_t encoding, int bytes) {
      out->push_back(static_cast<char>(encoding));
      for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    };
    if (v >= 0 && v <= 127) {
      out->push_back(static_cast<char>(v));
    } else if (v >= -4096 && v <= 4095) {
      const uint64_t bits = u & 0x1fff;
      out->push_back(static_cast<char>(k13BitInt | (bits >> 8)));
      out->push_back(static_cast<char>(bits & 0xff));
    } else if (v >= -32768 && v <= 32767) {
      little_endian(k16BitInt, 2);
    } else if (v >= -8388608 && v <= 8388607) {
      little_endian(k24BitInt, 3);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      little_endian(k32BitInt, 4);
    } else {
      little_endian(k64BitInt, 8);
    }
  } else if (s.size() < 64) {
    out->push_back(static_cast<char>(k6BitString | s.size()));
    out->append(s);
  } else if (s.size() < 4096) {
    out->push_back(static_cast<char>(k12BitString | (s.size() >> 8)));
    out->push_back(static_cast<char>(s.size() & 0xff));
    out->append(s);
  } else {
    out->push_back(static_cast<char>(k32BitString));
    for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((s.size() >> (8 * i)) & 0xff));
    out->append(s);
  }
  AppendBackLength(out, out->size() - start);
}

// The bytes of an integer's encoding (without its back length).
size_t IntegerBytes(int64_t v) {
  if (v >= 0 && v <= 127) return 1;
  if (v >= -4096 && v <= 4095) return 2;
  if (v >= -32768 && v <= 32767) return 3;
  if (v >= -8388608 && v <= 8388607) return 4;
  if (v >= INT32_MIN && v <= INT32_MAX) return 5;
  return 9;
}

}  // namespace

size_t EntryBytes(int64_t entry) {
  const size_t n = IntegerBytes(entry);
  return n + BackLengthBytes(n);
}

size_t EntryBytes(std::string_view entry) {
  int64_t v;
  if (entry.size() <= 20 && ParseStrictInt64(std::string(entry), &v)) return EntryBytes(v);
  const size_t header = entry.size() < 64 ? 1 : entry.size() < 4096 ? 2 : 5;
  const size_t n = header + entry.size();
  return n + BackLengthBytes(n);
}

bool Decode(std::string_view lp, std::vector<std::string>* entries, DecodeBudget* budget) {
  size_t pos = 0;
  uint64_t total, count;
  if (!rdb_payload::ReadLittleEndian(lp, &pos, 4, &total) ||
      !rdb_payload::ReadLittleEndian(lp, &pos, 2, &count)) {
    return false;
  }
  if (total != lp.size() || lp.size() < kHeaderBytes + 1) return false;
  const std::string_view body = lp.substr(0, lp.size() - 1);
  entries->clear();
  while (pos < body.size()) {
    std::string entry;
    if (!DecodeEntry(body, &pos, &entry) || !SpendFrom(budget, entry.size())) return false;
    entries->push_back(std::move(entry));
  }
  if (static_cast<uint8_t>(lp.back()) != kEnd) return false;
  return count == kUnknownCount || count == entries->size();
}

std::string Encode(const std::vector<std::string_view>& entries) {
  std::string lp(kHeaderBytes, '\0');
  for (const std::string_view e : entries) AppendEntry(&lp, e);
  lp.push_back(static_cast<char>(kEnd));
  const uint64_t count = entries.size() < kUnknownCount ? entries.size() : kUnknownCount;
  for (int i = 0; i < 4; ++i) lp[i] = static_cast<char>((lp.size() >> (8 * i)) & 0xff);
  for (int i = 0; i < 2; ++i) lp[4 + i] = static_cast<char>((count >> (8 * i)) & 0xff);
  return lp;
}

}  // namespace teksdb::server::listpack
