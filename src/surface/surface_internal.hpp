// Helpers shared by the surface module's files (not public API).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <span>
#include <string>

#include "terrane/schema.hpp"
#include "terrane/surface.hpp"

namespace terrane::surface_detail {

// Hermite smoothstep of t clamped to [0, 1]; plain float arithmetic in a fixed order.
inline float smooth01(float t) {
  t = std::min(std::max(t, 0.0f), 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

// One soft edge of a range: smooth01(v * scale + offset) rises from 0 at edge - blend to 1 at
// edge + blend (a lower edge) or falls from 1 to 0 (an upper edge: 1 - s(t) = s(1 - t), so the
// scale is negated). An infinite bound is inactive and always 1 (scale 0, offset 1), which
// keeps evaluation branch-free so row loops vectorise.
struct SoftEdge {
  bool active = false;
  float scale = 0.0f;
  float offset = 1.0f;
  float eval(float v) const { return smooth01(v * scale + offset); }
};

inline SoftEdge soft_edge(double edge, double blend, bool upper) {
  SoftEdge e;
  if (!std::isfinite(edge)) return e;
  e.active = true;
  const double scale = 1.0 / (2.0 * blend);
  const double offset = -(edge - blend) / (2.0 * blend);
  e.scale = float(upper ? -scale : scale);
  e.offset = float(upper ? 1.0 - offset : offset);
  return e;
}

// w[i] *= edge(v[i]) over a row (skipped for an inactive edge).
inline void apply_edge(const SoftEdge& e, const float* __restrict v, float* __restrict w,
                       std::size_t n) {
  if (!e.active) return;
  const float a = e.scale, b = e.offset;
  for (std::size_t i = 0; i < n; ++i) w[i] *= smooth01(v[i] * a + b);
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

inline std::string format_number(double v) {
  return terrane::format_number(v);
}

// The height and normal of the level-0 mesh triangle under (x, z) over `heights`, its cells split
// as `mesh` says (cells_x >= 1): where a scattered point stands (the same bits), for instances a
// chunk adds to its scatter (edit.hpp's instance overrides).
struct MeshPoint {
  float y_m = 0.0f;
  std::array<float, 3> normal{0.0f, 1.0f, 0.0f};
};
MeshPoint mesh_point(const Field2D& heights, const ScatterMesh& mesh, double x_m, double z_m);

// Changes the heights scatter_chunk evaluates (on its grid: the level-0 lattice around the
// region, origin 0) before climate, biomes and scatter read them: the world's height edits.
using HeightsHook = std::function<void(const GridSpec&, std::span<float>)>;

// scatter_chunk over the graph's heights as `adjust` changes them (none when empty); the world's
// chunk generator passes its height edits, so instances stand on the edited ground.
void scatter_chunk_adjusted(const CompiledGraph& graph, const SurfaceParams& params,
                            std::uint64_t seed, double x0_m, double z0_m, double x1_m, double z1_m,
                            int chunk_cells, std::vector<ScatterInstance>& out,
                            const ExecContext& ctx, const ClimateSources* sources,
                            ScatterScratch* scratch, const HeightsHook& adjust);

}  // namespace terrane::surface_detail
