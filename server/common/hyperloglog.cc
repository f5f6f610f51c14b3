// HyperLogLog (hyperloglog.h): the dense registers, the sparse runs and
// their edits, the hash and the estimator. A byte past a string's end reads
// as 0, as the terminating zero Redis's strings carry does, so that damaged
// strings read here as they read there.
#include "hyperloglog.h"

#include <cmath>
#include <cstring>
#include <random>

namespace teksdb::server::hyperloglog {
namespace {

constexpr int kRegisterBits = 6;
constexpr uint8_t kRegisterMax = (1 << kRegisterBits) - 1;
constexpr int kIndexBits = 14;           // log2(kRegisters)
constexpr int kRunBits = 64 - kIndexBits;  // the hash bits that give a run
constexpr size_t kEncodingAt = 4;
constexpr size_t kCountAt = 8;
constexpr char kDense = 0;
constexpr char kSparse = 1;

// Sparse opcodes.
constexpr int kSparseValueMax = 32;
constexpr int kValRunMax = 4;
constexpr int kZeroRunMax = 64;
bool IsZero(uint8_t op) { return (op & 0xc0) == 0; }
bool IsXZero(uint8_t op) { return (op & 0xc0) == 0x40; }
bool IsVal(uint8_t op) { return (op & 0x80) != 0; }
int ZeroRun(uint8_t op) { return (op & 0x3f) + 1; }
int XZeroRun(uint8_t op, uint8_t next) { return (((op & 0x3f) << 8) | next) + 1; }
int ValValue(uint8_t op) { return ((op >> 2) & 0x1f) + 1; }
int ValRun(uint8_t op) { return (op & 0x3) + 1; }
uint8_t Val(int value, int run) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (run - 1));
}
// Appends the shortest zero run opcode for `run` registers.
void AppendZeros(std::string* out, int run) {
  if (run > kZeroRunMax) {
    out->push_back(static_cast<char>(0x40 | ((run - 1) >> 8)));
    out->push_back(static_cast<char>((run - 1) & 0xff));
  } else {
    out->push_back(static_cast<char>(run - 1));
  }
}

uint8_t ByteAt(std::string_view s, size_t i) {
  return i < s.size() ? static_cast<uint8_t>(s[i]) : 0;
}

// One sparse opcode at `at`: how many registers it covers, its value,
// and its length in bytes.
struct Op {
  int run;
  int value;
  size_t length;
};
Op ReadOp(std::string_view s, size_t at) {
  const uint8_t op = ByteAt(s, at);
  if (IsZero(op)) return {ZeroRun(op), 0, 1};
  if (IsXZero(op)) return {XZeroRun(op, ByteAt(s, at + 1)), 0, 2};
  return {ValRun(op), ValValue(op), 1};
}

// Dense registers: `r` points at the first of kRegisters * 6 / 8 bytes.
constexpr size_t kDenseBytes = kDenseSize - kHeaderSize;
uint8_t DenseGet(const uint8_t* r, int index) {
  const size_t byte = static_cast<size_t>(index) * kRegisterBits / 8;
  const unsigned shift = static_cast<unsigned>(index) * kRegisterBits & 7;
  const unsigned b0 = r[byte];
  const unsigned b1 = byte + 1 < kDenseBytes ? r[byte + 1] : 0;
  return static_cast<uint8_t>(((b0 >> shift) | (b1 << (8 - shift))) & kRegisterMax);
}
void DenseSet(uint8_t* r, int index, uint8_t value) {
  const size_t byte = static_cast<size_t>(index) * kRegisterBits / 8;
  const unsigned shift = static_cast<unsigned>(index) * kRegisterBits & 7;
  r[byte] = static_cast<uint8_t>((r[byte] & ~(kRegisterMax << shift)) | (value << shift));
  if (byte + 1 < kDenseBytes) {
    r[byte + 1] = static_cast<uint8_t>((r[byte + 1] & ~(kRegisterMax >> (8 - shift))) |
                                       (value >> (8 - shift)));
  }
}
uint8_t* DenseRegisters(std::string* hll) {
  return reinterpret_cast<uint8_t*>(hll->data()) + kHeaderSize;
}
const uint8_t* DenseRegisters(std::string_view hll) {
  return reinterpret_cast<const uint8_t*>(hll.data()) + kHeaderSize;
}
int DenseRaise(uint8_t* r, int index, uint8_t value) {
  if (value <= DenseGet(r, index)) return 0;
  DenseSet(r, index, value);
  return 1;
}

