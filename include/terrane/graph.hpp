// terrane graph: a validated generator graph -> compiled program evaluated on grids. Presets
// (JSON) are parsed into a Graph by the preset module (terrane/preset.hpp); the format is
// documented field by field in docs/PRESETS.md.
//
// A preset is a pure description of a world: the height at (x, z) is a function of the preset
// (after --set overrides), its seed and the coordinates only (docs/DESIGN.md §1).
//
// Output mapping: the graph's output node yields v, clamped to [-1, 1], and the height is
//   h_m = height_min_m + (v + 1) / 2 * (height_max_m - height_min_m),
// computed in float with exactly that operation order.
// (A graph compiled with OutputMapping::identity, as a post "graph" operation is, writes v.)
//
// Inputs: `input` nodes read named per-sample fields that the caller passes to evaluate()
// (InputField). compile() is told which names exist in its context; a preset's own graph has
// none, a post "graph" operation (erosion.hpp) has the hydrology of the current heights.
//
// Determinism: evaluation is bit-identical for every thread count, every SIMD target and any
// split of a grid into sub-rectangles (GridSpec::sub): every node is pointwise, noise comes
// from NoiseGridSampler / WarpGridSampler (which guarantee it for noise) and all arithmetic is
// plain IEEE float with a fixed operation order (no std::pow / exp / log per sample).
//
// Threading: parsing and compiling are reentrant; a CompiledGraph is immutable and may be
// evaluated from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/curve.hpp"
#include "terrane/noise.hpp"
#include "terrane/schema.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Preset data

// The "world" section of a preset: how the graph's output becomes a map.
struct WorldSettings {
  double cell_size_m = 1.0;      // distance between samples [Units: m] [Limit: (0, 10000]]
  double height_min_m = -100.0;  // height of output -1 [Units: m] [Limit: finite, |h| <= 1e6]
  double height_max_m = 900.0;   // height of output +1 [Units: m] [Limit: > height_min_m, <= 1e6]
  double sea_level_m = 0.0;      // metadata for later stages [Units: m] [Limit: finite]
  int size = 1025;               // default map size, samples per side [Limit: 1..65536]
  // Colour ramp of the preview picture: "temperate" (greens, rock, snow) or "arid" (sand,
  // ochre, red rock). Biomes (surface module) supersede it for real materials.
  std::string preview_palette = "temperate";

  // Schema table (terrane/schema.hpp): the keys of the "world" section and their limits.
  static std::span<const Field<WorldSettings>> fields();
  // Throws Error(invalid_argument) naming `path` + field, the value and the allowed range.
  void validate(std::string_view path = "world") const;
};

// The kind of computation a node performs (the JSON "type" may be a more specific name, e.g.
// "ridged" is NodeKind::noise with FractalType::ridged).
enum class NodeKind {
  noise,           // perlin, opensimplex2, opensimplex2s, value, value_cubic, cellular,
                   // fbm, ridged, billow, pingpong
  warp,            // evaluates inputs[0]'s sub-graph at domain-warped positions
  constant,        // value
  add,             // inputs[0] + inputs[1] + ... (left to right)
  sub,             // inputs[0] - inputs[1]
  mul,             // inputs[0] * inputs[1] * ...
  min,             // min over inputs
  max,             // max over inputs
  abs,             // |inputs[0]|
  neg,             // -inputs[0]
  clamp,           // clamp(inputs[0], lo, hi)
  scale_bias,      // inputs[0] * scale + bias
  pow,             // sign(x) * |x|^exponent (see docs/PRESETS.md for the exact evaluation)
  blend,           // a + (b - a) * clamp(t, 0, 1); inputs a, b, t
  select,          // a below threshold - falloff, b above threshold + falloff, smoothstep between
  curve,           // MonotoneCurve through points
  terrace,         // plateaus at levels, smoothstep ramps between them
  radial_falloff,  // 1 inside radius_m of the centre, smoothstep to 0 at radius_m + falloff_m
  remap,           // linear map from [from_lo, from_hi] to [to_lo, to_hi], optional clamp
  input,           // the per-sample field `input_name` supplied to evaluate() (InputField);
                   // only where the compiler is told the name exists (a post "graph" operation,
                   // a voxel density graph)
  y,               // the sample's world height y in metres: only in a volume graph (a voxel
                   // density, compile_volume)
};

