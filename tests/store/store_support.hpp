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

// The edits' content hash (equal for equal edits).
inline std::uint64_t edits_hash(const HeightEditSnapshot& s) {
  return s.content_hash();
}

}  // namespace terrane::test
