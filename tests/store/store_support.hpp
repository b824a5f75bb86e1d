// Shared by the store tests and their crash writer: the test world's preset and a content hash
// of a snapshot's deltas.
#pragma once

#include <cstdint>
#include <string>

#include "terrane/edit.hpp"
#include "terrane/preset.hpp"

namespace terrane::test {

// The default preset on 1 m cells: the brushes of a game.
inline Preset store_test_preset() {
  const std::string overrides[] = {"world.cell_size_m=1"};
  return load_preset("default", overrides);
}

// FNV over every tile's key and delta bits, in key order: equal for equal edits.
inline std::uint64_t edits_hash(const HeightEditSnapshot& s) {
  std::uint64_t h = hash_bytes(nullptr, 0);
  for (const auto& [key, tile] : s.tiles()) {
    const std::int64_t k[2] = {key.first, key.second};
    h = hash_bytes(k, sizeof k, h);
    h = hash_bytes(tile->data(), tile->size() * sizeof(float), h);
  }
  return h;
}

}  // namespace terrane::test
