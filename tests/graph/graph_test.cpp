// Graph module: builtin presets, determinism (goldens, threads, sub-grid splits, point API),
// node semantics and input nodes (validation messages and --set overrides: validation_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "graph/program.hpp"
#include "graph_test_util.hpp"
#include "support/float_bits.hpp"
#include "terrane/graph.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

using namespace graph_test;

// A 129 x 129 grid covering a builtin's default map at 1/8 resolution.
GridSpec overview_grid(const Preset& p) {
  return GridSpec{.width = 129, .height = 129, .spacing_m = p.world.cell_size_m * 8.0};
}

// ---------------------------------------------------------------------------------------------
// Builtins

TEST(Builtins, AllParseCompileAndEvaluateInRange) {
  const std::vector<std::string> names = builtin_preset_names();
  ASSERT_EQ(names, (std::vector<std::string>{"default", "alpine", "islands", "dunes", "canyons",
                                             "ranges"}));
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const Preset p = load_preset(name);
    EXPECT_EQ(p.name, name);
    EXPECT_FALSE(p.description.empty());
    const CompiledGraph g = compile(p);
    const std::vector<float> h = evaluate_grid(g, overview_grid(p));
    const auto [lo, hi] = std::minmax_element(h.begin(), h.end());
    EXPECT_GE(*lo, float(p.world.height_min_m));
    EXPECT_LE(*hi, float(p.world.height_max_m));
    // Visibly varied: the relief spans at least a fifth of the height range.
    EXPECT_GT(*hi - *lo, 0.2f * float(p.world.height_max_m - p.world.height_min_m));
  }
}

TEST(Builtins, IslandsHaveSeaAndLand) {
  const Preset p = load_preset("islands");
  const std::vector<float> h = evaluate_grid(compile(p), overview_grid(p));
  const auto below =
      std::count_if(h.begin(), h.end(), [&](float v) { return v < float(p.world.sea_level_m); });
  EXPECT_GT(below, std::ptrdiff_t(h.size() / 4));
  EXPECT_LT(below, std::ptrdiff_t(h.size() * 19 / 20));
}

// Determinism goldens: FNV-1a of the 129 x 129 overview heights. They change only when the
// preset, the graph evaluator or the noise kernels change output on purpose. To regenerate, run
//   TERRANE_PRINT_GOLDENS=1 build/release/tests/graph/test_graph --gtest_filter='*Golden*'
// and paste the printed table.
TEST(Builtins, DeterminismGoldens) {
  const std::map<std::string, std::uint64_t> golden = {
      {"default", 0xc47d5dcba58bc9a6ull},
      {"alpine", 0x1534a1ebbb05c188ull},
      {"islands", 0x7479a356577a25a1ull},
      {"dunes", 0xdd35383847ac5cb2ull},
      {"canyons", 0x64470af44dbdec58ull},
      {"ranges", 0x8d4665feb694e7e5ull},
  };

  const bool print = std::getenv("TERRANE_PRINT_GOLDENS") != nullptr;
  for (const std::string& name : builtin_preset_names()) {
    const Preset p = load_preset(name);
    const std::uint64_t h = hash_floats(evaluate_grid(compile(p), overview_grid(p)));
    if (print) std::printf("      {\"%s\", 0x%016llxull},\n", name.c_str(), (unsigned long long)h);
    EXPECT_EQ(h, golden.at(name)) << name;
  }
}

