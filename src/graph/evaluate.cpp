// Runs a compiled graph over a grid: rows in parallel, each row in blocks of kBlock samples,
// each instruction a tight loop over the block. Every operation is pointwise IEEE float (or
// double for world positions) with a fixed order, so the value at a sample depends only on its
// world coordinates — not on threads, blocks or sub-grid splits.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "graph/program.hpp"

namespace terrane {
namespace {

using Program = CompiledGraph::Program;

constexpr int kBlock = 512;

// A float's bits, and back; all-ones where c holds; a where mask is set, else b.
inline std::uint32_t bits_of(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
inline float float_of(std::uint32_t u) {
  return std::bit_cast<float>(u);
}
inline std::uint32_t all_if(bool c) {
  return 0u - std::uint32_t(c);
}
inline std::uint32_t pick(std::uint32_t mask, std::uint32_t a, std::uint32_t b) {
  return (a & mask) | (b & ~mask);
}
// A float's bits as an int32 in the floats' order (for any float but NaN; -0 below +0).
inline std::int32_t ordered(float f) {
  const auto b = std::bit_cast<std::int32_t>(f);
  return b ^ std::int32_t(std::uint32_t(b >> 31) >> 1);
}

// d = sign(a) |a|^e, 0 where a is ±0, for e in (0, 16], without library transcendentals:
// log2 |a| from the exponent bits (a subnormal scaled by 2^24 first, exactly) plus an atanh
// series for the mantissa in [sqrt(1/2), sqrt 2], then exp2 from a Taylor polynomial on
// [-0.5, 0.5] and an exact power of two. Float only, in a fixed order: the same bits on every
// machine. Relative error is a few 1e-7 for moderate results; the result saturates at 2^127
// and flushes below 2^-126.
// Every sample takes both sides of each choice and keeps one by a bit mask, and compares
// floats by their ordered bits, so the loop has no branch and the compiler vectorises it on
// the baseline target (a float compare that picks between float operations stays a branch
// under GCC's default -ftrapping-math). floor(v) is the truncation of v less one where that
// is above v: the same integer for every v in [-125.5, 127.5].
void pow_row(const float* a, float* d, int n, float e) {
  const std::int32_t lo_key = ordered(-126.0f), hi_key = ordered(127.0f);
  for (int k = 0; k < n; ++k) {
    const std::uint32_t in_bits = bits_of(a[k]);
    const std::uint32_t abs_bits = in_bits & 0x7FFFFFFFu;
    const std::uint32_t sub = all_if(abs_bits < 0x00800000u);  // |a| < 2^-126
    const std::uint32_t x = pick(sub, bits_of(float_of(abs_bits) * 16777216.0f), abs_bits);
    const std::int32_t exponent_bits = std::int32_t((x >> 23) & 0xFFu) - 127;
    const std::uint32_t m1 = (x & 0x007FFFFFu) | 0x3F800000u;  // [1, 2)
    const std::uint32_t big = all_if(m1 > bits_of(1.41421356f));
    const float m = float_of(pick(big, bits_of(float_of(m1) * 0.5f), m1));
    const std::int32_t exponent = exponent_bits - std::int32_t(sub & 24u) + std::int32_t(big & 1u);
    // ln(m) = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716.
    const float t = (m - 1.0f) / (m + 1.0f);
    const float t2 = t * t;
    const float series =
        1.0f + t2 * (1.0f / 3.0f + t2 * (1.0f / 5.0f + t2 * (1.0f / 7.0f + t2 * (1.0f / 9.0f))));
    const float log2_x = float(exponent) + (2.0f * t * series) * 1.44269504f;
    const float y0 = e * log2_x;  // finite: |log2_x| <= 150, e <= 16
    const float y1 = float_of(pick(all_if(ordered(y0) < lo_key), bits_of(-126.0f), bits_of(y0)));
    const float y = float_of(pick(all_if(ordered(y1) > hi_key), bits_of(127.0f), bits_of(y1)));
    const float v = y + 0.5f;
    const auto whole = std::int32_t(v);
    const std::int32_t fl = whole - std::int32_t(ordered(float(whole)) > ordered(v));  // floor
    const float g = (y - float(fl)) * 0.693147181f;  // |g| <= 0.347
    const float p =
        1.0f +
        g * (1.0f + g * (0.5f + g * (1.0f / 6.0f +
                                     g * (1.0f / 24.0f +
                                          g * (1.0f / 120.0f +
                                               g * (1.0f / 720.0f + g * (1.0f / 5040.0f)))))));
    const float scale = float_of(std::uint32_t(fl + 127) << 23);
    const std::uint32_t r = bits_of(p * scale) | (in_bits & 0x80000000u);  // p * scale > 0
    d[k] = float_of(r & all_if(abs_bits != 0));
  }
}

void run_pow(const float* a, float* d, int n, double exponent) {
  // Exact special cases first: they are common and need no approximation.
  if (exponent == 1.0) {
    std::copy(a, a + n, d);
  } else if (exponent == 2.0) {
    for (int k = 0; k < n; ++k) d[k] = a[k] * std::fabs(a[k]);
  } else if (exponent == 3.0) {
    for (int k = 0; k < n; ++k) d[k] = a[k] * a[k] * a[k];
  } else if (exponent == 0.5) {
    for (int k = 0; k < n; ++k) d[k] = std::copysign(std::sqrt(std::fabs(a[k])), a[k]);
  } else {
    pow_row(a, d, n, float(exponent));
  }
}

inline float clamp01(float t) {
  return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
}
inline float smooth(float t) {
  return t * t * (3.0f - 2.0f * t);
}

float terrace(float v, const std::vector<float>& levels, float sharpness) {
  const std::size_t count = levels.size();
  if (!(v > levels[0]) || !(v < levels[count - 1])) return v;  // outside: unchanged
  // The interval [levels[k], levels[k + 1]) holding v (binary search; v is strictly inside).
  const std::size_t k =
      std::size_t(std::upper_bound(levels.begin(), levels.end(), v) - levels.begin()) - 1;
  const float lo = levels[k], hi = levels[k + 1];
  const float t = (v - lo) / (hi - lo);
  const float u = clamp01((t - sharpness) / (1.0f - sharpness));
  return lo + (hi - lo) * smooth(u);
}

struct GridRun {
  static constexpr bool kVolume = false;
  const Program& prog;
  const GridSpec& grid;
  std::vector<NoiseGridSampler> noises;
  std::vector<WarpGridSampler> warps;
  std::vector<const float*> inputs;  // per Program::input_names entry: the field's samples
};

struct VolumeRun {
  static constexpr bool kVolume = true;
  const Program& prog;
  const GridSpec3& grid;
  std::vector<NoiseVolumeSampler> noises;
  std::vector<WarpVolumeSampler> warps;
  std::vector<const float*> inputs;  // per-column fields, [k * size_x + i]
};

struct RunScratch {
  WarpScratch warp;
  WarpScratch3 warp3;
};

// Evaluates every instruction for samples [i0, i0 + n) of row j (and, in a volume, slice k: the
// row at y_m(j), z_m(k)) into the register file.
template <class Run>
void run_block(const Run& run, float* regs, RunScratch& scratch, int j, int k_slice, int i0,
               int n) {
  auto reg = [&](int r) { return regs + std::size_t(r) * kBlock; };
  for (const Instr& in : run.prog.code) {
    float* d = reg(in.dst);
    const float* a = in.a >= 0 ? reg(in.a) : nullptr;
    const float* b = in.b >= 0 ? reg(in.b) : nullptr;
    const float* c = in.c >= 0 ? reg(in.c) : nullptr;
    const float* dx = in.dx >= 0 ? reg(in.dx) : nullptr;
    const float* dz = in.dz >= 0 ? reg(in.dz) : nullptr;
    const float* dy = in.dy >= 0 ? reg(in.dy) : nullptr;
    const std::span<float> out(d, std::size_t(n));
    switch (in.op) {
      case Op::noise:
        if constexpr (Run::kVolume) {
          run.noises[std::size_t(in.table)].row(j, k_slice, i0, out, dx, dy, dz);
        } else {
          run.noises[std::size_t(in.table)].row(j, i0, out, dx, dz);
        }
        break;
      case Op::warp: {
        float* wz = reg(in.dst2);
        float* wy = Run::kVolume ? reg(in.dst3) : nullptr;
        const std::span<float> out_z(wz, std::size_t(n));
        const auto& warp = run.warps[std::size_t(in.table)];
        if (dx == nullptr) {  // the warp of the grid itself
          if constexpr (Run::kVolume) {
            warp.row_from_rest(j, k_slice, i0, out, std::span<float>(wy, std::size_t(n)), out_z,
                               &scratch.warp3);
          } else {
            warp.row_from_rest(j, i0, out, out_z, &scratch.warp);
          }
          break;
        }
        std::copy(dx, dx + n, d);
        std::copy(dz, dz + n, wz);
        if (wy != nullptr) std::copy(dy, dy + n, wy);
        if constexpr (Run::kVolume) {
          warp.row(j, k_slice, i0, out, std::span<float>(wy, std::size_t(n)), out_z,
                   &scratch.warp3);
        } else {
          warp.row(j, i0, out, out_z, &scratch.warp);
        }
        break;
      }
      case Op::y:
        if constexpr (Run::kVolume) {
          const double y = run.grid.y_m(j);
          for (int k = 0; k < n; ++k) d[k] = float(y + (dy ? double(dy[k]) : 0.0));
        }
        break;
      case Op::add:
        for (int k = 0; k < n; ++k) d[k] = a[k] + b[k];
        break;
      case Op::sub:
        for (int k = 0; k < n; ++k) d[k] = a[k] - b[k];
        break;
      case Op::mul:
        for (int k = 0; k < n; ++k) d[k] = a[k] * b[k];
        break;
      case Op::min:
        for (int k = 0; k < n; ++k) d[k] = b[k] < a[k] ? b[k] : a[k];
        break;
      case Op::max:
        for (int k = 0; k < n; ++k) d[k] = b[k] > a[k] ? b[k] : a[k];
        break;
      case Op::abs:
        for (int k = 0; k < n; ++k) d[k] = std::fabs(a[k]);
        break;
      case Op::neg:
        for (int k = 0; k < n; ++k) d[k] = -a[k];
        break;
      case Op::clamp: {
        const float lo = float(in.p[0]), hi = float(in.p[1]);
        for (int k = 0; k < n; ++k) d[k] = a[k] < lo ? lo : (a[k] > hi ? hi : a[k]);
        break;
      }
      case Op::scale_bias: {
        const float s = float(in.p[0]), o = float(in.p[1]);
        for (int k = 0; k < n; ++k) d[k] = a[k] * s + o;
        break;
      }
      case Op::pow:
        run_pow(a, d, n, in.p[0]);
        break;
      case Op::blend:
        for (int k = 0; k < n; ++k) {
          const float t = clamp01(c[k]);
          d[k] = t >= 1.0f ? b[k] : a[k] + (b[k] - a[k]) * t;
        }
        break;
      case Op::select: {
        const float th = float(in.p[0]), f = float(in.p[1]);
        if (f == 0.0f) {
          for (int k = 0; k < n; ++k) d[k] = c[k] < th ? a[k] : b[k];
        } else {
          const float lo = th - f, width = 2.0f * f;
          for (int k = 0; k < n; ++k) {
            const float s = smooth(clamp01((c[k] - lo) / width));
            d[k] = s <= 0.0f ? a[k] : (s >= 1.0f ? b[k] : a[k] + (b[k] - a[k]) * s);
          }
        }
        break;
      }
      case Op::curve: {
        const MonotoneCurve& curve = run.prog.curves[std::size_t(in.table)];
        for (int k = 0; k < n; ++k) d[k] = curve(a[k]);
        break;
      }
      case Op::terrace: {
        const std::vector<float>& levels = run.prog.level_sets[std::size_t(in.table)];
        const float sharpness = float(in.p[0]);
        for (int k = 0; k < n; ++k) d[k] = terrace(a[k], levels, sharpness);
        break;
      }
      case Op::radial_falloff: {
        // World positions in double, as the noise samplers see them.
        const double cx = in.p[0], cz = in.p[1], radius = in.p[2], falloff = in.p[3];
        const double z = Run::kVolume ? run.grid.z_m(k_slice) : run.grid.z_m(j);
        for (int k = 0; k < n; ++k) {
          const double px = run.grid.x_m(i0 + k) + (dx ? double(dx[k]) : 0.0) - cx;
          const double pz = z + (dz ? double(dz[k]) : 0.0) - cz;
          const double dist = std::sqrt(px * px + pz * pz);
          double m = 0.0;
          if (dist <= radius) {
            m = 1.0;
          } else if (falloff > 0.0 && dist < radius + falloff) {
            const double t = (dist - radius) / falloff;
            m = 1.0 - t * t * (3.0 - 2.0 * t);
          }
          d[k] = float(m);
        }
        break;
      }
      case Op::input: {
        std::size_t row = 0;
        if constexpr (Run::kVolume) {
          row = std::size_t(k_slice) * std::size_t(run.grid.size_x);
        } else {
          row = std::size_t(j) * std::size_t(run.grid.width);
        }
        const float* src = run.inputs[std::size_t(in.table)] + row + std::size_t(i0);
        std::copy(src, src + n, d);
        break;
      }
      case Op::remap: {
        const float from_lo = float(in.p[0]), to_lo = float(in.p[2]), factor = float(in.p[4]);
        for (int k = 0; k < n; ++k) d[k] = to_lo + (a[k] - from_lo) * factor;
        if (in.flag) {
          const float lo = float(in.p[5]), hi = float(in.p[6]);
          for (int k = 0; k < n; ++k) d[k] = d[k] < lo ? lo : (d[k] > hi ? hi : d[k]);
        }
        break;
      }
    }
  }
}

// The caller's field for every input the program reads, each with `count` values.
std::vector<const float*> resolve_inputs(const Program& prog, std::span<const InputField> inputs,
                                         std::size_t count, const char* fn, const char* unit) {
  std::vector<const float*> resolved;
  for (const std::string& name : prog.input_names) {
    const InputField* found = nullptr;
    for (const InputField& f : inputs) {
      if (f.name != name) continue;
      if (found != nullptr) {
        throw Error(ErrorCategory::invalid_argument,
                    std::string(fn) + ": input '" + name + "' is given more than once");
      }
      found = &f;
    }
    if (found == nullptr) {
      std::string given;
      for (const InputField& f : inputs) given += (given.empty() ? "" : ", ") + std::string(f.name);
      throw Error(ErrorCategory::invalid_argument,
                  std::string(fn) + ": the graph reads input '" + name +
                      "', which was not given (given: " +
                      (given.empty() ? std::string("none") : given) + ")");
    }
    if (found->values.size() != count) {
      throw Error(ErrorCategory::invalid_argument, std::string(fn) + ": input '" + name + "' has " +
                                                       std::to_string(found->values.size()) +
                                                       " floats, the grid needs " +
                                                       std::to_string(count) + unit);
    }
    resolved.push_back(found->values.data());
  }
  return resolved;
}

}  // namespace

void evaluate(const CompiledGraph& graph, const GridSpec& grid, std::span<float> heights_m,
              const ExecContext& ctx, std::span<const InputField> inputs) {
  const Program& prog = graph.program();
  if (prog.volume) {
    throw Error(ErrorCategory::invalid_argument,
                "evaluate: the graph was compiled for volumes (compile_volume); use "
                "evaluate_volume");
  }
  grid.validate("evaluate: grid");
  if (heights_m.size() != grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "evaluate: output has " + std::to_string(heights_m.size()) +
                    " floats, the grid needs " + std::to_string(grid.sample_count()));
  }
  GridRun run{prog, grid, {}, {}, {}};
  run.inputs = resolve_inputs(prog, inputs, grid.sample_count(), "evaluate", "");
  run.noises.reserve(prog.noises.size());
  for (const NoiseParams& p : prog.noises) run.noises.emplace_back(p, grid, ctx.simd);
  run.warps.reserve(prog.warps.size());
  for (const WarpParams& w : prog.warps) run.warps.emplace_back(w, grid, ctx.simd);

