// HyperLogLog: Redis 7.0's HyperLogLog string, byte for byte, so that a
// PFADD here leaves the bytes Redis's would, a value DUMPed from Redis
// counts the same here, and counts agree with Redis's for the same input.
//
// The string (Redis's hyperloglog.c documents it; this is our own code):
//   header, 16 bytes: "HYLL", the encoding (0 dense, 1 sparse), 3 zero
//   bytes, the cached cardinality (8 bytes little-endian; the top bit of
//   its last byte set: stale, recount)
//   dense: 16384 registers of 6 bits, register i at bit 6i from the least
//   significant bit of the first byte on (12288 bytes)
//   sparse: runs of registers, in register order, each one opcode:
//     ZERO  00xxxxxx           xxxxxx+1 registers at 0 (1-64)
//     XZERO 01xxxxxx yyyyyyyy  (x<<8|y)+1 registers at 0 (1-16384)
//     VAL   1vvvvvxx           xx+1 registers (1-4) at vvvvv+1 (1-32)
// An element sets register (h & 16383) to at least the position of the
// lowest set bit of h >> 14 (1-51), h = MurmurHash64A(element, seed
// 0xadc83b19). A sparse string becomes dense when a register would pass 32
// or the string would pass hll-sparse-max-bytes, as in Redis; the count is
// Ertl's estimator ("New cardinality estimation algorithms for HyperLogLog
// sketches", arXiv:1702.01284), Redis's since 5.0.
//
// Strings come from users (SETRANGE can damage one): every read is
// bounds-checked, a damaged sparse string is reported, never read past.
//
// Thread safety: pure functions over strings the caller owns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace teksdb::server::hyperloglog {

constexpr int kRegisters = 16384;
constexpr size_t kHeaderSize = 16;
constexpr size_t kDenseSize = kHeaderSize + kRegisters * 6 / 8;
constexpr const char* kInvalidError = "INVALIDOBJ Corrupted HLL object detected";
constexpr const char* kNotHllError = "WRONGTYPE Key is not a valid HyperLogLog string value.";

// An empty HyperLogLog: sparse, registers all 0, cached count 0.
std::string New();
// What Redis checks before it uses a string as one: the magic, a known
// encoding, and a dense one's exact length (a sparse one's runs are checked
// as they are read).
bool Looks(std::string_view bytes);
// REQUIRES: Looks(bytes).
bool IsSparse(std::string_view bytes);

// Adds `element`: 1 if a register grew, 0 if none did, -1 if the sparse
// runs are damaged (then *hll is as it was).
int Add(std::string* hll, std::string_view element, size_t sparse_max_bytes);
// Raises register `index` to `value` (1-63) if it is lower: as Add.
int Raise(std::string* hll, int index, uint8_t value, size_t sparse_max_bytes);
// Makes a sparse HyperLogLog dense (no change to a dense one); false if
// its runs are damaged.
bool ToDense(std::string* hll);

// registers[i] = max(registers[i], register i of hll): false if damaged.
bool MergeInto(std::string_view hll, uint8_t* registers /* [kRegisters] */);
// The estimate from registers one byte each (PFCOUNT of several keys).
uint64_t CountRegisters(const uint8_t* registers /* [kRegisters] */);
// The estimate of hll: false if damaged.
bool Count(std::string_view hll, uint64_t* count);

// The cached count, if it is not stale.
bool CachedCount(std::string_view hll, uint64_t* count);
void StoreCount(std::string* hll, uint64_t count);
void MarkStale(std::string* hll);

// PFDEBUG DECODE: the runs of a sparse HyperLogLog ("Z:16384", "z:3",
// "v:2,1", space-separated).
std::string DescribeRuns(std::string_view hll);
// PFSELFTEST: "" when the registers and the estimate behave, else the
// failure, as Redis words it. Adds 10 million elements: about a second.
std::string SelfTest(size_t sparse_max_bytes, uint64_t seed);

}  // namespace teksdb::server::hyperloglog