TEST(Builtins, BitIdenticalAcrossThreadCountsAndSplits) {
  for (const std::string& name : builtin_preset_names()) {
    SCOPED_TRACE(name);
    const Preset p = load_preset(name);
    const CompiledGraph g = compile(p);
    // An odd grid with a far offset: rows of more than one block, uneven sub-rectangles.
    const GridSpec grid{.width = 601,
                        .height = 37,
                        .spacing_m = p.world.cell_size_m * 1.5,
                        .origin_x_m = -1234.5,
                        .origin_z_m = 777.25,
                        .index_x0 = 3,
                        .index_z0 = -11};
    const std::vector<float> whole = evaluate_grid(g, grid, 1);
    EXPECT_EQ(evaluate_grid(g, grid, 2), whole);
    EXPECT_EQ(evaluate_grid(g, grid, 4), whole);

    struct Piece {
      int i0, j0, w, h;
    };
    // Four sub-rectangles, evaluated in a scrambled order.
    const Piece pieces[] = {{517, 20, 84, 17}, {0, 0, 517, 20}, {0, 20, 517, 17}, {517, 0, 84, 20}};
    std::vector<float> stitched(grid.sample_count(), -12345.0f);
    for (const Piece& pc : pieces) {
      const GridSpec sub = grid.sub(pc.i0, pc.j0, pc.w, pc.h);
      const std::vector<float> part = evaluate_grid(g, sub, 2);
      for (int j = 0; j < pc.h; ++j) {
        std::copy_n(part.begin() + std::ptrdiff_t(j) * pc.w, pc.w,
                    stitched.begin() + std::ptrdiff_t(pc.j0 + j) * grid.width + pc.i0);
      }
    }
    EXPECT_EQ(stitched, whole);
  }
}

TEST(Builtins, BitIdenticalAcrossSimdTargets) {
  struct Restore {
    ~Restore() { set_simd_target(SimdTarget::best); }
  } restore;
  for (const std::string& name : builtin_preset_names()) {
    const Preset p = load_preset(name);
    const CompiledGraph g = compile(p);
    std::vector<float> first;
    for (SimdTarget t : supported_simd_targets()) {
      set_simd_target(t);
      const std::vector<float> h = evaluate_grid(g, overview_grid(p));
      if (first.empty()) first = h;
      EXPECT_EQ(test::float_bits(h), test::float_bits(first)) << name << " on " << to_string(t);
    }
  }
}

// ExecContext::simd overrides the process-wide target (scalar here) for one evaluation.
TEST(Builtins, ContextSimdTargetGivesIdenticalBytes) {
  struct Restore {
    ~Restore() { set_simd_target(SimdTarget::best); }
  } restore;
  set_simd_target(SimdTarget::scalar);
  for (const std::string& name : builtin_preset_names()) {
    const Preset p = load_preset(name);
    const CompiledGraph g = compile(p);
    const GridSpec grid = overview_grid(p);
    const std::vector<float> ref = evaluate_grid(g, grid);
    for (SimdTarget t : supported_simd_targets()) {
      std::vector<float> h(grid.sample_count());
      evaluate(g, grid, h, ExecContext{.threads = 2, .simd = t});
      EXPECT_EQ(test::float_bits(h), test::float_bits(ref)) << name << " on " << to_string(t);
    }
  }
}

TEST(Builtins, PointApiMatchesGrid) {
  for (const std::string& name : builtin_preset_names()) {
    SCOPED_TRACE(name);
    const Preset p = load_preset(name);
    const CompiledGraph g = compile(p);
    const GridSpec grid{.width = 40,
                        .height = 30,
                        .spacing_m = 13.7,
                        .origin_x_m = 250.0,
                        .origin_z_m = -90.0,
                        .index_x0 = 5,
                        .index_z0 = 2};
    const std::vector<float> h = evaluate_grid(g, grid);
    for (int j = 0; j < grid.height; j += 7) {
      for (int i = 0; i < grid.width; i += 3) {
        EXPECT_EQ(evaluate_at(g, grid.x_m(i), grid.z_m(j)),
                  h[std::size_t(j) * std::size_t(grid.width) + std::size_t(i)]);
      }
    }
  }
}

TEST(Builtins, UnknownNameIsAnError) {
  EXPECT_THROW((void)builtin_preset_json("volcano"), Error);
  try {
    (void)builtin_preset_json("volcano");
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_EQ(std::string(e.what()),
              "unknown builtin preset 'volcano'; builtins: default, alpine, "
              "islands, dunes, canyons, ranges");
  }
  try {
    (void)load_preset("volcano");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::io);
    expect_contains(e.what(), {"volcano", "alpine", "canyons"});
    EXPECT_EQ(std::string(e.what()),
              "volcano: not a builtin preset (default, alpine, islands, "
              "dunes, canyons, ranges) and no readable file by that name");
  }
}

