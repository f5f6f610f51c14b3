// DecodeBudget: how much memory the decoding of one untrusted value may
// take. Packed encodings expand (a 2-byte listpack entry becomes a string
// of its own; a stream entry repeats its node's field names; LZF expands
// up to 88 times), so a small payload could otherwise ask for far more
// memory than it holds: each decoded element costs its bytes plus
// kElementCost, and decoding stops, as damaged input does, when the
// budget is spent. The default, 1 GiB, passes any value Redis's own limits
// let it write (512 MiB per string, 1 GiB per stream node).
//
// Thread safety: one decoding's.
#pragma once

#include <cstdint>

namespace teksdb::server {

class DecodeBudget {
 public:
  static constexpr uint64_t kElementCost = 32;
  explicit DecodeBudget(uint64_t bytes = uint64_t{1} << 30) : left_(bytes) {}
  // Spends an element of `bytes`; false (and nothing spent) once the
  // budget does not cover it.
  bool Spend(uint64_t bytes) {
    const uint64_t cost = bytes + kElementCost;
    if (cost > left_) return false;
    left_ -= cost;
    return true;
  }

 private:
  uint64_t left_;
};

// Spends from `budget`, if there is one.
inline bool SpendFrom(DecodeBudget* budget, uint64_t bytes) {
  return budget == nullptr || budget->Spend(bytes);
}

}  // namespace teksdb::server
