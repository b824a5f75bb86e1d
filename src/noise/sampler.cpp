// Host side of the noise batch API: per-octave lattice tables (coordinates split in double into
// a wrapping integer cell and a float fraction), row dispatch to the SIMD kernels, domain warp
// composition, and the grid / point entry points.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "noise/cellular_bounds.hpp"
#include "noise/kernel_args.hpp"
#include "noise/point_sampler.hpp"
#include "terrane/noise.hpp"

namespace terrane {
namespace nd = noise_detail;

namespace {

// Splits t into floor(t) (wrapped to 32 bits) and the fraction t - floor(t) rounded to float.
// t - floor(t) is exact in double for |t| < 2^52; the cell wraps modulo 2^32 (the lattice
// hash is periodic with that period anyway).
inline void split(double t, std::uint32_t& cell, float& frac) {
  double fl = std::floor(t);
  frac = float(t - fl);
  if (!(std::fabs(fl) < 9.0e18)) fl = std::fmod(fl, 4294967296.0);  // exact
  cell = std::uint32_t(std::uint64_t(std::int64_t(fl)));
}

using nd::Row2Fn;
using nd::Row2PairFn;
using nd::Row3Fn;

struct Kernels {
  Row2Fn row2;
  Row3Fn row3;
  Row2PairFn row2_pair;
};

// The kernels of a basis for `simd`: best = dispatch to the process-wide target at every call
// (set_simd_target may change it at any time); another target = that target's kernels, fixed
// (Error(invalid_argument) when unsupported).
Kernels kernels(NoiseType t, SimdTarget simd) {
  const bool process_wide = simd == SimdTarget::best;
#define TERRANE_BASIS_KERNELS(SNAKE)                                                 \
  (process_wide ? Kernels{nd::SNAKE##_row2, nd::SNAKE##_row3, nd::SNAKE##_row2_pair} \
                : Kernels{nd::SNAKE##_row2_for(simd), nd::SNAKE##_row3_for(simd),    \
                          nd::SNAKE##_row2_pair_for(simd)})
  switch (t) {
    case NoiseType::perlin:
      return TERRANE_BASIS_KERNELS(perlin);
    case NoiseType::opensimplex2:
      return TERRANE_BASIS_KERNELS(opensimplex2);
    case NoiseType::opensimplex2s:
      return TERRANE_BASIS_KERNELS(opensimplex2s);
    case NoiseType::value:
      return TERRANE_BASIS_KERNELS(value);
    case NoiseType::value_cubic:
      return TERRANE_BASIS_KERNELS(value_cubic);
    case NoiseType::cellular:
      return TERRANE_BASIS_KERNELS(cellular);
  }
#undef TERRANE_BASIS_KERNELS
  throw Error(ErrorCategory::internal, "unknown noise type");
}

bool sheared(NoiseType t) {
  return t == NoiseType::opensimplex2 || t == NoiseType::opensimplex2s;
}

// Lattice-space matrices: lattice = M * (position * frequency).
// OpenSimplex2/2S in 2D work on the skewed square lattice: M = I + F2 * ones, F2 = (sqrt3-1)/2.
// In 3D they use the rotated body-centred-cubic lattice: M = (2/3) * ones - I.
void lattice_matrix2(NoiseType t, double m[2][2]) {
  if (sheared(t)) {
    const double f2 = 0.5 * (std::sqrt(3.0) - 1.0);
    m[0][0] = 1.0 + f2, m[0][1] = f2, m[1][0] = f2, m[1][1] = 1.0 + f2;
  } else {
    m[0][0] = 1.0, m[0][1] = 0.0, m[1][0] = 0.0, m[1][1] = 1.0;
  }
}
void lattice_matrix3(NoiseType t, double m[3][3]) {
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      m[a][b] = sheared(t) ? (2.0 / 3.0) - (a == b ? 1.0 : 0.0) : (a == b ? 1.0 : 0.0);
    }
  }
}

nd::FractalArgs fractal_args(const NoiseParams& p) {
  nd::FractalArgs f{};
  f.type = p.fractal;
  f.octaves = p.fractal == FractalType::none ? 1 : p.octaves;
  double amp = 1.0, total = 0.0;
  for (int o = 0; o < f.octaves; ++o) {
    total += amp;
    amp *= p.gain;
  }
  const double bounding = total > 0.0 ? 1.0 / total : 1.0;
  amp = 1.0;
  for (int o = 0; o < f.octaves; ++o) {
    f.amplitude[o] = float(bounding * amp);
    amp *= p.gain;
  }
  f.weighted_strength = float(p.weighted_strength);
  f.pingpong_strength = float(p.pingpong_strength);
  return f;
}

nd::BasisArgs basis_args(const NoiseParams& p) {
  nd::BasisArgs b{p.cellular_distance, p.cellular_return, float(p.cellular_jitter * 0.4375)};
  nd::set_cellular_bounds(b);
  return b;
}

std::uint32_t octave_seed(std::uint64_t seed, int octave) {
  return std::uint32_t(hash_combine(seed, std::uint64_t(octave)) >> 32);
}

std::vector<double> octave_frequencies(const NoiseParams& p, int octaves) {
  std::vector<double> f(octaves);
  double freq = p.frequency;
  for (int o = 0; o < octaves; ++o) {
    f[o] = freq;
    freq *= p.lacunarity;
  }
  return f;
}

// Per-column contribution tables for one lattice axis: value = coef * x_m(i) * frequency.
struct AxisTable {
  std::vector<std::uint32_t> cell;
  std::vector<float> frac;

  void build(int n, double coef_freq, const auto& x_of) {
    cell.assign(std::size_t(n) + nd::kTablePad, 0u);
    frac.assign(std::size_t(n) + nd::kTablePad, 0.0f);
    for (int i = 0; i < n; ++i) split(x_of(i) * coef_freq, cell[i], frac[i]);
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// NoiseGridSampler

struct NoiseGridSampler::Impl {
  GridSpec grid;
  nd::FractalArgs fractal;
  nd::BasisArgs basis;
  Row2Fn kernel;
  Row2PairFn pair_kernel;
  double m[2][2];

  // Fills the per-row octave descriptors for row j, columns from i0.
  void octaves_for_row(int j, int i0, nd::Octave2* oct) const;
  // Their row part at z (seed, row cell and fraction, warp matrix); not the column tables.
  void row_octaves(double z, nd::Octave2* oct) const;
  void check_row(const char* fn, int j, int i0, std::size_t n, const float* dx,
                 const float* dz) const;
  std::vector<std::uint32_t> seeds;
  std::vector<double> freqs;
  std::vector<AxisTable> tables;  // [octave * 2 + axis]
  std::vector<std::array<std::array<float, 2>, 2>> warp;
};

namespace {

void init_sampler(NoiseGridSampler::Impl& s, const NoiseParams& p, const GridSpec& grid,
                  SimdTarget simd) {
  p.validate();
  grid.validate();
  s.grid = grid;
  s.fractal = fractal_args(p);
  s.basis = basis_args(p);
  const Kernels k = kernels(p.type, simd);
  s.kernel = k.row2;
  s.pair_kernel = k.row2_pair;
  lattice_matrix2(p.type, s.m);
  const int octaves = s.fractal.octaves;
  s.freqs = octave_frequencies(p, octaves);
  s.seeds.resize(octaves);
  s.tables.resize(std::size_t(octaves) * 2);
  s.warp.resize(octaves);
  for (int o = 0; o < octaves; ++o) {
    s.seeds[o] = octave_seed(p.seed, o);
    for (int a = 0; a < 2; ++a) {
      if (s.m[a][0] != 0.0) {
        s.tables[o * 2 + a].build(grid.width, s.m[a][0] * s.freqs[o],
                                  [&](int i) { return grid.x_m(i); });
      }
      for (int b = 0; b < 2; ++b) s.warp[o][a][b] = float(s.m[a][b] * s.freqs[o]);
    }
  }
}

}  // namespace

NoiseGridSampler::NoiseGridSampler(const NoiseParams& p, const GridSpec& grid, SimdTarget simd)
    : impl_(std::make_unique<Impl>()) {
  init_sampler(*impl_, p, grid, simd);
}

NoiseGridSampler::~NoiseGridSampler() = default;
NoiseGridSampler::NoiseGridSampler(NoiseGridSampler&&) noexcept = default;
NoiseGridSampler& NoiseGridSampler::operator=(NoiseGridSampler&&) noexcept = default;

void NoiseGridSampler::Impl::check_row(const char* fn, int j, int i0, std::size_t n,
                                       const float* dx, const float* dz) const {
  if (j < 0 || j >= grid.height || i0 < 0 || std::size_t(i0) + n > std::size_t(grid.width) ||
      ((dx == nullptr) != (dz == nullptr))) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": row " + std::to_string(j) + " columns [" + std::to_string(i0) +
                    ", " + std::to_string(std::size_t(i0) + n) +
                    ") outside the grid or displacement pointers mismatched");
  }
}

void NoiseGridSampler::Impl::octaves_for_row(int j, int i0, nd::Octave2* oct) const {
  row_octaves(grid.z_m(j), oct);
  for (int o = 0; o < fractal.octaves; ++o) {
    for (int a = 0; a < 2; ++a) {
      const AxisTable& t = tables[o * 2 + a];
      oct[o].col_cell[a] = t.cell.empty() ? nullptr : t.cell.data() + i0;
      oct[o].col_frac[a] = t.frac.empty() ? nullptr : t.frac.data() + i0;
    }
  }
}

void NoiseGridSampler::Impl::row_octaves(double z, nd::Octave2* oct) const {
  for (int o = 0; o < fractal.octaves; ++o) {
    nd::Octave2& oc = oct[o];
    oc.seed = seeds[o];
    for (int a = 0; a < 2; ++a) {
      oc.row_cell[a] = 0;
      oc.row_frac[a] = 0.0f;
      if (m[a][1] != 0.0) split(z * (m[a][1] * freqs[o]), oc.row_cell[a], oc.row_frac[a]);
      oc.warp[a][0] = warp[o][a][0];
      oc.warp[a][1] = warp[o][a][1];
    }
  }
}

void NoiseGridSampler::row(int j, int i0, std::span<float> out, const float* dx,
                           const float* dz) const {
  const Impl& s = *impl_;
  s.check_row("NoiseGridSampler::row", j, i0, out.size(), dx, dz);
  if (out.empty()) return;
  nd::Octave2 oct[nd::kMaxOctaves];
  s.octaves_for_row(j, i0, oct);
  s.kernel(nd::Row2{oct, s.fractal, s.basis, out.size(), dx, dz, out.data()});
}

void NoiseGridSampler::row_pair(int j, int i0, std::span<float> out_a, std::span<float> out_b,
                                const float* dx, const float* dz) const {
  const Impl& s = *impl_;
  s.check_row("NoiseGridSampler::row_pair", j, i0, out_a.size(), dx, dz);
  if (out_b.size() != out_a.size() || s.fractal.type != FractalType::none) {
    throw Error(ErrorCategory::invalid_argument,
                "NoiseGridSampler::row_pair: needs equal output sizes and fractal = none");
  }
  if (out_a.empty()) return;
  nd::Octave2 oct[nd::kMaxOctaves];
  s.octaves_for_row(j, i0, oct);
  s.pair_kernel(nd::Row2Pair{oct, s.basis, out_a.size(), dx, dz, out_a.data(), out_b.data()});
}

// ---------------------------------------------------------------------------------------------
// NoisePointSampler

NoisePointSampler::NoisePointSampler(const NoiseParams& p, SimdTarget simd)
    : impl_(std::make_unique<NoiseGridSampler::Impl>()) {
  init_sampler(*impl_, p, GridSpec{.width = 1, .height = 1, .spacing_m = 1.0}, simd);
}

NoisePointSampler::~NoisePointSampler() = default;
NoisePointSampler::NoisePointSampler(NoisePointSampler&&) noexcept = default;
NoisePointSampler& NoisePointSampler::operator=(NoisePointSampler&&) noexcept = default;

float NoisePointSampler::at(double x_m, double z_m) const {
  const NoiseGridSampler::Impl& s = *impl_;
  // The grid noise_at evaluates: its validation, and x_m(0) / z_m(0) as the tables compute them.
  const GridSpec g{.width = 1, .height = 1, .spacing_m = 1.0, .origin_x_m = x_m, .origin_z_m = z_m};
  g.validate();
  // Column tables of one column, padded like AxisTable for the kernels' full-vector loads; only
  // the tables an octave uses are filled (zeros past the sample, as AxisTable pads).
  std::uint32_t cell[nd::kMaxOctaves][2][1 + nd::kTablePad];
  float frac[nd::kMaxOctaves][2][1 + nd::kTablePad];
  nd::Octave2 oct[nd::kMaxOctaves];
  s.row_octaves(g.z_m(0), oct);
  const double x = g.x_m(0);
  for (int o = 0; o < s.fractal.octaves; ++o) {
    for (int a = 0; a < 2; ++a) {
      oct[o].col_cell[a] = nullptr;
      oct[o].col_frac[a] = nullptr;
      if (s.m[a][0] != 0.0) {
        std::fill_n(cell[o][a], 1 + nd::kTablePad, 0u);
        std::fill_n(frac[o][a], 1 + nd::kTablePad, 0.0f);
        split(x * (s.m[a][0] * s.freqs[o]), cell[o][a][0], frac[o][a][0]);
        oct[o].col_cell[a] = cell[o][a];
        oct[o].col_frac[a] = frac[o][a];
      }
    }
  }
  float v = 0.0f;
  s.kernel(nd::Row2{oct, s.fractal, s.basis, 1, nullptr, nullptr, &v});
  return v;
}

// ---------------------------------------------------------------------------------------------
// WarpGridSampler

WarpGridSampler::WarpGridSampler(const WarpParams& w, const GridSpec& grid, SimdTarget simd)
    : fractal_(w.fractal) {
  w.validate();
  const int layers = w.fractal == WarpFractal::none ? 1 : w.octaves;
  double total = 0.0, amp = 1.0;
  for (int o = 0; o < layers; ++o) {
    total += amp;
    amp *= w.gain;
  }
  const double bounding = total > 0.0 ? 1.0 / total : 1.0;
  double freq = w.frequency;
  amp = 1.0;
  for (int o = 0; o < layers; ++o) {
    NoiseParams p;
    p.type = w.basis;
    p.frequency = freq;
    p.fractal = FractalType::none;
    p.seed = hash_combine(w.seed, std::uint64_t(o));
    layers_.emplace_back(p, grid, simd);
    layer_amplitude_m_.push_back(float(w.amplitude_m * amp * bounding));
    freq *= w.lacunarity;
    amp *= w.gain;
  }
}

WarpGridSampler::~WarpGridSampler() = default;
WarpGridSampler::WarpGridSampler(WarpGridSampler&&) noexcept = default;
WarpGridSampler& WarpGridSampler::operator=(WarpGridSampler&&) noexcept = default;

std::size_t WarpScratch::bytes() const {
  return (nx.capacity() + nz.capacity() + base_x.capacity() + base_z.capacity()) * sizeof(float);
}

void WarpGridSampler::row(int j, int i0, std::span<float> dx, std::span<float> dz,
                          WarpScratch* scratch) const {
  displace(j, i0, dx, dz, scratch, false);
}

void WarpGridSampler::row_from_rest(int j, int i0, std::span<float> dx, std::span<float> dz,
                                    WarpScratch* scratch) const {
  displace(j, i0, dx, dz, scratch, true);
}

// at_rest: dx and dz are taken as all zero, whatever they hold. A layer that sees them (the
// first; every layer of an independent warp) takes the kernels' path without displacement, which
// gives the bits of zero displacements (Noise.ZeroDisplacementGivesTheUndisplacedRowOnEveryPath)
// without normalising every sample's lattice coordinates. The first layer writes 0 + amp * n,
// the bits of adding to zeros, without a pass that zeroes them first.
void WarpGridSampler::displace(int j, int i0, std::span<float> dx, std::span<float> dz,
                               WarpScratch* scratch, bool at_rest) const {
  const std::size_t n = dx.size();
  if (dz.size() != n) {
    throw Error(ErrorCategory::invalid_argument, "WarpGridSampler::row: dx and dz sizes differ");
  }
  WarpScratch local;
  WarpScratch& s = scratch != nullptr ? *scratch : local;
  std::vector<float>& nx = s.nx;
  std::vector<float>& nz = s.nz;
  nx.resize(n);
  nz.resize(n);
  const float* px = dx.data();
  const float* pz = dz.data();
  const bool independent = fractal_ == WarpFractal::independent;
  if (independent && !at_rest) {  // every octave sees the incoming positions
    s.base_x.assign(dx.begin(), dx.end());
    s.base_z.assign(dz.begin(), dz.end());
    px = s.base_x.data();
    pz = s.base_z.data();
  }
  if (at_rest && layers_.empty()) {
    std::fill(dx.begin(), dx.end(), 0.0f);
    std::fill(dz.begin(), dz.end(), 0.0f);
  }
  for (std::size_t o = 0; o < layers_.size(); ++o) {
    const bool undisplaced = at_rest && (o == 0 || independent);
    layers_[o].row_pair(j, i0, {nx.data(), n}, {nz.data(), n}, undisplaced ? nullptr : px,
                        undisplaced ? nullptr : pz);
    const float amp = layer_amplitude_m_[o];
    if (at_rest && o == 0) {
      for (std::size_t k = 0; k < n; ++k) {
        dx[k] = 0.0f + amp * nx[k];
        dz[k] = 0.0f + amp * nz[k];
      }
    } else {
      for (std::size_t k = 0; k < n; ++k) {
        dx[k] += amp * nx[k];
        dz[k] += amp * nz[k];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// NoiseVolumeSampler, WarpVolumeSampler

struct NoiseVolumeSampler::Impl {
  GridSpec3 grid;
  nd::FractalArgs fractal;
  nd::BasisArgs basis;
  Row3Fn kernel;
  double m[3][3];
  std::vector<std::uint32_t> seeds;
  std::vector<double> freqs;
  std::vector<AxisTable> tables;  // [octave * 3 + axis]: the x contribution
  std::vector<std::array<std::array<float, 3>, 3>> warp;
};

NoiseVolumeSampler::NoiseVolumeSampler(const NoiseParams& p, const GridSpec3& grid, SimdTarget simd)
    : impl_(std::make_unique<Impl>()) {
  p.validate();
  grid.validate();
  Impl& s = *impl_;
  s.grid = grid;
  s.fractal = fractal_args(p);
  s.basis = basis_args(p);
  s.kernel = kernels(p.type, simd).row3;
  lattice_matrix3(p.type, s.m);
  const int octaves = s.fractal.octaves;
  s.freqs = octave_frequencies(p, octaves);
  s.seeds.resize(octaves);
  s.tables.resize(std::size_t(octaves) * 3);
  s.warp.resize(octaves);
  for (int o = 0; o < octaves; ++o) {
    s.seeds[o] = octave_seed(p.seed, o);
    for (int a = 0; a < 3; ++a) {
      if (s.m[a][0] != 0.0) {
        s.tables[o * 3 + a].build(grid.size_x, s.m[a][0] * s.freqs[o],
                                  [&](int i) { return grid.x_m(i); });
      }
      for (int b = 0; b < 3; ++b) s.warp[o][a][b] = float(s.m[a][b] * s.freqs[o]);
    }
  }
}

NoiseVolumeSampler::~NoiseVolumeSampler() = default;
NoiseVolumeSampler::NoiseVolumeSampler(NoiseVolumeSampler&&) noexcept = default;
NoiseVolumeSampler& NoiseVolumeSampler::operator=(NoiseVolumeSampler&&) noexcept = default;

void NoiseVolumeSampler::row(int j, int k, int i0, std::span<float> out, const float* dx,
                             const float* dy, const float* dz) const {
  const Impl& s = *impl_;
  const bool warped = dx != nullptr;
  if (j < 0 || j >= s.grid.size_y || k < 0 || k >= s.grid.size_z || i0 < 0 ||
      std::size_t(i0) + out.size() > std::size_t(s.grid.size_x) || (dy != nullptr) != warped ||
      (dz != nullptr) != warped) {
    throw Error(ErrorCategory::invalid_argument,
                "NoiseVolumeSampler::row: row (" + std::to_string(j) + ", " + std::to_string(k) +
                    ") columns [" + std::to_string(i0) + ", " +
                    std::to_string(std::size_t(i0) + out.size()) +
                    ") outside the grid or displacement pointers mismatched");
  }
  if (out.empty()) return;
  const double y = s.grid.y_m(j), z = s.grid.z_m(k);
  nd::Octave3 oct[nd::kMaxOctaves];
  for (int o = 0; o < s.fractal.octaves; ++o) {
    nd::Octave3& oc = oct[o];
    oc.seed = s.seeds[o];
    for (int a = 0; a < 3; ++a) {
      const AxisTable& t = s.tables[o * 3 + a];
      oc.col_cell[a] = t.cell.empty() ? nullptr : t.cell.data() + i0;
      oc.col_frac[a] = t.frac.empty() ? nullptr : t.frac.data() + i0;
      oc.row_cell[a] = 0;
      oc.row_frac[a] = 0.0f;
      if (s.m[a][1] != 0.0 || s.m[a][2] != 0.0) {
        split(y * (s.m[a][1] * s.freqs[o]) + z * (s.m[a][2] * s.freqs[o]), oc.row_cell[a],
              oc.row_frac[a]);
      }
      for (int b = 0; b < 3; ++b) oc.warp[a][b] = s.warp[o][a][b];
    }
  }
  s.kernel(nd::Row3{oct, s.fractal, s.basis, out.size(), out.data(), dx, dy, dz});
}

WarpVolumeSampler::WarpVolumeSampler(const WarpParams& w, const GridSpec3& grid, SimdTarget simd)
    : fractal_(w.fractal) {
  w.validate();
  const int layers = w.fractal == WarpFractal::none ? 1 : w.octaves;
  double total = 0.0, amp = 1.0;
  for (int o = 0; o < layers; ++o) {
    total += amp;
    amp *= w.gain;
  }
  const double bounding = total > 0.0 ? 1.0 / total : 1.0;
  double freq = w.frequency;
  amp = 1.0;
  for (int o = 0; o < layers; ++o) {
    NoiseParams p;
    p.type = w.basis;
    p.frequency = freq;
    p.fractal = FractalType::none;
    for (std::uint64_t axis = 0; axis < 3; ++axis) {
      p.seed = hash_combine(hash_combine(w.seed, std::uint64_t(o)), axis);
      layers_.emplace_back(p, grid, simd);
    }
    layer_amplitude_m_.push_back(float(w.amplitude_m * amp * bounding));
    freq *= w.lacunarity;
    amp *= w.gain;
  }
}

WarpVolumeSampler::~WarpVolumeSampler() = default;
WarpVolumeSampler::WarpVolumeSampler(WarpVolumeSampler&&) noexcept = default;
WarpVolumeSampler& WarpVolumeSampler::operator=(WarpVolumeSampler&&) noexcept = default;

void WarpVolumeSampler::row(int j, int k, int i0, std::span<float> dx, std::span<float> dy,
                            std::span<float> dz, WarpScratch3* scratch) const {
  displace(j, k, i0, dx, dy, dz, scratch, false);
}

void WarpVolumeSampler::row_from_rest(int j, int k, int i0, std::span<float> dx,
                                      std::span<float> dy, std::span<float> dz,
                                      WarpScratch3* scratch) const {
  displace(j, k, i0, dx, dy, dz, scratch, true);
}

// at_rest: as WarpGridSampler::displace.
void WarpVolumeSampler::displace(int j, int k, int i0, std::span<float> dx, std::span<float> dy,
                                 std::span<float> dz, WarpScratch3* scratch, bool at_rest) const {
  const std::size_t n = dx.size();
  if (dy.size() != n || dz.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "WarpVolumeSampler::row: dx, dy and dz sizes differ");
  }
  WarpScratch3 local;
  WarpScratch3& s = scratch != nullptr ? *scratch : local;
  const std::span<float> d[3] = {dx, dy, dz};
  const float* p[3] = {dx.data(), dy.data(), dz.data()};
  for (int a = 0; a < 3; ++a) s.n[a].resize(n);
  const bool independent = fractal_ == WarpFractal::independent;
  if (at_rest && layer_amplitude_m_.empty()) {
    for (std::span<float> da : d) std::fill(da.begin(), da.end(), 0.0f);
  }
  if (independent && !at_rest) {  // every octave sees the incoming positions
    for (int a = 0; a < 3; ++a) {
      s.base[a].assign(d[a].begin(), d[a].end());
      p[a] = s.base[a].data();
    }
  }
  for (std::size_t o = 0; o < layer_amplitude_m_.size(); ++o) {
    const bool undisplaced = at_rest && (o == 0 || independent);
    // All three noises at the positions before this octave, then the displacement is added.
    for (int a = 0; a < 3; ++a) {
      const NoiseVolumeSampler& layer = layers_[o * 3 + std::size_t(a)];
      if (undisplaced) {
        layer.row(j, k, i0, {s.n[a].data(), n});
      } else {
        layer.row(j, k, i0, {s.n[a].data(), n}, p[0], p[1], p[2]);
      }
    }
    const float amp = layer_amplitude_m_[o];
    for (int a = 0; a < 3; ++a) {
      if (at_rest && o == 0) {
        for (std::size_t q = 0; q < n; ++q) d[a][q] = 0.0f + amp * s.n[a][q];
      } else {
        for (std::size_t q = 0; q < n; ++q) d[a][q] += amp * s.n[a][q];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Grid and point entry points

namespace {

void check_out(std::size_t got, std::size_t want, const char* fn) {
  if (got != want) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": output span has " + std::to_string(got) +
                    " samples, the grid needs " + std::to_string(want));
  }
}

// Rows per parallel task: about 64K samples, at least one row.
std::int64_t row_grain(int width) {
  return std::max<std::int64_t>(1, 65536 / std::max(1, width));
}

}  // namespace

void noise_fill(const NoiseParams& p, const GridSpec& grid, std::span<float> out,
                const ExecContext& ctx) {
  NoiseGridSampler s(p, grid, ctx.simd);
  check_out(out.size(), grid.sample_count(), "noise_fill");
  const std::size_t w = std::size_t(grid.width);
  parallel_for(ctx, grid.height, row_grain(grid.width), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t j = b; j < e; ++j) s.row(int(j), 0, out.subspan(std::size_t(j) * w, w));
  });
}

void noise_fill_warped(const NoiseParams& p, const WarpParams& wp, const GridSpec& grid,
                       std::span<float> out, const ExecContext& ctx) {
  NoiseGridSampler s(p, grid, ctx.simd);
  WarpGridSampler warp(wp, grid, ctx.simd);
  check_out(out.size(), grid.sample_count(), "noise_fill_warped");
  const std::size_t w = std::size_t(grid.width);
  parallel_for(ctx, grid.height, row_grain(grid.width), [&](std::int64_t b, std::int64_t e) {
    std::vector<float> dx(w), dz(w);
    WarpScratch scratch;  // per task, like dx and dz
    for (std::int64_t j = b; j < e; ++j) {
      warp.row_from_rest(int(j), 0, dx, dz, &scratch);
      s.row(int(j), 0, out.subspan(std::size_t(j) * w, w), dx.data(), dz.data());
    }
  });
}

void noise_fill3(const NoiseParams& p, const GridSpec3& grid, std::span<float> out,
                 const ExecContext& ctx) {
  NoiseVolumeSampler s(p, grid, ctx.simd);
  check_out(out.size(), grid.sample_count(), "noise_fill3");
  const std::size_t w = std::size_t(grid.size_x);
  const std::int64_t rows = std::int64_t(grid.size_y) * grid.size_z;
  parallel_for(ctx, rows, row_grain(grid.size_x), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      s.row(int(r % grid.size_y), int(r / grid.size_y), 0, out.subspan(std::size_t(r) * w, w));
    }
  });
}

float noise_at(const NoiseParams& p, double x_m, double z_m) {
  const GridSpec g{.width = 1, .height = 1, .spacing_m = 1.0, .origin_x_m = x_m, .origin_z_m = z_m};
  float v = 0.0f;
  NoiseGridSampler(p, g).row(0, 0, {&v, 1});
  return v;
}

float noise_at(const NoiseParams& p, double x_m, double y_m, double z_m) {
  const GridSpec3 g{.size_x = 1,
                    .size_y = 1,
                    .size_z = 1,
                    .spacing_m = 1.0,
                    .origin_x_m = x_m,
                    .origin_y_m = y_m,
                    .origin_z_m = z_m};
  float v = 0.0f;
  noise_fill3(p, g, {&v, 1}, ExecContext{.threads = 1});
  return v;
}

void warp_at(const WarpParams& w, double x_m, double z_m, float& dx_m, float& dz_m) {
  const GridSpec g{.width = 1, .height = 1, .spacing_m = 1.0, .origin_x_m = x_m, .origin_z_m = z_m};
  WarpGridSampler(w, g).row_from_rest(0, 0, {&dx_m, 1}, {&dz_m, 1});
}

}  // namespace terrane