TEST(Presets, LoadFromFileUsesStemAsDefaultName) {
  const std::string path = std::string(TERRANE_BINARY_DIR) + "/graph_test_hills.json";
  {
    std::ofstream f(path);
    f << R"({"graph": {"nodes": {"output": {"type": "perlin", "frequency": 0.05}}}})";
  }
  const Preset p = load_preset(path);
  EXPECT_EQ(p.name, "graph_test_hills");
  EXPECT_EQ(p.seed, 1u);
  EXPECT_EQ(p.world.size, 1025);
  EXPECT_EQ(p.world.height_min_m, -100.0);
  EXPECT_EQ(p.world.height_max_m, 900.0);
  EXPECT_EQ(p.source, path);
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------------------------
// Node semantics

TEST(Nodes, ConstantArithmeticIsExact) {
  EXPECT_EQ(value_of(R"("out": {"type": "constant", "value": 0.25})"), 0.25f);
  EXPECT_EQ(value_of(R"("out": {"type": "add", "a": 0.25, "b": 0.5})"), 0.75f);
  EXPECT_EQ(value_of(R"("out": {"type": "sub", "a": 0.25, "b": 0.5})"), -0.25f);
  EXPECT_EQ(value_of(R"("out": {"type": "mul", "inputs": [0.5, 0.5, -2]})"), -0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "add", "inputs": [0.125, 0.25, 0.5]})"), 0.875f);
  EXPECT_EQ(value_of(R"("out": {"type": "min", "inputs": [0.5, -0.25, 0.75]})"), -0.25f);
  EXPECT_EQ(value_of(R"("out": {"type": "max", "a": 0.5, "b": -0.25})"), 0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "abs", "input": -0.375})"), 0.375f);
  EXPECT_EQ(value_of(R"("out": {"type": "neg", "input": 0.375})"), -0.375f);
  EXPECT_EQ(value_of(R"("out": {"type": "scale_bias", "input": 0.5, "scale": 0.5, "bias": 0.125})"),
            0.375f);
  // References between nodes, and the output clamp to [-1, 1].
  EXPECT_EQ(value_of(R"("k": {"type": "constant", "value": 0.5},
                        "out": {"type": "add", "a": "k", "b": "k"})"),
            1.0f);
  EXPECT_EQ(value_of(R"("out": {"type": "constant", "value": 7})"), 1.0f);
  EXPECT_EQ(value_of(R"("out": {"type": "constant", "value": -7})"), -1.0f);
}

TEST(Nodes, OutputMapsToMetres) {
  const Preset p = parse_preset(
      R"({"world": {"height_min_m": -100, "height_max_m": 900},
          "graph": {"nodes": {"output": {"type": "constant", "value": 0.5}}}})",
      "map.json");
  // h = -100 + (0.5 + 1) / 2 * 1000
  EXPECT_EQ(evaluate_at(compile(p), 3.0, 4.0), 650.0f);
}

TEST(Nodes, ClampBounds) {
  EXPECT_EQ(value_of(R"("out": {"type": "clamp", "input": 0.9, "lo": -0.5, "hi": 0.5})"), 0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "clamp", "input": -0.9, "lo": -0.5, "hi": 0.5})"), -0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "clamp", "input": 0.25, "lo": -0.5, "hi": 0.5})"), 0.25f);
  const Preset p = parse_preset(
      unit_preset(R"("n": {"type": "fbm", "noise": "perlin", "frequency": 0.1, "octaves": 3},
                     "out": {"type": "clamp", "input": "n", "lo": -0.125, "hi": 0.25})"),
      "clamp.json");
  const std::vector<float> h = evaluate_grid(compile(p), GridSpec{.width = 64, .height = 64});
  EXPECT_EQ(*std::min_element(h.begin(), h.end()), -0.125f);
  EXPECT_EQ(*std::max_element(h.begin(), h.end()), 0.25f);
}