// Austin Appleby's MurmurHash2, 64-bit (MurmurHash64A), reading its
// 8-byte blocks little-endian as Redis does on every machine.
uint64_t MurmurHash64A(std::string_view key, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const size_t len = key.size();
  const auto* data = reinterpret_cast<const uint8_t*>(key.data());
  uint64_t h = seed ^ (static_cast<uint64_t>(static_cast<int>(len)) * m);
  const size_t blocks = len / 8;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k = 0;
    for (int b = 7; b >= 0; --b) k = (k << 8) | data[i * 8 + b];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const uint8_t* tail = data + blocks * 8;
  const size_t rest = len & 7;
  if (rest > 0) {
    for (size_t b = rest; b-- > 0;) h ^= static_cast<uint64_t>(tail[b]) << (8 * b);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

// The register an element raises and the value it raises it to.
void Place(std::string_view element, int* index, uint8_t* value) {
  uint64_t hash = MurmurHash64A(element, 0xadc83b19ULL);
  *index = static_cast<int>(hash & (kRegisters - 1));
  hash >>= kIndexBits;
  hash |= uint64_t{1} << kRunBits;
  *value = static_cast<uint8_t>(__builtin_ctzll(hash) + 1);
}

// The sparse runs into a histogram of register values (values past 63
// cannot occur: a VAL holds 1-32); false unless they cover the registers
// exactly.
bool SparseHistogram(std::string_view hll, int64_t* histogram /* [64] */) {
  int64_t index = 0;
  for (size_t at = kHeaderSize; at < hll.size();) {
    const Op op = ReadOp(hll, at);
    histogram[op.value] += op.run;
    index += op.run;
    at += op.length;
  }
  return index == kRegisters;
}

// Ertl's sigma and tau, iterated to a fixed point.
double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double y = 1, z = x, previous;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous != z);
  return z;
}
double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double y = 1.0, z = 1 - x, previous;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (previous != z);
  return z / 3;
}
uint64_t Estimate(const int64_t* histogram) {
  constexpr double m = kRegisters;
  constexpr double kAlphaInfinity = 0.721347520444481703680;  // 0.5 / ln 2
  double z = m * Tau((m - static_cast<double>(histogram[kRunBits + 1])) / m);
  for (int j = kRunBits; j >= 1; --j) {
    z += static_cast<double>(histogram[j]);
    z *= 0.5;
  }
  z += m * Sigma(static_cast<double>(histogram[0]) / m);
  return static_cast<uint64_t>(std::llround(static_cast<long double>(kAlphaInfinity * m * m / z)));
}

