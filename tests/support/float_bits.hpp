// Floats compared as bits: the determinism promise (docs/DESIGN.md §1) is bit-identical output,
// and `==` on floats calls -0 and +0 equal (and a NaN unequal to itself).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace terrane::test {

inline std::vector<std::uint32_t> float_bits(std::span<const float> v) {
  std::vector<std::uint32_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

}  // namespace terrane::test