TEST(Nodes, PowIsOddAndAccurate) {
  EXPECT_EQ(value_of(R"("out": {"type": "pow", "input": -0.5, "exponent": 2})"), -0.25f);
  EXPECT_EQ(value_of(R"("out": {"type": "pow", "input": 0.5, "exponent": 3})"), 0.125f);
  EXPECT_EQ(value_of(R"("out": {"type": "pow", "input": 0.25, "exponent": 0.5})"), 0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "pow", "input": 0, "exponent": 2.5})"), 0.0f);
  for (double x : {0.001, 0.1, 0.3, 0.77, 0.999}) {
    for (double e : {0.3, 1.7, 2.2, 4.5, 9.0}) {
      const std::string nodes = R"("out": {"type": "pow", "input": )" + std::to_string(x) +
                                R"(, "exponent": )" + std::to_string(e) + "}";
      const double want = std::pow(double(float(x)), double(float(e)));
      EXPECT_NEAR(value_of(nodes), want, 2e-6 + want * 2e-6) << x << "^" << e;
      const std::string neg = R"("out": {"type": "pow", "input": -)" + std::to_string(x) +
                              R"(, "exponent": )" + std::to_string(e) + "}";
      EXPECT_NEAR(value_of(neg), -want, 2e-6 + want * 2e-6) << "-" << x << "^" << e;
    }
  }
}

TEST(Nodes, BlendAndSelect) {
  EXPECT_EQ(value_of(R"("out": {"type": "blend", "a": -0.5, "b": 0.5, "t": 0.25})"), -0.25f);
  EXPECT_EQ(value_of(R"("out": {"type": "blend", "a": -0.5, "b": 0.375, "t": 4})"), 0.375f);
  EXPECT_EQ(value_of(R"("out": {"type": "blend", "a": -0.5, "b": 0.375, "t": -4})"), -0.5f);
  const char* sel = R"("out": {"type": "select", "a": -0.25, "b": 0.75, "mask": %s,
                                "threshold": 0.2, "falloff": 0.1})";
  auto select_at = [&](const char* mask) {
    char buf[256];
    std::snprintf(buf, sizeof buf, sel, mask);
    return value_of(buf);
  };
  EXPECT_EQ(select_at("-0.9"), -0.25f);
  EXPECT_EQ(select_at("0.05"), -0.25f);
  EXPECT_EQ(select_at("0.35"), 0.75f);
  EXPECT_EQ(select_at("0.9"), 0.75f);
  EXPECT_NEAR(select_at("0.2"), 0.25f, 1e-6);  // smoothstep midpoint: halfway
  const float between = select_at("0.15");
  EXPECT_GT(between, -0.25f);
  EXPECT_LT(between, 0.25f);
  // Hard switch without falloff.
  EXPECT_EQ(value_of(R"("out": {"type": "select", "a": 0.1, "b": 0.9, "mask": 0.5,
                                 "threshold": 0.5})"),
            0.9f);
}

TEST(Nodes, CurvePassesThroughPoints) {
  const double pts[][2] = {{-1.0, -0.8}, {-0.2, -0.5}, {0.3, 0.1}, {1.0, 0.9}};
  for (const auto& pt : pts) {
    const std::string nodes = R"("out": {"type": "curve", "input": )" + std::to_string(pt[0]) +
                              R"(, "points": [[-1, -0.8], [-0.2, -0.5], [0.3, 0.1], [1, 0.9]]})";
    EXPECT_NEAR(value_of(nodes), pt[1], 1e-6);
  }
  // Identity by default.
  EXPECT_NEAR(value_of(R"("out": {"type": "curve", "input": 0.4})"), 0.4, 1e-6);
}

TEST(Nodes, RemapEndpointsAndClamp) {
  EXPECT_EQ(value_of(R"("out": {"type": "remap", "input": -1, "from": [-1, 1], "to": [0, 0.5]})"),
            0.0f);
  EXPECT_EQ(value_of(R"("out": {"type": "remap", "input": 1, "from": [-1, 1], "to": [0, 0.5]})"),
            0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "remap", "input": 0.5, "from": [0, 1], "to": [1, -1]})"),
            0.0f);
  EXPECT_EQ(value_of(R"("out": {"type": "remap", "input": 3, "from": [0, 1], "to": [0, 0.5],
                                 "clamp": true})"),
            0.5f);
  EXPECT_EQ(value_of(R"("out": {"type": "remap", "input": 0.75, "from": [0, 1], "to": [0, 0.5]})"),
            0.375f);
}