  const float h_min = float(prog.world.height_min_m);
  const float h_range = float(prog.world.height_max_m - prog.world.height_min_m);
  const int width = grid.width;
  const std::int64_t grain = std::clamp<std::int64_t>(32768 / width, 1, 16);
  const std::size_t block_floats = std::size_t(kBlock) * std::size_t(prog.register_count);

  parallel_for(ctx, grid.height, grain, [&](std::int64_t row_begin, std::int64_t row_end) {
    std::vector<float> regs(block_floats);  // per-task scratch registers
    RunScratch scratch;                     // per-task scratch of the warp nodes
    for (const auto& [r, v] : prog.constants) {
      std::fill_n(regs.begin() + std::ptrdiff_t(r) * kBlock, kBlock, v);
    }
    const float* result = regs.data() + std::size_t(prog.output_register) * kBlock;
    for (std::int64_t jj = row_begin; jj < row_end; ++jj) {
      const int j = int(jj);
      for (int i0 = 0; i0 < width; i0 += kBlock) {
        const int n = std::min(kBlock, width - i0);
        run_block(run, regs.data(), scratch, j, 0, i0, n);
        float* out = heights_m.data() + std::size_t(j) * std::size_t(width) + std::size_t(i0);
        if (prog.mapping == OutputMapping::identity) {
          std::copy(result, result + n, out);
          continue;
        }
        for (int k = 0; k < n; ++k) {
          float v = result[k];
          v = v > 1.0f ? 1.0f : v;
          v = v >= -1.0f ? v : -1.0f;  // also maps NaN to -1
          out[k] = h_min + ((v + 1.0f) * 0.5f) * h_range;
        }
      }
    }
  });
}

void evaluate_volume(const CompiledGraph& graph, const GridSpec3& grid, std::span<float> out,
                     const ExecContext& ctx, std::span<const InputField> inputs) {
  const Program& prog = graph.program();
  if (!prog.volume) {
    throw Error(ErrorCategory::invalid_argument,
                "evaluate_volume: the graph was compiled for height fields (compile); use "
                "compile_volume");
  }
  grid.validate("evaluate_volume: grid");
  if (out.size() != grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "evaluate_volume: output has " + std::to_string(out.size()) +
                    " floats, the grid needs " + std::to_string(grid.sample_count()));
  }
  VolumeRun run{prog, grid, {}, {}, {}};
  run.inputs = resolve_inputs(prog, inputs, std::size_t(grid.size_x) * std::size_t(grid.size_z),
                              "evaluate_volume", " (one per (x, z) column)");
  run.noises.reserve(prog.noises.size());
  for (const NoiseParams& p : prog.noises) run.noises.emplace_back(p, grid, ctx.simd);
  run.warps.reserve(prog.warps.size());
  for (const WarpParams& w : prog.warps) run.warps.emplace_back(w, grid, ctx.simd);