// Sparse register `index` raised to `value` (1-32) by rewriting the run
// that holds it, as Redis does (so the bytes are Redis's): split into at
// most three runs, then equal neighbouring VALs joined. Too large a value
// or string makes it dense.
int SparseRaise(std::string* hll, int index, uint8_t value, size_t sparse_max_bytes) {
  std::string& s = *hll;
  const auto promote = [&]() {
    if (!ToDense(hll)) return -1;
    DenseRaise(DenseRegisters(hll), index, value);
    return 1;
  };
  if (value > kSparseValueMax) return promote();
  // The run holding the register, and the one before it.
  size_t at = kHeaderSize;
  size_t previous = std::string::npos;
  int64_t first = 0;
  Op op{0, 0, 0};
  while (at < s.size()) {
    op = ReadOp(s, at);
    if (index <= first + op.run - 1) break;
    previous = at;
    at += op.length;
    first += op.run;
  }
  if (op.run == 0 || at >= s.size()) return -1;
  const bool val = IsVal(static_cast<uint8_t>(s[at]));
  bool rewrite = true;
  if (val && op.value >= value) return 0;
  if (op.run == 1 && (val || IsZero(static_cast<uint8_t>(s[at])))) {
    s[at] = static_cast<char>(Val(value, 1));
    rewrite = false;
  }
  if (rewrite) {
    std::string runs;
    const int64_t last = first + op.run - 1;
    if (index != first) {
      const int before = static_cast<int>(index - first);
      val ? runs.push_back(static_cast<char>(Val(op.value, before))) : AppendZeros(&runs, before);
    }
    runs.push_back(static_cast<char>(Val(value, 1)));
    if (index != last) {
      const int after = static_cast<int>(last - index);
      val ? runs.push_back(static_cast<char>(Val(op.value, after))) : AppendZeros(&runs, after);
    }
    const int64_t growth = static_cast<int64_t>(runs.size()) - static_cast<int64_t>(op.length);
    if (growth > 0 && s.size() + static_cast<size_t>(growth) > sparse_max_bytes) return promote();
    // (A two-byte run cut short by the string's end is replaced all the
    // same, and the string keeps its length plus the growth.)
    const size_t new_size = static_cast<size_t>(static_cast<int64_t>(s.size()) + growth);
    const std::string rest = s.substr(std::min(at + op.length, s.size()));
    s.resize(at);
    s += runs;
    s += rest;
    s.resize(new_size);
  }
  // Join equal VALs from the run before the edit, over five runs at most.
  size_t p = previous != std::string::npos ? previous : kHeaderSize;
  for (int scan = 5; p < s.size() && scan-- > 0;) {
    const uint8_t here = static_cast<uint8_t>(s[p]);
    if (IsXZero(here)) {
      p += 2;
      continue;
    }
    if (IsZero(here)) {
      p += 1;
      continue;
    }
    if (p + 1 < s.size() && IsVal(static_cast<uint8_t>(s[p + 1]))) {
      const uint8_t next = static_cast<uint8_t>(s[p + 1]);
      const int run = ValRun(here) + ValRun(next);
      if (ValValue(here) == ValValue(next) && run <= kValRunMax) {
        s[p + 1] = static_cast<char>(Val(ValValue(here), run));
        s.erase(p, 1);
        continue;
      }
    }
    ++p;
  }
  MarkStale(hll);
  return 1;
}

}  // namespace

std::string New() {
  std::string hll("HYLL", 4);
  hll.resize(kHeaderSize, '\0');
  hll[kEncodingAt] = kSparse;
  AppendZeros(&hll, kRegisters);
  return hll;
}

bool Looks(std::string_view bytes) {
  if (bytes.size() < kHeaderSize || bytes.substr(0, 4) != "HYLL") return false;
  const char encoding = bytes[kEncodingAt];
  if (encoding != kDense && encoding != kSparse) return false;
  return encoding != kDense || bytes.size() == kDenseSize;
}

bool IsSparse(std::string_view bytes) { return bytes[kEncodingAt] == kSparse; }

int Add(std::string* hll, std::string_view element, size_t sparse_max_bytes) {
  int index;
  uint8_t value;
  Place(element, &index, &value);
  return Raise(hll, index, value, sparse_max_bytes);
}

int Raise(std::string* hll, int index, uint8_t value, size_t sparse_max_bytes) {
  if (!IsSparse(*hll)) return DenseRaise(DenseRegisters(hll), index, value);
  return SparseRaise(hll, index, value, sparse_max_bytes);
}

bool ToDense(std::string* hll) {
  if (!IsSparse(*hll)) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), hll->data(), kHeaderSize);
  dense[kEncodingAt] = kDense;
  uint8_t* registers = DenseRegisters(&dense);
  int64_t index = 0;
  for (size_t at = kHeaderSize; at < hll->size();) {
    const Op op = ReadOp(*hll, at);
    at += op.length;
    if (op.value == 0) {
      index += op.run;
      continue;
    }
    if (index + op.run > kRegisters) break;
    for (int i = 0; i < op.run; ++i) DenseSet(registers, static_cast<int>(index++), op.value);
  }
  if (index != kRegisters) return false;
  *hll = std::move(dense);
  return true;
}

bool MergeInto(std::string_view hll, uint8_t* registers) {
  if (!IsSparse(hll)) {
    const uint8_t* dense = DenseRegisters(hll);
    for (int i = 0; i < kRegisters; ++i) registers[i] = std::max(registers[i], DenseGet(dense, i));
    return true;
  }
  int64_t index = 0;
  for (size_t at = kHeaderSize; at < hll.size();) {
    const Op op = ReadOp(hll, at);
    at += op.length;
    if (op.value == 0) {
      index += op.run;
      continue;
    }
    if (index + op.run > kRegisters) break;
    for (int i = 0; i < op.run; ++i, ++index) {
      registers[index] = std::max(registers[index], static_cast<uint8_t>(op.value));
    }
  }
  return index == kRegisters;
}