TEST(Nodes, TerraceMakesPlateaus) {
  const Preset p = parse_preset(
      unit_preset(R"("n": {"type": "fbm", "noise": "perlin", "frequency": 0.03, "octaves": 2},
                     "out": {"type": "terrace", "input": "n", "levels": [-1, -0.5, 0, 0.5, 1],
                             "sharpness": 0.8})"),
      "terrace.json");
  const std::vector<float> h = evaluate_grid(compile(p), GridSpec{.width = 128, .height = 128});
  std::size_t on_level = 0;
  for (float v : h) {
    if (v == -0.5f || v == 0.0f || v == 0.5f) ++on_level;
  }
  // With sharpness 0.8, about 80% of samples sit exactly on a plateau.
  EXPECT_GT(on_level, h.size() / 2);
  // Plain values: on a plateau, and on a ramp between two levels.
  EXPECT_EQ(value_of(R"("out": {"type": "terrace", "input": 0.1, "steps": 5, "sharpness": 0.5})"),
            0.0f);
  const float ramp =
      value_of(R"("out": {"type": "terrace", "input": 0.4, "steps": 5, "sharpness": 0.5})");
  EXPECT_GT(ramp, 0.0f);
  EXPECT_LT(ramp, 0.5f);
}

TEST(Nodes, RadialFalloffIsOneInsideZeroFarAway) {
  const std::string nodes =
      R"("out": {"type": "radial_falloff", "center_x_m": 100, "center_z_m": -50,
                 "radius_m": 20, "falloff_m": 30})";
  EXPECT_EQ(value_of(nodes, 100.0, -50.0), 1.0f);
  EXPECT_EQ(value_of(nodes, 110.0, -50.0), 1.0f);
  EXPECT_EQ(value_of(nodes, 100.0, 0.0), 0.0f);
  EXPECT_EQ(value_of(nodes, 1e6, 1e6), 0.0f);
  const float edge = value_of(nodes, 135.0, -50.0);  // halfway through the falloff
  EXPECT_FLOAT_EQ(edge, 0.5f);
  // Defaults: centred on the default map of the world (size 65, 1 m cells: centre 32, 32).
  EXPECT_EQ(value_of(R"("out": {"type": "radial_falloff"})", 32.0, 32.0), 1.0f);
  EXPECT_EQ(value_of(R"("out": {"type": "radial_falloff"})", 0.0, 0.0), 0.0f);
}

TEST(Nodes, NoiseShorthandEqualsExplicitFractal) {
  const float a = value_of(
      R"("out": {"type": "ridged", "noise": "perlin", "frequency": 0.02, "seed": 9})", 12.5, 7.0);
  const float b = value_of(
      R"("out": {"type": "perlin", "fractal": "ridged", "frequency": 0.02, "seed": 9})", 12.5, 7.0);
  EXPECT_EQ(a, b);
  NoiseParams np;
  np.type = NoiseType::perlin;
  np.fractal = FractalType::ridged;
  np.frequency = 0.02;
  np.seed = hash_combine(5, 9);  // preset seed 5 (unit_preset), node seed 9
  const float v = std::clamp(noise_at(np, 12.5, 7.0), -1.0f, 1.0f);
  EXPECT_EQ(a, -1.0f + ((v + 1.0f) * 0.5f) * 2.0f);
}

TEST(Nodes, NodesWithoutSeedDiffer) {
  const Preset p = parse_preset(unit_preset(R"("a": {"type": "perlin", "frequency": 0.05},
                     "b": {"type": "perlin", "frequency": 0.05},
                     "out": {"type": "sub", "a": "a", "b": "b"})"),
                                "seeds.json");
  const std::vector<float> h = evaluate_grid(compile(p), GridSpec{.width = 32, .height = 32});
  EXPECT_GT(*std::max_element(h.begin(), h.end()), 0.05f);
}