const char* to_string(NodeKind k);

// A scalar input: another node (node >= 0, an index into Graph::nodes) or a constant.
struct NodeInput {
  int node = -1;
  double constant = 0.0;  // used when node < 0
};

// One node. Only the fields of its kind are meaningful; defaults are those of docs/PRESETS.md.
struct GraphNode {
  std::string id;    // unique, [A-Za-z0-9_-]+
  std::string type;  // the JSON type name, for messages
  NodeKind kind = NodeKind::constant;
  std::vector<NodeInput> inputs;  // order as listed in NodeKind

  // noise: seed is the node's seed offset; compile() uses hash_combine(preset_seed, seed).
  NoiseParams noise;
  // warp: same seed convention as noise.
  WarpParams warp;

  double value = 0.0;                         // constant
  double lo = -1.0, hi = 1.0;                 // clamp
  double scale = 1.0, bias = 0.0;             // scale_bias
  double exponent = 1.0;                      // pow [Limit: (0, 16]]
  double threshold = 0.0;                     // select
  double falloff = 0.0;                       // select [Limit: [0, 1e6]]
  std::vector<CurvePoint> points;             // curve (>= 2, strictly increasing x)
  std::vector<double> levels;                 // terrace (>= 2, strictly increasing)
  double sharpness = 0.5;                     // terrace: plateau fraction [Limit: [0, 0.99]]
  double center_x_m = 0.0, center_z_m = 0.0;  // radial_falloff [Units: m]
  double radius_m = 0.0, falloff_m = 0.0;     // radial_falloff [Units: m] [Limit: >= 0]
  double from_lo = -1.0, from_hi = 1.0;       // remap (from_lo != from_hi)
  double to_lo = 0.0, to_hi = 1.0;            // remap
  bool clamp_output = false;                  // remap
  std::string input_name;                     // input: name of the field (non-empty)
};

struct Graph {
  std::vector<GraphNode> nodes;
  int output = -1;  // index of the output node
  // JSON path of the section the graph was read from, for messages: "graph" for a preset's
  // graph, "post[2]" for a post "graph" operation (its nodes are then post[2].nodes.<id>).
  std::string path = "graph";

  // Checks references, the output, parameter ranges and that the graph is acyclic; messages
  // start with `source` and name the JSON path (<path>.nodes.<id>.<field>). Throws Error.
  void validate(std::string_view source = "graph") const;
};

// A preset's generator as the modules below `preset` see it (erosion's post operations,
// surface's climate sources, the world's chunks): the graph, the world settings it maps to metres,
// the world seed, and the preset's name for messages. Preset::generator() (preset.hpp) makes one.
struct GraphSource {
  const Graph* graph = nullptr;  // not owned; outlives the GraphSource
  WorldSettings world;
  std::uint64_t seed = 1;
  std::string source;  // "builtin preset 'alpine'" or the file path
};

// ---------------------------------------------------------------------------------------------
// Compiling and evaluating

// A graph compiled into a flat program over register buffers. Grid-independent: evaluate()
// prepares the noise samplers for each grid. Immutable; evaluate() may run concurrently.
class CompiledGraph {
 public:
  struct Program;  // internal (src/graph/program.hpp)

  CompiledGraph();
  explicit CompiledGraph(std::unique_ptr<Program> program);
  ~CompiledGraph();
  CompiledGraph(CompiledGraph&&) noexcept;
  CompiledGraph& operator=(CompiledGraph&&) noexcept;

  const Program& program() const;
  const WorldSettings& world() const;
  // Instructions per sample block (nodes are instantiated once per warp context they run in).
  std::size_t instruction_count() const;
  // Names of the input fields the program reads (each once, in first-use order); evaluate()
  // needs an InputField for each.
  const std::vector<std::string>& required_inputs() const;

 private:
  std::unique_ptr<Program> program_;
};

