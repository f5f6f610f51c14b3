// Bitmap commands on strings: SETBIT GETBIT BITCOUNT BITPOS BITOP, as Redis
// 7.0 answers them (bit 0 is the most significant bit of the first byte;
// a string grows, zero-padded, to hold the bit set; offsets below 2^32,
// Redis's 512 MB). Writes run under the key's lock.
#include <algorithm>
#include <bitset>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

constexpr const char* kBadOffset = "ERR bit offset is not an integer or out of range";

bool ParseOffset(Request& r, const std::string& arg, int64_t* offset) {
  if (ParseStrictInt64(arg, offset) && *offset >= 0 && *offset < (int64_t{1} << 32)) return true;
  reply::Error(r.out, kBadOffset);
  return false;
}

// The string at `key` (empty if absent): false having replied (WRONGTYPE,
// storage).
bool ReadString(Request& r, const std::string& key, std::optional<Keyspace::Value>* value) {
  const Status s = r.keyspace->Read(key, value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (*value && (*value)->type != Keyspace::kString) return reply::Error(r.out, kWrongType), false;
  return true;
}

bool BitAt(const std::string& bytes, int64_t bit) {
  const size_t byte = static_cast<size_t>(bit >> 3);
  return byte < bytes.size() && (static_cast<unsigned char>(bytes[byte]) >> (7 - (bit & 7))) & 1;
}

void SetBit(Request& r) {
  int64_t offset, bit;
  if (!ParseOffset(r, r.args[2], &offset)) return;
  if (!ParseStrictInt64(r.args[3], &bit) || (bit != 0 && bit != 1)) {
    return reply::Error(r.out, "ERR bit is not an integer or out of range");
  }
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  if (!ReadString(r, r.args[1], &v)) return;
  std::string bytes = v ? v->payload : std::string();
  const size_t byte = static_cast<size_t>(offset >> 3);
  if (bytes.size() <= byte) bytes.resize(byte + 1, '\0');
  const int old = BitAt(bytes, offset) ? 1 : 0;
  const unsigned char mask = static_cast<unsigned char>(1u << (7 - (offset & 7)));
  bytes[byte] = static_cast<char>(bit ? (bytes[byte] | mask) : (bytes[byte] & ~mask));
  Keyspace::Batch batch;
  batch.Put(r.args[1], Keyspace::Value{Keyspace::kString, v ? v->expire_ms : 0, std::move(bytes)});
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, old);
}

void GetBit(Request& r) {
  int64_t offset;
  if (!ParseOffset(r, r.args[2], &offset)) return;
  std::optional<Keyspace::Value> v;
  if (!ReadString(r, r.args[1], &v)) return;
  reply::Integer(r.out, v && BitAt(v->payload, offset) ? 1 : 0);
}

// A [start, end] range as BITCOUNT and BITPOS read it, in bytes or bits,
// clamped as Redis does; *empty when it holds nothing; false having
// replied an error. (For BITPOS, Redis reads the unit before the end, and
// has no shortcut for two negative ends the wrong way round.)
struct BitRange {
  int64_t first_bit = 0, last_bit = -1;  // inclusive
};
bool ParseRange(Request& r, size_t at, int64_t length, bool bitpos, bool* empty,
                bool* end_given, BitRange* range) {
  int64_t start = 0, end = -1;
  bool bits = false;
  *end_given = r.args.size() > at + 1;
  auto parse_unit = [&] {
    if (r.args.size() <= at + 2) return true;
    const std::string unit = AsciiLower(r.args[at + 2]);
    if (unit != "bit" && unit != "byte") return reply::Error(r.out, kSyntaxError), false;
    bits = unit == "bit";
    return true;
  };
  if (r.args.size() > at && !ParseStrictInt64(r.args[at], &start)) {
    return reply::Error(r.out, kNotInteger), false;
  }
  if (bitpos && !parse_unit()) return false;
  if (*end_given && !ParseStrictInt64(r.args[at + 1], &end)) {
    return reply::Error(r.out, kNotInteger), false;
  }
  // BITCOUNT's shortcut comes before its unit is read.
  if (!bitpos && start < 0 && end < 0 && start > end) return *empty = true, true;
  if (!bitpos && !parse_unit()) return false;
  const int64_t total = bits ? length * 8 : length;
  *empty = false;
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max<int64_t>(start, 0);
  end = std::max<int64_t>(end, 0);
  end = std::min(end, total - 1);
  if (start > end) return *empty = true, true;
  range->first_bit = bits ? start : start * 8;
  range->last_bit = bits ? end : end * 8 + 7;
  return true;
}

