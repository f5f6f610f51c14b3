// BITFIELD key [GET type offset | SET type offset value | INCRBY type offset
// increment | OVERFLOW WRAP|SAT|FAIL] ... and BITFIELD_RO key [GET type
// offset] ..., as Redis 7.0 answers them: integers of 1-64 bits (u1-u63,
// i1-i64) at any bit offset of a string (bit 0 the most significant of the
// first byte, as SETBIT), "#N" offsets counted in the type's width, each
// SET and INCRBY under the OVERFLOW mode given before it. A write grows the
// string, zero-padded, to its farthest bit first (as Redis does, so a write
// that fails for overflow still leaves it grown) and runs under the key's
// lock; reads past the end see zeros.
#include <cstdint>
#include <limits>
#include <vector>

#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

enum class Overflow { kWrap, kSat, kFail };

struct Op {
  enum Kind { kGet, kSet, kIncrBy } kind;
  bool sign;
  int bits;
  uint64_t offset;
  int64_t value;  // SET's value, INCRBY's increment
  Overflow overflow;
};

constexpr const char* kBadType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 "
    "is.";
constexpr const char* kBadOffset = "ERR bit offset is not an integer or out of range";
// Redis's bound: offsets within proto-max-bulk-len (512 MB) of bytes.
constexpr int64_t kMaxOffsetBytes = int64_t{512} << 20;

uint64_t GetBits(const std::string& bytes, uint64_t offset, int bits) {
  uint64_t value = 0;
  for (int j = 0; j < bits; ++j, ++offset) {
    const uint64_t byte = offset >> 3;
    const unsigned bit =
        byte < bytes.size() ? (static_cast<uint8_t>(bytes[byte]) >> (7 - (offset & 7))) & 1 : 0;
    value = (value << 1) | bit;
  }
  return value;
}

// REQUIRES: bytes holds bit offset + bits - 1.
void SetBits(std::string* bytes, uint64_t offset, int bits, uint64_t value) {
  for (int j = 0; j < bits; ++j, ++offset) {
    const uint8_t mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
    char& byte = (*bytes)[offset >> 3];
    const bool on = (value >> (bits - 1 - j)) & 1;
    byte = static_cast<char>(on ? (static_cast<uint8_t>(byte) | mask)
                                : (static_cast<uint8_t>(byte) & ~mask));
  }
}

int64_t SignExtend(uint64_t value, int bits) {
  if (bits < 64 && (value & (uint64_t{1} << (bits - 1)))) value |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(value);
}

// Whether value + incr passes an unsigned `bits`-bit integer: 1 above, -1
// below, 0 not; *limit then what WRAP or SAT makes of it (Redis's
// checkUnsignedBitfieldOverflow).
int UnsignedOverflow(uint64_t value, int64_t incr, int bits, Overflow overflow, uint64_t* limit) {
  const uint64_t max = (uint64_t{1} << bits) - 1;  // bits <= 63
  const int64_t max_incr = static_cast<int64_t>(max - value);
  const int64_t min_incr = -static_cast<int64_t>(value);
  int result = 0;
  if (value > max || (incr > 0 && incr > max_incr)) {
    result = 1;
  } else if (incr < 0 && incr < min_incr) {
    result = -1;
  }
  if (result != 0 && overflow == Overflow::kWrap) {
    *limit = (value + static_cast<uint64_t>(incr)) & max;
    return 1;
  }
  if (result != 0 && overflow == Overflow::kSat) *limit = result > 0 ? max : 0;
  return result;
}