  const int width = grid.size_x;
  const std::int64_t rows = std::int64_t(grid.size_y) * grid.size_z;
  const std::int64_t grain = std::clamp<std::int64_t>(32768 / width, 1, 64);
  const std::size_t block_floats = std::size_t(kBlock) * std::size_t(prog.register_count);
  parallel_for(ctx, rows, grain, [&](std::int64_t row_begin, std::int64_t row_end) {
    std::vector<float> regs(block_floats);
    RunScratch scratch;
    for (const auto& [r, v] : prog.constants) {
      std::fill_n(regs.begin() + std::ptrdiff_t(r) * kBlock, kBlock, v);
    }
    const float* result = regs.data() + std::size_t(prog.output_register) * kBlock;
    for (std::int64_t r = row_begin; r < row_end; ++r) {
      const int j = int(r % grid.size_y), k = int(r / grid.size_y);
      for (int i0 = 0; i0 < width; i0 += kBlock) {
        const int n = std::min(kBlock, width - i0);
        run_block(run, regs.data(), scratch, j, k, i0, n);
        std::copy(result, result + n,
                  out.data() + std::size_t(r) * std::size_t(width) + std::size_t(i0));
      }
    }
  });
}

float evaluate_at(const CompiledGraph& graph, double x_m, double z_m) {
  // A 1x1 grid whose only sample is at exactly (x_m, z_m): origin + 0 * spacing.
  const GridSpec point{
      .width = 1, .height = 1, .spacing_m = 1.0, .origin_x_m = x_m, .origin_z_m = z_m};
  float h = 0.0f;
  evaluate(graph, point, std::span<float>(&h, 1), ExecContext{.threads = 1});
  return h;
}

}  // namespace terrane
