// Block palettes and volumes: validation.
#include <unordered_set>

#include "terrane/core.hpp"
#include "terrane/voxel.hpp"

namespace terrane {

void BlockPalette::validate() const {
  if (types.empty() || types.size() > 65536) {
    throw Error(ErrorCategory::invalid_argument,
                "block palette: " + std::to_string(types.size()) +
                    " types; a palette has 1..65536, entry 0 being air");
  }
  if (types[0].kind != BlockKind::air) {
    throw Error(ErrorCategory::invalid_argument,
                "block palette: entry 0 ('" + types[0].name + "') must be air");
  }
  std::unordered_set<std::string> seen;
  for (std::size_t k = 0; k < types.size(); ++k) {
    if (types[k].name.empty()) {
      throw Error(ErrorCategory::invalid_argument,
                  "block palette: entry " + std::to_string(k) + " has no name");
    }
    if (!seen.insert(types[k].name).second) {
      throw Error(ErrorCategory::invalid_argument, "block palette: entry " + std::to_string(k) +
                                                       " repeats the name '" + types[k].name + "'");
    }
  }
}

void BlockVolume::validate() const {
  if (size < 1 || size > kMaxBlockVolumeSize) {
    throw Error(ErrorCategory::invalid_argument,
                "block volume: size " + std::to_string(size) + " is outside 1.." +
                    std::to_string(kMaxBlockVolumeSize) +
                    " (the padded side must fit a 64-bit column mask)");
  }
  const std::size_t p = std::size_t(padded());
  if (blocks.size() != p * p * p) {
    throw Error(ErrorCategory::invalid_argument,
                "block volume: " + std::to_string(blocks.size()) + " blocks for size " +
                    std::to_string(size) +
                    "; it needs (size + 2)^3 = " + std::to_string(p * p * p));
  }
}

PackedQuad PackedQuad::make(int x, int y, int z, int w, int h, BlockFace face,
                            std::uint16_t block) {
  PackedQuad q;
  q.bits = std::uint64_t(x) | std::uint64_t(y) << 6 | std::uint64_t(z) << 12 |
           std::uint64_t(w - 1) << 18 | std::uint64_t(h - 1) << 24 | std::uint64_t(face) << 30 |
           std::uint64_t(block) << 33;
  return q;
}

}  // namespace terrane
