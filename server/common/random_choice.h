// Random picks for the commands that return random members (SPOP,
// SRANDMEMBER, HRANDFIELD, ...), from one generator per thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

namespace teksdb::server {

inline std::mt19937_64& ThreadRandom() {
  thread_local std::mt19937_64 random(std::random_device{}());
  return random;
}

// A uniformly drawn index below n (REQUIRES n > 0).
inline size_t RandomIndex(size_t n) {
  return std::uniform_int_distribution<size_t>(0, n - 1)(ThreadRandom());
}

template <typename T>
void Shuffle(std::vector<T>* items) {
  std::shuffle(items->begin(), items->end(), ThreadRandom());
}

}  // namespace teksdb::server