// BITCOUNT key [start end [BYTE|BIT]]
void BitCount(Request& r) {
  std::optional<Keyspace::Value> v;
  if (!ReadString(r, r.args[1], &v)) return;
  if (!v) return reply::Integer(r.out, 0);  // Redis looks the key up first
  if (r.args.size() == 3 || r.args.size() > 5) return reply::Error(r.out, kSyntaxError);
  bool empty, end_given;
  BitRange range;
  if (!ParseRange(r, 2, static_cast<int64_t>(v->payload.size()), false, &empty, &end_given,
                  &range)) {
    return;
  }
  if (empty) return reply::Integer(r.out, 0);
  int64_t count = 0;
  for (int64_t bit = range.first_bit; bit <= range.last_bit;) {
    if ((bit & 7) == 0 && bit + 7 <= range.last_bit) {
      count += std::bitset<8>(static_cast<unsigned char>(v->payload[bit >> 3])).count();
      bit += 8;
    } else {
      count += BitAt(v->payload, bit) ? 1 : 0;
      ++bit;
    }
  }
  reply::Integer(r.out, count);
}

// BITPOS key bit [start [end [BYTE|BIT]]]: the first bit set to `bit`;
// looking for a 0 without an end, the bit after the string counts.
void BitPos(Request& r) {
  if (r.args.size() > 6) return reply::Error(r.out, kSyntaxError);
  int64_t bit;
  if (!ParseStrictInt64(r.args[2], &bit)) return reply::Error(r.out, kNotInteger);
  if (bit != 0 && bit != 1) return reply::Error(r.out, "ERR The bit argument must be 1 or 0.");
  std::optional<Keyspace::Value> v;
  if (!ReadString(r, r.args[1], &v)) return;
  if (!v) return reply::Integer(r.out, bit ? -1 : 0);
  bool empty, end_given;
  BitRange range;
  const int64_t length = static_cast<int64_t>(v->payload.size());
  if (!ParseRange(r, 3, length, true, &empty, &end_given, &range)) return;
  if (empty) return reply::Integer(r.out, -1);
  for (int64_t b = range.first_bit; b <= range.last_bit; ++b) {
    if (BitAt(v->payload, b) == (bit == 1)) return reply::Integer(r.out, b);
  }
  // No 0 in the range: past its end, unless the range had an end.
  if (bit == 0 && !end_given) return reply::Integer(r.out, range.last_bit + 1);
  reply::Integer(r.out, -1);
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]: the result's length.
void BitOp(Request& r) {
  const std::string op = AsciiLower(r.args[1]);
  if (op != "and" && op != "or" && op != "xor" && op != "not") {
    return reply::Error(r.out, kSyntaxError);
  }
  if (op == "not" && r.args.size() != 4) {
    return reply::Error(r.out, "ERR BITOP NOT must be called with a single source key.");
  }
  const std::vector<std::string> sources(r.args.begin() + 3, r.args.end());
  std::vector<std::string> locked = sources;
  locked.push_back(r.args[2]);
  auto locks = r.keyspace->LockKeys(locked);
  std::vector<std::string> inputs;
  size_t length = 0;
  for (const std::string& key : sources) {
    std::optional<Keyspace::Value> v;
    if (!ReadString(r, key, &v)) return;
    inputs.push_back(v ? v->payload : std::string());
    length = std::max(length, inputs.back().size());
  }
  std::string result(length, '\0');
  for (size_t i = 0; i < length; ++i) {
    auto byte = [&](size_t k) {
      return i < inputs[k].size() ? static_cast<unsigned char>(inputs[k][i]) : 0;
    };
    unsigned char out = byte(0);
    if (op == "not") out = static_cast<unsigned char>(~out);
    for (size_t k = 1; k < inputs.size(); ++k) {
      if (op == "and") out &= byte(k);
      if (op == "or") out |= byte(k);
      if (op == "xor") out ^= byte(k);
    }
    result[i] = static_cast<char>(out);
  }
  Keyspace::Batch batch;
  if (result.empty()) {
    std::optional<Keyspace::Value> old;
    const Status s = r.keyspace->Read(r.args[2], &old);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (!old) return reply::Integer(r.out, 0);
    batch.Delete(r.args[2]);
  } else {
    batch.Put(r.args[2], Keyspace::Value{Keyspace::kString, 0, std::move(result)});
  }
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, static_cast<int64_t>(length));
}

}  // namespace

void AddBitmapCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"setbit", 4, SetBit},     {"getbit", 3, GetBit}, {"bitcount", -2, BitCount},
      {"bitpos", -3, BitPos},    {"bitop", -4, BitOp},
  });
}

}  // namespace teksdb::server