// Largest program compile() builds (nested warps instantiate shared sub-graphs once per
// context; this caps pathological presets).
inline constexpr std::size_t kMaxGraphInstructions = 4096;

// How evaluate() turns the output node's value v into the value it writes.
enum class OutputMapping {
  world_heights,  // clamp v to [-1, 1], then map to [height_min_m, height_max_m] (see the top)
  identity,       // write v as it is (a post "graph" operation's output is already metres)
};

// Validates and compiles. Noise seeds are hash_combine(seed, node seed).
// `inputs` names the per-sample fields that input nodes may read in this context (evaluate()
// must then be given every one the graph uses); empty for a preset's own graph, whose input
// nodes are errors. An unknown name is an Error naming the node's JSON path, the available
// names and the closest one. Throws Error.
CompiledGraph compile(const Graph& graph, const WorldSettings& world, std::uint64_t seed,
                      std::string_view source = "graph",
                      std::span<const std::string_view> inputs = {},
                      OutputMapping mapping = OutputMapping::world_heights);
CompiledGraph compile(const GraphSource& source);

// The world's default map: size x size samples at cell_size_m spacing, origin (0, 0).
GridSpec default_grid(const WorldSettings& world);

// One per-sample field read by input nodes: `values` has one float per grid sample, row-major
// (grid.sample_count() of them). The caller keeps the storage alive during evaluate().
struct InputField {
  std::string_view name;
  std::span<const float> values;
};

// Fills heights_m (row-major, grid.sample_count() floats) with the height in metres at every
// sample (with OutputMapping::identity: the output node's value). Parallel over rows on
// ctx.threads workers; the result never depends on the thread count or on how a region is
// split into sub-grids (input fields are per sample of `grid`, so they follow the split).
// `inputs` must hold every name of required_inputs() (extra fields are ignored, a name given
// twice is an error) with grid.sample_count() values each. Throws Error(invalid_argument) on an
// invalid grid or size, on a missing or wrongly sized input and for an unsupported ctx.simd,
// Error(cancelled) when ctx.cancel is set. Noise runs on ctx.simd's target.
void evaluate(const CompiledGraph& graph, const GridSpec& grid, std::span<float> heights_m,
              const ExecContext& ctx = {}, std::span<const InputField> inputs = {});

// The height in metres at one point: bit-identical to evaluate() at a grid sample with the
// same world coordinates. Convenience only (prepares samplers on every call; the process-wide
// SIMD target). Graphs with input nodes cannot be evaluated at a point (Error: the input is
// missing).
float evaluate_at(const CompiledGraph& graph, double x_m, double z_m);

// ---------------------------------------------------------------------------------------------
// Volume graphs (voxel densities)

// Compiles a graph evaluated over 3D grids (GridSpec3): its noise nodes are 3D noise at (x, y, z),
// its warp nodes displace all three coordinates (WarpVolumeSampler), `y` nodes read the sample's
// world y and input nodes read per-column fields (one value per (x, z) column, the same for every
// y: the 2D terrain's height_m, for instance). The output is written as it is (identity mapping).
// `inputs` names the fields available; others are errors as in compile(). A plane graph with a
// `y` node is an Error naming the node (compile() rejects it: a height field has no y).
CompiledGraph compile_volume(const Graph& graph, const WorldSettings& world, std::uint64_t seed,
                             std::string_view source = "graph",
                             std::span<const std::string_view> inputs = {});

// Fills out[(k * size_y + j) * size_x + i] with the graph's value at (x_m(i), y_m(j), z_m(k)).
// Input fields hold size_x * size_z values, [k * size_x + i]. Parallel over rows on ctx.threads
// workers; bit-identical for every thread count, SIMD target and split of the grid into
// sub-boxes (the value at a sample depends only on its world coordinates). Throws like
// evaluate(), and Error(invalid_argument) for a plane graph.
void evaluate_volume(const CompiledGraph& graph, const GridSpec3& grid, std::span<float> out,
                     const ExecContext& ctx = {}, std::span<const InputField> inputs = {});

}  // namespace terrane
