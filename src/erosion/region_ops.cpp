// A preset's "post" list: parsing, validation and application of region operations (erosion and
// blur after the graph). Parsing follows the graph module's preset conventions: unknown keys are
// errors with a "did you mean" hint, messages are "<source>: post[i].<key>: <what>".
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "erosion/erosion_internal.hpp"
#include "graph/json_fields.hpp"
#include "terrane/erosion.hpp"
#include "terrane/field.hpp"

namespace terrane {

namespace ed = erosion_detail;
using graph_detail::describe;
using graph_detail::JsonFields;
using json = nlohmann::json;

const char* to_string(RegionOpKind k) {
  switch (k) {
    case RegionOpKind::thermal: return "thermal";
    case RegionOpKind::droplets: return "droplets";
    case RegionOpKind::stream_power: return "stream_power";
    case RegionOpKind::blur: return "blur";
    case RegionOpKind::graph: return "graph";
  }
  return "?";
}

RegionOpKind parse_region_op_kind(std::string_view name) {
  for (RegionOpKind k : {RegionOpKind::thermal, RegionOpKind::droplets, RegionOpKind::stream_power,
                         RegionOpKind::blur, RegionOpKind::graph}) {
    if (name == to_string(k)) return k;
  }
  throw Error(ErrorCategory::invalid_argument,
              "unknown region operation '" + std::string(name) +
                  "' (allowed: thermal, droplets, stream_power, blur, graph)");
}

namespace {

constexpr std::string_view kPostGraphInputs[] = {
    "height", "drainage_area_m2", "flow", "river", "lake", "lake_depth_m", "sea", "water_level_m"};

CompiledGraph compile_post_graph(const Graph& graph, const Preset& preset) {
  return compile(graph, preset.world, preset.seed, preset.source, post_graph_input_names(),
                 OutputMapping::identity);
}

// The "output" and "nodes" of a graph operation, parsed and checked like the preset's graph
// (messages name "post[i].nodes.<id>..."); compiling once here reports unknown input names
// while parsing rather than when the operation runs.
Graph parse_post_graph(JsonFields& f, const Preset& preset, const std::string& path) {
  json section = json::object();
  if (const json* nodes = f.find("nodes")) section["nodes"] = *nodes;
  if (const json* output = f.find("output")) section["output"] = *output;
  Graph g = graph_detail::parse_graph(section, preset.world, preset.source, path);
  g.validate(preset.source);
  (void)compile_post_graph(g, preset);
  return g;
}

// The input field `name` (one of kPostGraphInputs) of the hydrology of `heights`.
void fill_post_graph_input(std::string_view name, const Field2D& heights, const Hydrology& hy,
                           std::vector<float>& out) {
  const std::size_t n = heights.data.size();
  out.resize(n);
  const float* h = heights.data.data();
  if (name == "height") {
    std::copy(h, h + n, out.begin());
  } else if (name == "drainage_area_m2") {
    std::copy(hy.drainage_area_m2.data.begin(), hy.drainage_area_m2.data.end(), out.begin());
  } else if (name == "flow") {
    for (std::size_t c = 0; c < n; ++c) {
      out[c] = float(std::log10(double(hy.drainage_area_m2.data[c])));
    }
  } else if (name == "river") {
    for (std::size_t c = 0; c < n; ++c) out[c] = hy.river[c] != 0 ? 1.0f : 0.0f;
  } else if (name == "lake") {
    for (std::size_t c = 0; c < n; ++c) out[c] = hy.lake_id[c] != kNoLake ? 1.0f : 0.0f;
  } else if (name == "lake_depth_m") {
    for (std::size_t c = 0; c < n; ++c) {
      out[c] = hy.lake_id[c] != kNoLake ? hy.water_level_m.data[c] - h[c] : 0.0f;
    }
  } else if (name == "sea") {
    for (std::size_t c = 0; c < n; ++c) out[c] = hy.sea[c] != 0 ? 1.0f : 0.0f;
  } else if (name == "water_level_m") {
    std::copy(hy.water_level_m.data.begin(), hy.water_level_m.data.end(), out.begin());
  } else {
    throw Error(ErrorCategory::internal, "post graph: no input field '" + std::string(name) + "'");
  }
}

void apply_post_graph(Field2D& heights, const Preset& preset, const RegionOp& op, std::size_t index,
                      const ExecContext& ctx) {
  const CompiledGraph cg = compile_post_graph(op.graph, preset);
  HydrologyParams hp = op.hydrology;
  hp.routing.use_sea_level = true;
  hp.routing.sea_level_m = preset.world.sea_level_m;
  Hydrology hy;
  compute_hydrology(heights, hp, hy, ctx);
  // Only the fields the graph reads are materialised (one float per cell each).
  const std::vector<std::string>& names = cg.required_inputs();
  std::vector<std::vector<float>> storage(names.size());
  std::vector<InputField> inputs;
  for (std::size_t k = 0; k < names.size(); ++k) {
    fill_post_graph_input(names[k], heights, hy, storage[k]);
    inputs.push_back(InputField{names[k], storage[k]});
  }
  Field2D out(heights.grid);
  evaluate(cg, heights.grid, out.data, ed::quiet(ctx), inputs);
  for (std::size_t c = 0; c < out.data.size(); ++c) {
    if (std::isfinite(out.data[c])) continue;
    const std::size_t w = std::size_t(heights.grid.width);
    throw Error(ErrorCategory::invalid_argument,
                preset.source + ": post[" + std::to_string(index) + "]: the graph's output is " +
                    std::to_string(out.data[c]) + " at sample (" + std::to_string(c % w) + ", " +
                    std::to_string(c / w) + "); heights must be finite");
  }
  heights.data.swap(out.data);
}

}  // namespace

std::span<const std::string_view> post_graph_input_names() {
  return kPostGraphInputs;
}

RegionOp default_region_op(RegionOpKind kind) {
  RegionOp op;
  op.kind = kind;
  return op;
}

std::vector<RegionOp> parse_region_ops(const Preset& preset) {
  json doc;
  try {
    doc = json::parse(preset.post_json);
  } catch (const json::exception& e) {
    throw Error(ErrorCategory::parse, preset.source + ": post: malformed JSON: " + e.what());
  }
  if (!doc.is_array()) JsonFields::fail(preset.source + ": post", "expected an array, got " + describe(doc));
  std::vector<RegionOp> ops;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string path = "post[" + std::to_string(i) + "]";
    const std::string where = preset.source + ": " + path;
    const json& obj = doc[i];
    if (!obj.is_object()) JsonFields::fail(where, "expected an object {\"op\": ...}, got " + describe(obj));
    auto op_it = obj.find("op");
    if (op_it == obj.end() || !op_it->is_string()) {
      JsonFields::fail(
          where + ".op",
          "missing or not a string (allowed: thermal, droplets, stream_power, blur, graph)");
    }
    RegionOp op;
    try {
      op.kind = parse_region_op_kind(op_it->get<std::string>());
    } catch (const Error& e) {
      JsonFields::fail(where + ".op", e.what());
    }
    JsonFields f(obj, where);
    f.find("op");
    const std::string vpath = preset.source + ": " + path;
    switch (op.kind) {
      case RegionOpKind::thermal: {
        ThermalParams& t = op.thermal;
        f.number("talus_deg", t.talus_deg);
        f.number("strength", t.strength);
        f.integer("iterations", t.iterations);
        f.finish("a 'thermal' operation");
        t.validate(vpath);
        break;
      }
      case RegionOpKind::droplets: {
        DropletParams& d = op.droplets;
        f.integer("droplets", d.droplets);
        f.integer("seed", d.seed);
        f.number("inertia", d.inertia);
        f.number("capacity", d.capacity);
        f.number("min_capacity", d.min_capacity);
        f.number("erode_speed", d.erode_speed);
        f.number("deposit_speed", d.deposit_speed);
        f.number("evaporation", d.evaporation);
        f.number("gravity", d.gravity);
        f.number("initial_water", d.initial_water);
        f.number("initial_speed", d.initial_speed);
        f.integer("max_lifetime", d.max_lifetime);
        f.number("brush_radius", d.brush_radius);
        f.number("height_unit_m", d.height_unit_m);
        f.number("reference_spacing_m", d.reference_spacing_m);
        f.number("border_falloff_m", d.border_falloff_m);
        f.finish("a 'droplets' operation");
        d.validate(vpath);
        break;
      }
      case RegionOpKind::stream_power: {
        StreamPowerParams& s = op.stream_power;
        f.number("uplift_m_per_yr", s.uplift_m_per_yr);
        f.number("erodibility", s.erodibility);
        f.number("m", s.m);
        f.number("n", s.n);
        f.number("diffusivity_m2_per_yr", s.diffusivity_m2_per_yr);
        f.number("dt_yr", s.dt_yr);
        f.integer("steps", s.steps);
        f.boolean("use_sea_level", s.routing.use_sea_level);
        f.number("sea_level_m", s.routing.sea_level_m);
        f.string("uplift_node", op.uplift_node);
        f.finish("a 'stream_power' operation");
        s.validate(vpath);
        if (!op.uplift_node.empty()) {
          const auto& nodes = preset.graph.nodes;
          if (std::none_of(nodes.begin(), nodes.end(),
                           [&](const GraphNode& n) { return n.id == op.uplift_node; })) {
            JsonFields::fail(where + ".uplift_node", "'" + op.uplift_node + "' is not a node of the graph");
          }
        }
        break;
      }
      case RegionOpKind::blur:
        f.number("sigma_m", op.blur_sigma_m);
        f.finish("a 'blur' operation");
        ed::check_range(vpath, "sigma_m", op.blur_sigma_m, 0.0, 1e4);
        break;
      case RegionOpKind::graph:
        op.graph = parse_post_graph(f, preset, path);
        f.number("river_area_m2", op.hydrology.river_area_m2);
        f.number("min_lake_depth_m", op.hydrology.min_lake_depth_m);
        f.finish("a 'graph' operation");
        op.hydrology.validate(vpath);
        break;
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

void apply_region_ops(Field2D& heights, const Preset& preset, const std::vector<RegionOp>& ops,
                      const ExecContext& ctx) {
  const double n = double(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const RegionOp& op = ops[k];
    ExecContext sub = ed::quiet(ctx);
    if (ctx.progress) {
      sub.progress = [&ctx, k, n](double f) { ctx.progress((double(k) + f) / n); };
    }
    switch (op.kind) {
      case RegionOpKind::thermal:
        thermal_erosion(heights, op.thermal, sub);
        break;
      case RegionOpKind::droplets: {
        DropletParams d = op.droplets;
        d.seed = hash_combine(preset.seed, d.seed);
        droplet_erosion(heights, d, sub);
        break;
      }
      case RegionOpKind::stream_power: {
        if (op.uplift_node.empty()) {
          stream_power(heights, op.stream_power, nullptr, sub);
          break;
        }
        Graph g = preset.graph;
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
          if (g.nodes[i].id == op.uplift_node) g.output = int(i);
        }
        const CompiledGraph cg = compile(g, preset.world, preset.seed, preset.source);
        // evaluate() maps the node's output v to world heights; undo that linear map to recover
        // (v + 1) / 2 in [0, 1].
        Field2D uplift(heights.grid);
        evaluate(cg, heights.grid, uplift.data, ed::quiet(ctx));
        const double lo = preset.world.height_min_m, span = preset.world.height_max_m - lo;
        for (float& u : uplift.data) u = float(std::clamp((double(u) - lo) / span, 0.0, 1.0));
        stream_power(heights, op.stream_power, &uplift, sub);
        break;
      }
      case RegionOpKind::blur: {
        Field2D out;
        gaussian_blur(heights, op.blur_sigma_m, out, sub);
        heights.data.swap(out.data);
        break;
      }
      case RegionOpKind::graph:
        apply_post_graph(heights, preset, op, k, sub);
        break;
    }
    if (ctx.progress) ctx.progress(double(k + 1) / n);
  }
}

}  // namespace terrane