uint64_t CountRegisters(const uint8_t* registers) {
  int64_t histogram[256] = {0};
  for (int i = 0; i < kRegisters; ++i) ++histogram[registers[i]];
  return Estimate(histogram);
}

bool Count(std::string_view hll, uint64_t* count) {
  int64_t histogram[64] = {0};
  if (IsSparse(hll)) {
    if (!SparseHistogram(hll, histogram)) return false;
  } else {
    const uint8_t* dense = DenseRegisters(hll);
    for (int i = 0; i < kRegisters; ++i) ++histogram[DenseGet(dense, i)];
  }
  *count = Estimate(histogram);
  return true;
}

bool CachedCount(std::string_view hll, uint64_t* count) {
  if (static_cast<uint8_t>(hll[kCountAt + 7]) & 0x80) return false;
  *count = 0;
  for (int b = 7; b >= 0; --b) *count = (*count << 8) | static_cast<uint8_t>(hll[kCountAt + b]);
  return true;
}

void StoreCount(std::string* hll, uint64_t count) {
  for (int b = 0; b < 8; ++b) (*hll)[kCountAt + b] = static_cast<char>((count >> (8 * b)) & 0xff);
}

void MarkStale(std::string* hll) {
  (*hll)[kCountAt + 7] = static_cast<char>(static_cast<uint8_t>((*hll)[kCountAt + 7]) | 0x80);
}

std::string DescribeRuns(std::string_view hll) {
  std::string text;
  for (size_t at = kHeaderSize; at < hll.size();) {
    const uint8_t code = static_cast<uint8_t>(hll[at]);
    const Op op = ReadOp(hll, at);
    at += op.length;
    if (!text.empty()) text += ' ';
    if (IsVal(code)) {
      text += "v:" + std::to_string(op.value) + "," + std::to_string(op.run);
    } else {
      text += (IsXZero(code) ? "Z:" : "z:") + std::to_string(op.run);
    }
  }
  return text;
}

std::string SelfTest(size_t sparse_max_bytes, uint64_t seed) {
  std::mt19937_64 random(seed);
  // Registers: each set to a random value reads back, its neighbours kept.
  std::string dense = New();
  ToDense(&dense);
  uint8_t* registers = DenseRegisters(&dense);
  uint8_t expected[kRegisters];
  for (int cycle = 0; cycle < 1000; ++cycle) {
    for (int i = 0; i < kRegisters; ++i) {
      expected[i] = static_cast<uint8_t>(random() & kRegisterMax);
      DenseSet(registers, i, expected[i]);
    }
    for (int i = 0; i < kRegisters; ++i) {
      if (DenseGet(registers, i) != expected[i]) {
        return "TESTFAILED Register " + std::to_string(i) + " should be " +
               std::to_string(expected[i]) + " but is " +
               std::to_string(DenseGet(registers, i));
      }
    }
  }
  // Estimates: dense and sparse agree, and err by less than six standard
  // errors at 1, 10, ..., 10^7 elements.
  std::memset(registers, 0, kDenseBytes);
  std::string sparse = New();
  const double relative_error = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const uint64_t salt = random();
  uint64_t checkpoint = 1;
  for (uint64_t j = 1; j <= 10000000; ++j) {
    const uint64_t element = j ^ salt;
    char bytes[sizeof element];
    std::memcpy(bytes, &element, sizeof element);
    const std::string_view e(bytes, sizeof bytes);
    Add(&dense, e, sparse_max_bytes);
    Add(&sparse, e, sparse_max_bytes);
    if (j != checkpoint) continue;
    if (j < sparse_max_bytes / 2 && !IsSparse(sparse)) return "TESTFAILED sparse encoding not used";
    uint64_t from_dense = 0, from_sparse = 0;
    Count(dense, &from_dense);
    Count(sparse, &from_sparse);
    if (from_dense != from_sparse) return "TESTFAILED dense/sparse disagree";
    const uint64_t error = checkpoint > from_dense ? checkpoint - from_dense : from_dense - checkpoint;
    const uint64_t max_error =
        j == 10 ? 1 : static_cast<uint64_t>(std::ceil(relative_error * 6 * static_cast<double>(j)));
    if (error > max_error) {
      return "TESTFAILED Too big error. card:" + std::to_string(checkpoint) +
             " abserr:" + std::to_string(error);
    }
    checkpoint *= 10;
  }
  return "";
}

}  // namespace teksdb::server::hyperloglog
