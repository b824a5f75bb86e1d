// terrane field: height-field operations over Field2D (module `field`, depends on core).
//
// Plain free functions: inputs are const, the caller owns every output (an output Field2D is
// resized and its grid set by the function; its existing capacity is reused). All functions are
// reentrant, may run on several threads at once on distinct outputs, and give bit-identical
// results for any ExecContext::threads: each output sample is computed by one fixed sequence of
// float/double operations that does not depend on how the work is split.
//
// Halos (docs/DESIGN.md §1, seamless by construction): operations that read neighbours come in two
// forms. The `*_halo` / halo-taking form reads an input that carries `r` extra samples on every
// side (computed by the same pure function that made the interior) and writes only the interior,
// so chunks processed separately join bit-exactly. The clamped form treats samples outside the
// field as copies of the nearest border sample; it is for whole maps, not for chunks.
#pragma once

#include <cstdint>

#include "terrane/core.hpp"
#include "terrane/curve.hpp"

namespace terrane {

// Smallest and largest sample of a field.
struct MinMax {
  float min = 0.0f;
  float max = 0.0f;
};

// Scans every sample (infinities included). Throws Error(invalid_argument) naming the first NaN
// sample (lowest row, then lowest column) or an empty field. O(n), parallel.
MinMax min_max(const Field2D& field, const ExecContext& ctx = {});

// Linear remap in place: v' = to_lo + (v - from_lo) * (to_hi - to_lo) / (from_hi - from_lo),
// computed in double per sample. With `clamp`, v' is limited to [min(to_lo,to_hi),
// max(to_lo,to_hi)]. from_lo == from_hi or a non-finite bound throws Error(invalid_argument).
// Reversed ranges (from_hi < from_lo or to_hi < to_lo) are allowed and flip the field.
void remap(Field2D& field, double from_lo, double from_hi, double to_lo, double to_hi, bool clamp,
           const ExecContext& ctx = {});

// v' = curve(v) for every sample, in place (see MonotoneCurve: constant outside its points).
void apply_curve(Field2D& field, const MonotoneCurve& curve, const ExecContext& ctx = {});

// Largest Gaussian radius accepted, in cells.
inline constexpr int kMaxBlurRadiusCells = 2048;

// Kernel radius in cells of a Gaussian of standard deviation sigma_m on a grid of spacing_m:
// ceil(3 * sigma_m / spacing_m) (0 when sigma_m == 0). Throws Error(invalid_argument) when
// sigma_m is negative or not finite, Error(limit) when the radius exceeds kMaxBlurRadiusCells.
int gaussian_radius_cells(double sigma_m, double spacing_m);

// Separable Gaussian blur (horizontal pass, then vertical), weights
// w_k = exp(-(k * spacing)^2 / (2 sigma^2)) for |k| <= r = gaussian_radius_cells(), normalised to
// sum 1 in double; sums are accumulated in double in increasing k, the intermediate row pass is
// stored as float. Samples outside the field are the nearest border sample (clamp-to-edge), so
// a constant field stays constant and the border is not darkened.
// `out` gets in.grid. sigma_m == 0 copies. &in == &out throws Error(invalid_argument).
// [Units: sigma_m in m] [Limit: 0 <= sigma_m, radius <= kMaxBlurRadiusCells]
// Cost: O(width * height * r), parallel over rows; scratch: one float field.
void gaussian_blur(const Field2D& in, double sigma_m, Field2D& out, const ExecContext& ctx = {});

// The same blur on an input that carries a halo of r = gaussian_radius_cells(sigma_m,
// spacing) samples on every side; `out` gets the interior, in.grid.sub(r, r, w - 2r, h - 2r).
// Every output sample equals, bit for bit, the sample gaussian_blur() produces at the same world
// position of any larger field that contains its whole (2r+1)^2 neighbourhood: chunks blurred
// separately join exactly. Throws Error(invalid_argument) when the input is not larger than
// 2r in each direction.
void gaussian_blur_halo(const Field2D& in_with_halo, double sigma_m, Field2D& out,
                        const ExecContext& ctx = {});

// Unit surface normals, one Field2D per component (x east, y up, z south = +Z), same grid.
struct Normals {
  Field2D x, y, z;
};

// Normals by central differences over a 1-sample halo: with s = grid spacing,
//   n = normalize(-(h[i+1,j] - h[i-1,j]) / (2s), 1, -(h[i,j+1] - h[i,j-1]) / (2s))
// computed in double and stored as float. Output covers the interior,
// heights_with_halo.grid.sub(1, 1, w - 2, h - 2). Needs w, h >= 3, else Error(invalid_argument).
void normals(const Field2D& heights_with_halo, Normals& out, const ExecContext& ctx = {});

// Normals of a field without a halo, same size as the input: neighbours outside the field are
// the border sample (so a border normal uses a one-sided difference divided by 2s, i.e. half the
// slope). Equal, bit for bit, to normals() of the field padded by one replicated border sample.
void normals_clamped(const Field2D& heights, Normals& out, const ExecContext& ctx = {});

// Slope in degrees from horizontal, atan(|grad h|) with the same central differences as
// normals(); [0, 90). Not a SIMD kernel: it calls std::atan per sample (libm), which is
// deterministic for one build and libm but not promised identical across C libraries.
void slope_deg(const Field2D& heights_with_halo, Field2D& out, const ExecContext& ctx = {});
// Clamped-edge convenience, same size as the input (see normals_clamped()).
void slope_deg_clamped(const Field2D& heights, Field2D& out, const ExecContext& ctx = {});

}  // namespace terrane