TEST(Nodes, WarpMatchesNoiseFillWarpedAndNests) {
  const Preset p = parse_preset(unit_preset(R"("n": {"type": "value", "frequency": 0.03, "seed": 4},
                     "out": {"type": "warp", "source": "n", "basis": "perlin",
                             "frequency": 0.01, "amplitude_m": 25, "seed": 8})"),
                                "warp.json");
  const GridSpec grid{.width = 50, .height = 20, .spacing_m = 2.0, .origin_x_m = -30.0};
  const std::vector<float> h = evaluate_grid(compile(p), grid);
  NoiseParams np;
  np.type = NoiseType::value;
  np.frequency = 0.03;
  np.seed = hash_combine(5, 4);
  WarpParams wp;
  wp.basis = NoiseType::perlin;
  wp.frequency = 0.01;
  wp.amplitude_m = 25.0;
  wp.seed = hash_combine(5, 8);
  std::vector<float> want(grid.sample_count());
  noise_fill_warped(np, wp, grid, want);
  for (float& v : want) v = -1.0f + ((v + 1.0f) * 0.5f) * 2.0f;
  EXPECT_EQ(h, want);

  // A warp of a warp differs from the single warp, and a sub-graph used inside and outside a
  // warp is evaluated at both positions.
  const Preset nested =
      parse_preset(unit_preset(R"("n": {"type": "value", "frequency": 0.03, "seed": 4},
                     "w1": {"type": "warp", "source": "n", "basis": "perlin",
                            "frequency": 0.01, "amplitude_m": 25, "seed": 8},
                     "w2": {"type": "warp", "source": "w1", "basis": "perlin",
                            "frequency": 0.02, "amplitude_m": 10, "seed": 3},
                     "out": {"type": "sub", "a": "w2", "b": "n"})"),
                   "nested.json");
  const CompiledGraph g = compile(nested);
  EXPECT_EQ(g.program().warps.size(), 2u);
  const std::vector<float> hn = evaluate_grid(g, grid);
  EXPECT_NE(hn, h);
  EXPECT_GT(*std::max_element(hn.begin(), hn.end()), 0.01f);
}

}  // namespace
}  // namespace terrane

namespace terrane {
namespace {

// ---------------------------------------------------------------------------------------------
// Input nodes (per-sample fields supplied to evaluate(); used by post "graph" operations)

const std::string_view kAB[] = {"a", "b"};

// a * 2 + b - noise * 0, read through input nodes, compiled with inputs a and b.
CompiledGraph compile_ab(OutputMapping mapping = OutputMapping::identity) {
  const Graph g = parse_graph_section(
      R"({"output": "out", "nodes": {"x": {"type": "input", "name": "a"},
          "y": {"type": "input", "name": "b"}, "x2": {"type": "scale_bias", "input": "x", "scale": 2},
          "out": {"type": "add", "inputs": ["x2", "y", "x"]}}})",
      WorldSettings{}, "test", "post[0]");
  EXPECT_EQ(g.path, "post[0]");
  return compile(g, WorldSettings{}, 1, "test", kAB, mapping);
}

std::string compile_error(const Graph& g, std::span<const std::string_view> inputs) {
  try {
    (void)compile(g, WorldSettings{}, 1, "test", inputs);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an Error";
  return "";
}

TEST(Inputs, EvaluateReadsTheGivenFieldsPerSample) {
  const CompiledGraph cg = compile_ab();
  EXPECT_EQ(cg.required_inputs(), (std::vector<std::string>{"a", "b"}));
  const GridSpec grid{.width = 700, .height = 9, .spacing_m = 3.0};  // rows span 2 blocks
  std::vector<float> a(grid.sample_count()), b(grid.sample_count());
  for (std::size_t c = 0; c < a.size(); ++c) {
    a[c] = float(c) * 0.37f - 100.0f;
    b[c] = float(c % 11) * 1e3f;
  }
  const InputField fields[] = {{"b", b}, {"unused", {}}, {"a", a}};
  std::vector<float> one(grid.sample_count()), two(grid.sample_count()), four(grid.sample_count());
  evaluate(cg, grid, one, ExecContext{.threads = 1}, fields);
  evaluate(cg, grid, two, ExecContext{.threads = 2}, fields);
  evaluate(cg, grid, four, ExecContext{.threads = 4}, fields);
  for (std::size_t c = 0; c < a.size(); ++c) {
    const float expected = (a[c] * 2.0f + 0.0f) + b[c] + a[c];  // no clamp, no height mapping
    ASSERT_EQ(std::memcmp(&one[c], &expected, sizeof(float)), 0) << c;
  }
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(one.data(), four.data(), one.size() * sizeof(float)), 0);

  // With the world mapping the output is clamped to [-1, 1] and mapped to metres as usual.
  const CompiledGraph mapped = compile_ab(OutputMapping::world_heights);
  std::vector<float> h(grid.sample_count());
  evaluate(mapped, grid, h, {}, fields);
  const WorldSettings w;
  EXPECT_EQ(h[0], float(w.height_min_m));  // a = -100: clamped to -1
}

