// The RDB lengths, strings, doubles and footer of rdb_payload.h.
#include "rdb_payload.h"

extern "C" {
#include <liblzf/lzf.h>
}

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "strict_integer.h"

namespace teksdb::server::rdb_payload {
namespace {

// rdb.h's length encodings (the top two bits of the first byte).
constexpr uint8_t k6BitLength = 0, k14BitLength = 1, kEncoded = 3;
constexpr uint8_t k32BitLength = 0x80, k64BitLength = 0x81;
constexpr uint8_t kInt8 = 0, kInt16 = 1, kInt32 = 2, kLzf = 3;
// A decompressed string larger than this is refused (RESTORE input is
// untrusted; Redis's proto-max-bulk-len is 512 MiB), and so is one that
// claims more than LZF can give from its compressed bytes: a back
// reference of at most 3 bytes copies at most 264, so no block expands
// more than 88 times (the allocation stays within the input's promise).
constexpr uint64_t kMaxStringBytes = uint64_t{512} << 20;
constexpr uint64_t kMaxLzfExpansion = 88;

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
bool ReadLengthOrEncoding(std::string_view body, size_t* pos, uint64_t* n, bool* encoded) {
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
  uint64_t u;
  if (!ReadLittleEndian(body, pos, bytes, &u)) return false;
  const int bits = bytes * 8;
  *v = bits == 64 ? static_cast<int64_t>(u)
                  : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);  // sign-extended
  return true;
}

// rdbEncodeInteger: the encoding of an integer that fits 32 bits.
bool AppendEncodedInteger(std::string* out, int64_t v) {
  int bytes;
  if (v >= -(1 << 7) && v <= (1 << 7) - 1) {
    bytes = 1;
  } else if (v >= -(1 << 15) && v <= (1 << 15) - 1) {
    bytes = 2;
  } else if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
    bytes = 4;
  } else {
    return false;
  }
  const uint8_t encoding = bytes == 1 ? kInt8 : bytes == 2 ? kInt16 : kInt32;
  out->push_back(static_cast<char>((kEncoded << 6) | encoding));
  const uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
  return true;
}

// rdbSaveLzfStringObject: false when compression saves less than 4 bytes.
bool AppendCompressed(std::string* out, std::string_view s) {
  std::string compressed(s.size() - 4, '\0');
  const unsigned int n = lzf_compress(s.data(), static_cast<unsigned int>(s.size()),
                                      compressed.data(), static_cast<unsigned int>(compressed.size()));
  if (n == 0) return false;
  out->push_back(static_cast<char>((kEncoded << 6) | kLzf));
  AppendLength(out, n);
  AppendLength(out, s.size());
  out->append(compressed.data(), n);
  return true;
}

}  // namespace

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

bool ReadLittleEndian(std::string_view body, size_t* pos, int bytes, uint64_t* v) {
  if (*pos > body.size() || body.size() - *pos < static_cast<size_t>(bytes)) return false;
  *v = 0;
  for (int i = bytes - 1; i >= 0; --i) *v = (*v << 8) | static_cast<uint8_t>(body[*pos + i]);
  *pos += bytes;
  return true;
}

bool ReadLength(std::string_view body, size_t* pos, uint64_t* n) {
  bool encoded;
  return ReadLengthOrEncoding(body, pos, n, &encoded) && !encoded;
}

uint64_t Crc64(uint64_t crc, std::string_view data) {
  const std::array<uint64_t, 256>& table = Crc64Table();
  for (const char c : data) crc = table[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  return crc;
}

void AppendString(std::string* out, std::string_view s) {
  int64_t v;
  if (s.size() <= 11 && ParseStrictInt64(std::string(s), &v) && AppendEncodedInteger(out, v)) return;
  if (s.size() > 20 && AppendCompressed(out, s)) return;
  AppendLength(out, s.size());
  out->append(s);
}

void AppendBinaryDouble(std::string* out, double v) {
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

bool ReadBinaryDouble(std::string_view body, size_t* pos, double* v) {
  uint64_t u;
  if (!ReadLittleEndian(body, pos, 8, &u)) return false;
  std::memcpy(v, &u, sizeof u);
  return true;
}

bool ReadTextDouble(std::string_view body, size_t* pos, double* v) {
  uint8_t n;
  if (!ReadByte(body, pos, &n)) return false;
  if (n >= 253) {
    *v = n == 253 ? std::nan("") : n == 254 ? HUGE_VAL : -HUGE_VAL;
    return true;
  }
  if (n > body.size() - *pos) return false;
  const std::string text(body.substr(*pos, n));
  *pos += n;
  char* end = nullptr;
  *v = std::strtod(text.c_str(), &end);
  return n > 0 && end == text.c_str() + n;
}

void AppendFooter(std::string* out, uint16_t version) {
  out->push_back(static_cast<char>(version & 0xff));
  out->push_back(static_cast<char>(version >> 8));
  const uint64_t crc = Crc64(0, *out);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
}

bool CheckFooter(std::string_view payload, std::string_view* body, bool verify_checksum) {
  if (payload.size() < 10) return false;
  const size_t footer = payload.size() - 10;
  const uint16_t version = static_cast<uint8_t>(payload[footer]) |
                           (static_cast<uint16_t>(static_cast<uint8_t>(payload[footer + 1])) << 8);
  if (version > kNewestRdbVersion) return false;
  uint64_t crc = 0;
  for (int i = 7; i >= 0; --i) crc = (crc << 8) | static_cast<uint8_t>(payload[footer + 2 + i]);
  if (verify_checksum && Crc64(0, payload.substr(0, footer + 2)) != crc) return false;
  *body = payload.substr(0, footer);
  return true;
}

bool ReadString(std::string_view body, size_t* pos, std::string* s) {
  uint64_t n;
  bool encoded;
  if (!ReadLengthOrEncoding(body, pos, &n, &encoded)) return false;
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
      if (!ReadLength(body, pos, &compressed) || !ReadLength(body, pos, &length)) return false;
      if (compressed > body.size() - *pos || length > kMaxStringBytes || length == 0 ||
          length > compressed * kMaxLzfExpansion) {
        return false;
      }
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