// The same for a signed `bits`-bit integer (checkSignedBitfieldOverflow).
int SignedOverflow(int64_t value, int64_t incr, int bits, Overflow overflow, int64_t* limit) {
  const int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                                 : static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
  const int64_t min = -max - 1;
  const auto minus = [](int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  };
  const int64_t max_incr = minus(max, value);
  const int64_t min_incr = minus(min, value);
  int result = 0;
  if (value > max || (bits != 64 && incr > max_incr) || (value >= 0 && incr > 0 && incr > max_incr)) {
    result = 1;
  } else if (value < min || (bits != 64 && incr < min_incr) ||
             (value < 0 && incr < 0 && incr < min_incr)) {
    result = -1;
  }
  if (result != 0 && overflow == Overflow::kWrap) {
    uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) {
      const uint64_t high = ~uint64_t{0} << bits;
      sum = (sum & (uint64_t{1} << (bits - 1))) ? (sum | high) : (sum & ~high);
    }
    *limit = static_cast<int64_t>(sum);
    return 1;
  }
  if (result != 0 && overflow == Overflow::kSat) *limit = result > 0 ? max : min;
  return result;
}

bool ParseType(const std::string& arg, bool* sign, int* bits) {
  int64_t n;
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u') || !ParseStrictInt64(arg.substr(1), &n)) {
    return false;
  }
  *sign = arg[0] == 'i';
  if (n < 1 || n > (*sign ? 64 : 63)) return false;
  *bits = static_cast<int>(n);
  return true;
}

bool ParseOffset(const std::string& arg, int bits, uint64_t* offset) {
  const bool scaled = !arg.empty() && arg[0] == '#';
  int64_t n;
  if (!ParseStrictInt64(scaled ? arg.substr(1) : arg, &n)) return false;
  if (scaled && __builtin_mul_overflow(n, static_cast<int64_t>(bits), &n)) return false;
  if (n < 0 || (n >> 3) >= kMaxOffsetBytes) return false;
  *offset = static_cast<uint64_t>(n);
  return true;
}

// The operations r.args[2...] name, in order: false having replied an error.
bool ParseOps(Request& r, std::vector<Op>* ops) {
  Overflow overflow = Overflow::kWrap;
  for (size_t j = 2; j < r.args.size();) {
    const size_t left = r.args.size() - j - 1;
    const std::string sub = AsciiLower(r.args[j]);
    Op op{Op::kGet, false, 0, 0, 0, overflow};
    if (sub == "overflow" && left >= 1) {
      const std::string mode = AsciiLower(r.args[j + 1]);
      if (mode == "wrap") {
        overflow = Overflow::kWrap;
      } else if (mode == "sat") {
        overflow = Overflow::kSat;
      } else if (mode == "fail") {
        overflow = Overflow::kFail;
      } else {
        return reply::Error(r.out, "ERR Invalid OVERFLOW type specified"), false;
      }
      j += 2;
      continue;
    }
    if (sub == "set" && left >= 3) {
      op.kind = Op::kSet;
    } else if (sub == "incrby" && left >= 3) {
      op.kind = Op::kIncrBy;
    } else if (sub != "get" || left < 2) {
      return reply::Error(r.out, kSyntaxError), false;
    }
    if (!ParseType(r.args[j + 1], &op.sign, &op.bits)) return reply::Error(r.out, kBadType), false;
    if (!ParseOffset(r.args[j + 2], op.bits, &op.offset)) {
      return reply::Error(r.out, kBadOffset), false;
    }
    if (op.kind != Op::kGet && !ParseStrictInt64(r.args[j + 3], &op.value)) {
      return reply::Error(r.out, kNotInteger), false;
    }
    ops->push_back(op);
    j += op.kind == Op::kGet ? 3 : 4;
  }
  return true;
}

