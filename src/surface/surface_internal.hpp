// Helpers shared by the surface module's files (not public API).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "terrane/surface.hpp"

namespace terrane::surface_detail {

// Hermite smoothstep of t clamped to [0, 1]; plain float arithmetic in a fixed order.
inline float smooth01(float t) {
  t = std::min(std::max(t, 0.0f), 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

// Membership of v in [lo, hi] with edges softened over [edge - blend, edge + blend]; an
// infinite bound is a hard-open edge. Precomputed per edge as v * scale + offset.
struct SoftEdge {
  bool active = false;
  bool upper = false;
  float scale = 0.0f;
  float offset = 0.0f;
  float eval(float v) const {
    if (!active) return 1.0f;
    const float s = smooth01(v * scale + offset);
    return upper ? 1.0f - s : s;
  }
};

inline SoftEdge soft_edge(double edge, double blend, bool upper) {
  SoftEdge e;
  if (!std::isfinite(edge)) return e;
  e.active = true;
  e.upper = upper;
  e.scale = float(1.0 / (2.0 * blend));
  e.offset = float(-(edge - blend) / (2.0 * blend));
  return e;
}

// Seed of a sub-purpose: the world seed combined with a module tag and an offset.
inline std::uint64_t purpose_seed(std::uint64_t seed, std::uint64_t tag, std::uint64_t offset) {
  return hash_combine(hash_combine(seed, tag), offset);
}

inline constexpr std::uint64_t kTagTemperature = 0x7465'6D70ull;
inline constexpr std::uint64_t kTagMoisture = 0x6D6F'6973ull;
inline constexpr std::uint64_t kTagSplat = 0x7370'6C74ull;
inline constexpr std::uint64_t kTagScatter = 0x7363'6174ull;
inline constexpr std::uint64_t kTagCluster = 0x636C'7374ull;

[[noreturn]] inline void fail(std::string_view path, const std::string& what) {
  throw Error(ErrorCategory::invalid_argument, std::string(path) + ": " + what);
}

std::string format_number(double v);

}  // namespace terrane::surface_detail