// pow's definition (docs/PRESETS.md) one sample at a time, with branches and the C library's
// floor: the reference that the graph's branch-free rows must give bit for bit.
float pow_reference(float a, float e) {
  float x = std::fabs(a);
  if (x == 0.0f) return 0.0f;
  int exponent = 0;
  if (x < 1.17549435e-38f) {
    x = x * 16777216.0f;
    exponent = -24;
  }
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  exponent += int((bits >> 23) & 0xFFu) - 127;
  float m = std::bit_cast<float>((bits & 0x007FFFFFu) | 0x3F800000u);
  if (m > 1.41421356f) {
    m = m * 0.5f;
    exponent += 1;
  }
  const float t = (m - 1.0f) / (m + 1.0f);
  const float t2 = t * t;
  const float series =
      1.0f + t2 * (1.0f / 3.0f + t2 * (1.0f / 5.0f + t2 * (1.0f / 7.0f + t2 * (1.0f / 9.0f))));
  float y = e * (float(exponent) + (2.0f * t * series) * 1.44269504f);
  y = y < -126.0f ? -126.0f : (y > 127.0f ? 127.0f : y);
  const float n = std::floor(y + 0.5f);
  const float g = (y - n) * 0.693147181f;
  const float p =
      1.0f + g * (1.0f + g * (0.5f + g * (1.0f / 6.0f +
                                          g * (1.0f / 24.0f +
                                               g * (1.0f / 120.0f +
                                                    g * (1.0f / 720.0f + g * (1.0f / 5040.0f)))))));
  return std::copysign(p * std::bit_cast<float>(std::uint32_t(int(n) + 127) << 23), a);
}

// Every 65521st float bit pattern (both signs, subnormals, infinities, NaNs), the edges of the
// evaluation's cases and every power of two, through a pow node on every SIMD target.
TEST(Nodes, PowRowsAreTheScalarDefinitionBitForBit) {
  std::vector<float> a;
  for (std::uint64_t u = 0; u < (std::uint64_t(1) << 32); u += 65521) {
    a.push_back(std::bit_cast<float>(std::uint32_t(u)));
  }
  for (std::uint32_t u : {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00800000u,
                          0x3F800000u, 0x3FB504F3u, 0x3FB504F4u, 0xBFB504F5u, 0x7F7FFFFFu,
                          0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFFFFFFFu}) {
    a.push_back(std::bit_cast<float>(u));
  }
  // Powers of two have log2 |a| exact, so with e = 1.5 or 2.5 half of them put y + 0.5 on an
  // integer, where floor and truncation meet.
  for (int k = -149; k <= 127; ++k) {
    a.push_back(std::ldexp(1.0f, k));
    a.push_back(-std::ldexp(1.0f, k));
  }
  while (a.size() % 1024 != 0) a.push_back(float(a.size()) * -0.0137f);
  const GridSpec grid{.width = 1024, .height = int(a.size() / 1024), .spacing_m = 1.0};
  const std::string_view names[] = {"a"};
  const InputField fields[] = {{"a", a}};
  for (double e : {0.8, 0.3, 1.5, 1.7, 2.2, 2.5, 4.5, 16.0, 1e-3}) {
    const Graph g = parse_graph_section(
        R"({"output": "out", "nodes": {"x": {"type": "input", "name": "a"},
            "out": {"type": "pow", "input": "x", "exponent": )" +
            std::to_string(e) + "}}}",
        WorldSettings{}, "test", "post[0]");
    const CompiledGraph cg = compile(g, WorldSettings{}, 1, "test", names, OutputMapping::identity);
    const float ef = float(std::stod(std::to_string(e)));
    for (SimdTarget t : supported_simd_targets()) {
      std::vector<float> out(a.size());
      evaluate(cg, grid, out, ExecContext{.threads = 2, .simd = t}, fields);
      for (std::size_t c = 0; c < a.size(); ++c) {
        const float want = pow_reference(a[c], ef);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(out[c]), std::bit_cast<std::uint32_t>(want))
            << std::hex << std::bit_cast<std::uint32_t>(a[c]) << "^" << e << " on " << to_string(t);
      }
    }
  }
}

