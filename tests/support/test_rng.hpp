// Test inputs from terrane's counter-based hashing (docs/DESIGN.md §1: never std::*_distribution, and
// not std::shuffle either, whose algorithm differs between standard libraries): the same numbers
// on every machine and library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "terrane/core.hpp"

namespace terrane::test {

// SplitMix64: draw k (from 1) of the stream seeded with s is mix64(s + k * golden ratio).
struct TestRng {
  std::uint64_t state = 0;

  std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    return mix64(state);
  }
  // Uniform in [lo, hi) from 53 bits.
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * double(next() >> 11) * (1.0 / 9007199254740992.0);
  }
  // Integer in [0, n), n > 0 (modulo: a bias below n / 2^64, irrelevant for test inputs).
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Fisher-Yates with TestRng: a fixed permutation for a given seed on every standard library.
template <typename T>
void shuffle(std::vector<T>& v, std::uint64_t seed) {
  TestRng rng{seed};
  for (std::size_t k = v.size(); k > 1; --k) {
    using std::swap;
    swap(v[k - 1], v[std::size_t(rng.below(k))]);
  }
}

}  // namespace terrane::test
