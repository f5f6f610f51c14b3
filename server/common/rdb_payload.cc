// The RDB string and footer encodings of rdb_payload.h.
#include "rdb_payload.h"

extern "C" {
#include <liblzf/lzf.h>
}

#include <array>

namespace teksdb::server::rdb_payload {
namespace {

// rdb.h's length encodings (the top two bits of the first byte).
constexpr uint8_t k6BitLength = 0, k14BitLength = 1, kEncoded = 3;
constexpr uint8_t k32BitLength = 0x80, k64BitLength = 0x81;
constexpr uint8_t kInt8 = 0, kInt16 = 1, kInt32 = 2, kLzf = 3;
// A decompressed string larger than this is refused (RESTORE input is
// untrusted; Redis's proto-max-bulk-len is 512 MiB).
constexpr uint64_t kMaxStringBytes = uint64_t{512} << 20;

const std::array<uint64_t, 256>& Crc64Table() {
  static const std::array<uint64_t, 256> table = [] {
    // The Jones polynomial 0xad93d23594c935a9, bit-reversed: Redis's CRC64
    // is reflected, with no initial or final xor.
    constexpr uint64_t kReflected = 0x95ac9329ac4bc9b5ULL;
    std::array<uint64_t, 256> t{};
    for (uint64_t b = 0; b < 256; ++b) {
      uint64_t crc = b;
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? kReflected : 0);
      t[b] = crc;
    }
    return t;
  }();
  return table;
}

void AppendLength(std::string* out, uint64_t n) {
  if (n < (1 << 6)) {
    out->push_back(static_cast<char>(n));
  } else if (n < (1 << 14)) {
    out->push_back(static_cast<char>((k14BitLength << 6) | (n >> 8)));
    out->push_back(static_cast<char>(n & 0xff));
  } else if (n <= 0xffffffffULL) {
    out->push_back(static_cast<char>(k32BitLength));
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((n >> shift) & 0xff));
  } else {
    out->push_back(static_cast<char>(k64BitLength));
    for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((n >> shift) & 0xff));
  }
}

bool ReadByte(std::string_view body, size_t* pos, uint8_t* b) {
  if (*pos >= body.size()) return false;
  *b = static_cast<uint8_t>(body[(*pos)++]);
  return true;
}

bool ReadBigEndian(std::string_view body, size_t* pos, int bytes, uint64_t* n) {
  *n = 0;
  for (int i = 0; i < bytes; ++i) {
    uint8_t b;
    if (!ReadByte(body, pos, &b)) return false;
    *n = (*n << 8) | b;
  }
  return true;
}

// A length, or (*encoded set) an encoding type.
bool ReadLength(std::string_view body, size_t* pos, uint64_t* n, bool* encoded) {
  *encoded = false;
  uint8_t first;
  if (!ReadByte(body, pos, &first)) return false;
  const uint8_t kind = first >> 6;
  if (kind == k6BitLength) {
    *n = first & 0x3f;
    return true;
  }
  if (kind == k14BitLength) {
    uint8_t second;
    if (!ReadByte(body, pos, &second)) return false;
    *n = (uint64_t{first & 0x3fu} << 8) | second;
    return true;
  }
  if (kind == kEncoded) {
    *encoded = true;
    *n = first & 0x3f;
    return true;
  }
  if (first == k32BitLength) return ReadBigEndian(body, pos, 4, n);
  if (first == k64BitLength) return ReadBigEndian(body, pos, 8, n);
  return false;
}

bool ReadLittleEndianInt(std::string_view body, size_t* pos, int bytes, int64_t* v) {
  if (*pos > body.size() || body.size() - *pos < static_cast<size_t>(bytes)) return false;
  uint64_t u = 0;
  for (int i = bytes - 1; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(body[*pos + i]);
  *pos += bytes;
  const int bits = bytes * 8;
  *v = bits == 64 ? static_cast<int64_t>(u)
                  : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);  // sign-extended
  return true;
}

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  const std::array<uint64_t, 256>& table = Crc64Table();
  for (const char c : data) crc = table[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  return crc;
}

void AppendString(std::string* out, std::string_view s) {
  AppendLength(out, s.size());
  out->append(s);
}

void AppendFooter(std::string* out) {
  out->push_back(static_cast<char>(kRdbVersion & 0xff));
  out->push_back(static_cast<char>(kRdbVersion >> 8));
  const uint64_t crc = Crc64(0, *out);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
}

bool CheckFooter(std::string_view payload, std::string_view* body) {
  if (payload.size() < 10) return false;
  const size_t footer = payload.size() - 10;
  const uint16_t version = static_cast<uint8_t>(payload[footer]) |
                           (static_cast<uint16_t>(static_cast<uint8_t>(payload[footer + 1])) << 8);
  if (version > kRdbVersion) return false;
  uint64_t crc = 0;
  for (int i = 7; i >= 0; --i) crc = (crc << 8) | static_cast<uint8_t>(payload[footer + 2 + i]);
  if (Crc64(0, payload.substr(0, footer + 2)) != crc) return false;
  *body = payload.substr(0, footer);
  return true;
}

bool ReadString(std::string_view body, size_t* pos, std::string* s) {
  uint64_t n;
  bool encoded;
  if (!ReadLength(body, pos, &n, &encoded)) return false;
  if (!encoded) {
    if (n > body.size() - *pos) return false;
    s->assign(body.substr(*pos, n));
    *pos += n;
    return true;
  }
  int64_t v;
  switch (n) {
    case kInt8:
    case kInt16:
    case kInt32:
      if (!ReadLittleEndianInt(body, pos, 1 << n, &v)) return false;
      *s = std::to_string(v);
      return true;
    case kLzf: {
      uint64_t compressed, length;
      if (!ReadLength(body, pos, &compressed, &encoded) || encoded) return false;
      if (!ReadLength(body, pos, &length, &encoded) || encoded) return false;
      if (compressed > body.size() - *pos || length > kMaxStringBytes || length == 0) return false;
      s->assign(length, '\0');
      const unsigned int got = lzf_decompress(body.data() + *pos, static_cast<unsigned int>(compressed),
                                              s->data(), static_cast<unsigned int>(length));
      if (got != length) return false;
      *pos += compressed;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace teksdb::server::rdb_payload