TEST(Inputs, EvaluateRejectsMissingWrongSizeAndDuplicateInputs) {
  const CompiledGraph cg = compile_ab();
  const GridSpec grid{.width = 4, .height = 3, .spacing_m = 1.0};
  std::vector<float> out(12), ok(12, 1.0f), small(11, 1.0f);
  auto message = [&](std::span<const InputField> fields) {
    try {
      evaluate(cg, grid, out, {}, fields);
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
      return std::string(e.what());
    }
    ADD_FAILURE() << "expected an Error";
    return std::string();
  };
  EXPECT_EQ(message({}), "evaluate: the graph reads input 'a', which was not given (given: none)");
  const InputField only_b[] = {{"b", ok}};
  EXPECT_EQ(message(only_b), "evaluate: the graph reads input 'a', which was not given (given: b)");
  const InputField short_a[] = {{"a", small}, {"b", ok}};
  EXPECT_EQ(message(short_a), "evaluate: input 'a' has 11 floats, the grid needs 12");
  const InputField twice[] = {{"a", ok}, {"b", ok}, {"a", ok}};
  EXPECT_EQ(message(twice), "evaluate: input 'a' is given more than once");
  try {
    (void)evaluate_at(cg, 0.0, 0.0);
    ADD_FAILURE() << "evaluate_at of a graph with inputs must fail";
  } catch (const Error& e) {
    expect_contains(e.what(), {"input 'a'", "not given"});
  }
}

TEST(Inputs, NamesAreCheckedWhenCompiling) {
  const Graph g =
      parse_graph_section(R"({"output": "o", "nodes": {"o": {"type": "input", "name": "hieght"}}})",
                          WorldSettings{}, "test", "post[3]");
  const std::string_view names[] = {"height", "river"};
  EXPECT_EQ(compile_error(g, names),
            "test: post[3].nodes.o.name: unknown input 'hieght' (did you mean 'height'?); "
            "available inputs: height, river");
  const std::string_view far[] = {"x"};
  EXPECT_EQ(compile_error(g, far),
            "test: post[3].nodes.o.name: unknown input 'hieght'; available inputs: x");
  // No inputs in this context (a preset's own graph): a precise message.
  expect_contains(compile_error(g, {}),
                  {"test: post[3].nodes.o.name: input 'hieght' is not available",
                   "only in a post \"graph\" operation"});
  // An unused (unreachable) input node is checked too.
  const Graph unused = parse_graph_section(
      R"({"output": "o", "nodes": {"o": {"type": "constant"}, "u": {"type": "input", "name": "zz"}}})",
      WorldSettings{}, "test", "graph");
  expect_contains(compile_error(unused, names), {"test: graph.nodes.u.name: unknown input 'zz'"});
  const std::string_view zz[] = {"zz"};
  EXPECT_EQ(compile(unused, WorldSettings{}, 1, "test", zz).instruction_count(), 0u);
}

TEST(Inputs, InputNodeInThePresetGraphIsAnError) {
  EXPECT_EQ(error_of(unit_preset(R"("h": {"type": "input", "name": "height"},
                                    "out": {"type": "abs", "input": "h"})")),
            "bad.json: graph.nodes.h: an 'input' node reads a field computed after the graph "
            "(height, river, ...); inputs exist only in a post \"graph\" operation, not in the "
            "preset's graph (see docs/PRESETS.md)");
  expect_contains(error_of(unit_preset(R"("out": {"type": "input"})")),
                  {"bad.json: graph.nodes.out.name: missing required field 'name'"});
  expect_contains(error_of(unit_preset(R"("out": {"type": "input", "name": 3})")),
                  {"bad.json: graph.nodes.out.name: expected a string, got integer 3"});
  expect_contains(error_of(unit_preset(R"("out": {"type": "input", "name": "h", "value": 1})")),
                  {"bad.json: graph.nodes.out.value: unknown key 'value'",
                   "allowed keys: type, "
                   "comment, name"});
  // Malformed section text and a non-object section.
  try {
    (void)parse_graph_section("[1]", WorldSettings{}, "test", "post[0]");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "test: post[0]: expected an object {\"output\": id, \"nodes\": {...}}, got array [1]");
  }
}

}  // namespace
}  // namespace terrane