// Runs a SET or INCRBY on `bytes`, replying its value (or null when
// OVERFLOW FAIL refuses it); whether it changed the bits.
bool Write(Request& r, const Op& op, std::string* bytes) {
  const uint64_t old_bits = GetBits(*bytes, op.offset, op.bits);
  uint64_t new_bits;
  int64_t reply_value;
  int overflow;
  if (op.sign) {
    const int64_t old_value = SignExtend(old_bits, op.bits);
    int64_t wrapped = 0, new_value;
    if (op.kind == Op::kIncrBy) {
      overflow = SignedOverflow(old_value, op.value, op.bits, op.overflow, &wrapped);
      new_value = overflow ? wrapped
                           : static_cast<int64_t>(static_cast<uint64_t>(old_value) +
                                                  static_cast<uint64_t>(op.value));
      reply_value = new_value;
    } else {
      overflow = SignedOverflow(op.value, 0, op.bits, op.overflow, &wrapped);
      new_value = overflow ? wrapped : op.value;
      reply_value = old_value;
    }
    new_bits = static_cast<uint64_t>(new_value);
  } else {
    uint64_t wrapped = 0, new_value;
    if (op.kind == Op::kIncrBy) {
      overflow = UnsignedOverflow(old_bits, op.value, op.bits, op.overflow, &wrapped);
      new_value = overflow ? wrapped : old_bits + static_cast<uint64_t>(op.value);
      reply_value = static_cast<int64_t>(new_value);
    } else {
      overflow =
          UnsignedOverflow(static_cast<uint64_t>(op.value), 0, op.bits, op.overflow, &wrapped);
      new_value = overflow ? wrapped : static_cast<uint64_t>(op.value);
      reply_value = static_cast<int64_t>(old_bits);
    }
    new_bits = new_value;
  }
  if (overflow != 0 && op.overflow == Overflow::kFail) {
    reply::Null(r.out, r.protocol());
    return false;
  }
  reply::Integer(r.out, reply_value);
  SetBits(bytes, op.offset, op.bits, new_bits);
  const uint64_t mask = op.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << op.bits) - 1;
  return (new_bits & mask) != old_bits;
}

void ReplyGet(Request& r, const Op& op, const std::string& bytes) {
  const uint64_t bits = GetBits(bytes, op.offset, op.bits);
  reply::Integer(r.out, op.sign ? SignExtend(bits, op.bits) : static_cast<int64_t>(bits));
}

void Run(Request& r, bool read_only_command) {
  std::vector<Op> ops;
  if (!ParseOps(r, &ops)) return;
  uint64_t farthest = 0;
  bool writes = false;
  for (const Op& op : ops) {
    if (op.kind == Op::kGet) continue;
    writes = true;
    farthest = std::max(farthest, op.offset + static_cast<uint64_t>(op.bits) - 1);
  }
  if (writes && read_only_command) {
    return reply::Error(r.out, "ERR BITFIELD_RO only supports the GET subcommand");
  }
  Keyspace::KeyLocks locks;
  if (writes) locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(r.args[1], &v);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (v && v->type != Keyspace::kString) return reply::Error(r.out, kWrongType);
  std::string bytes = v ? std::move(v->payload) : std::string();
  bool dirty = false;  // created or grown: written whatever the operations did
  if (writes && (!v || bytes.size() < (farthest >> 3) + 1)) {
    bytes.resize(std::max<size_t>(bytes.size(), (farthest >> 3) + 1), '\0');
    dirty = true;
  }
  std::string replies;
  Request inner{r.server, r.client, r.args, &replies, r.keyspace};
  reply::ArrayHeader(&replies, ops.size());
  for (const Op& op : ops) {
    if (op.kind == Op::kGet) {
      ReplyGet(inner, op, bytes);
    } else {
      dirty |= Write(inner, op, &bytes);
    }
  }
  if (dirty) {
    Keyspace::Batch batch;
    batch.Put(r.args[1], Keyspace::Value{Keyspace::kString, v ? v->expire_ms : 0, std::move(bytes)});
    const Status written = r.keyspace->Commit(&batch);
    if (!written.ok()) return ReplyStorageError(r, written);
  }
  r.out->append(replies);
}

void BitField(Request& r) { Run(r, false); }
void BitFieldRo(Request& r) { Run(r, true); }

}  // namespace

void AddBitFieldCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"bitfield", -2, BitField}, {"bitfield_ro", -2, BitFieldRo}});
}

}  // namespace teksdb::server
