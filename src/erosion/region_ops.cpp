// Region operations of a preset's "post" list (erosion, blur, graph after the graph): their
// schema tables and their application. The preset module parses the list (preset.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"
#include "terrane/field.hpp"

namespace terrane {

namespace ed = erosion_detail;

const char* to_string(RegionOpKind k) {
  switch (k) {
    case RegionOpKind::thermal:
      return "thermal";
    case RegionOpKind::droplets:
      return "droplets";
    case RegionOpKind::stream_power:
      return "stream_power";
    case RegionOpKind::blur:
      return "blur";
    case RegionOpKind::graph:
      return "graph";
    case RegionOpKind::breach:
      return "breach";
  }
  return "?";
}

RegionOpKind parse_region_op_kind(std::string_view name) {
  for (RegionOpKind k : {RegionOpKind::thermal, RegionOpKind::droplets, RegionOpKind::stream_power,
                         RegionOpKind::blur, RegionOpKind::graph, RegionOpKind::breach}) {
    if (name == to_string(k)) return k;
  }
  throw Error(ErrorCategory::invalid_argument,
              "unknown region operation '" + std::string(name) +
                  "' (allowed: thermal, droplets, stream_power, blur, graph, breach)");
}

namespace {

constexpr std::string_view kPostGraphInputs[] = {
    "height", "drainage_area_m2", "flow", "river", "lake", "lake_depth_m", "sea", "water_level_m"};

CompiledGraph compile_post_graph(const Graph& graph, const GraphSource& gen) {
  return compile(graph, gen.world, gen.seed, gen.source, post_graph_input_names(),
                 OutputMapping::identity);
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

void apply_post_graph(Field2D& heights, const GraphSource& gen, const RegionOp& op,
                      std::size_t index, const ExecContext& ctx) {
  const CompiledGraph cg = compile_post_graph(op.graph, gen);
  HydrologyParams hp = op.hydrology;
  hp.routing.use_sea_level = true;
  hp.routing.sea_level_m = gen.world.sea_level_m;
  // Only the fields the graph reads are materialised (one float per cell each); the routing is
  // never one of them, the drainage area, lake ids and sea flags only for their inputs.
  const std::vector<std::string>& names = cg.required_inputs();
  const auto reads = [&names](std::string_view a, std::string_view b = {}) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& name) { return name == a || name == b; });
  };
  HydrologyParts keep;
  keep.routing = false;
  keep.drainage_area = reads("drainage_area_m2", "flow");
  keep.lake_ids = reads("lake", "lake_depth_m");
  keep.sea = reads("sea");
  Hydrology hy;
  compute_hydrology(heights, hp, hy, ctx, keep);
  std::vector<std::vector<float>> storage(names.size());
  std::vector<InputField> inputs;
  for (std::size_t k = 0; k < names.size(); ++k) {
    fill_post_graph_input(names[k], heights, hy, storage[k]);
    inputs.push_back(InputField{names[k], storage[k]});
  }
  Field2D out(heights.grid, ctx);
  evaluate(cg, heights.grid, out.data, ed::quiet(ctx), inputs);
  for (std::size_t c = 0; c < out.data.size(); ++c) {
    if (std::isfinite(out.data[c])) continue;
    const std::size_t w = std::size_t(heights.grid.width);
    throw Error(ErrorCategory::invalid_argument,
                gen.source + ": post[" + std::to_string(index) + "]: the graph's output is " +
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

std::span<const Field<RegionOp>> RegionOp::fields(RegionOpKind kind) {
  using P = RegionOp;
  static const Field<P> blur[] = {
      {"sigma_m", TERRANE_FIELD_REF(P, blur_sigma_m), Range::closed(0.0, 1e4)},
  };
  static const Field<P> stream_power[] = {
      {"uplift_node", TERRANE_FIELD_REF(P, uplift_node)},
  };
  if (kind == RegionOpKind::blur) return blur;
  if (kind == RegionOpKind::stream_power) return stream_power;
  return {};
}

std::vector<std::string_view> RegionOp::keys(RegionOpKind kind) {
  std::vector<std::string_view> keys;
  switch (kind) {
    case RegionOpKind::thermal:
      keys = field_keys(ThermalParams::fields());
      break;
    case RegionOpKind::droplets:
      keys = field_keys(DropletParams::fields());
      break;
    case RegionOpKind::stream_power:
      keys = field_keys(StreamPowerParams::fields());
      break;
    case RegionOpKind::blur:
      break;
    case RegionOpKind::graph:
      keys = {"output", "nodes"};
      for (std::string_view k : field_keys(HydrologyParams::fields())) keys.push_back(k);
      break;
    case RegionOpKind::breach:
      keys = field_keys(BreachParams::fields());
      break;
  }
  for (std::string_view k : field_keys(fields(kind))) keys.push_back(k);
  return keys;
}

void RegionOp::validate(std::string_view path) const {
  switch (kind) {
    case RegionOpKind::thermal:
      thermal.validate(path);
      break;
    case RegionOpKind::droplets:
      droplets.validate(path);
      break;
    case RegionOpKind::stream_power:
      stream_power.validate(path);
      break;
    case RegionOpKind::blur:
      break;
    case RegionOpKind::graph:
      hydrology.validate(path);
      break;
    case RegionOpKind::breach:
      breach.validate(path);
      break;
  }
  check_fields(*this, fields(kind), path);
}

void apply_region_ops(Field2D& heights, const GraphSource& gen, std::span<const RegionOp> ops,
                      const ExecContext& ctx, std::vector<StageTiming>* timings, bool stage_peaks) {
  const double n = double(ops.size());
  StageClock clock(timings, stage_peaks);
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
        d.seed = hash_combine(gen.seed, d.seed);
        droplet_erosion(heights, d, sub);
        break;
      }
      case RegionOpKind::stream_power: {
        if (op.uplift_node.empty()) {
          stream_power(heights, op.stream_power, nullptr, sub);
          break;
        }
        Graph g = *gen.graph;
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
          if (g.nodes[i].id == op.uplift_node) g.output = int(i);
        }
        const CompiledGraph cg = compile(g, gen.world, gen.seed, gen.source);
        // evaluate() maps the node's output v to world heights; undo that linear map to recover
        // (v + 1) / 2 in [0, 1].
        Field2D uplift(heights.grid, ctx);
        evaluate(cg, heights.grid, uplift.data, ed::quiet(ctx));
        const double lo = gen.world.height_min_m, span = gen.world.height_max_m - lo;
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
        apply_post_graph(heights, gen, op, k, sub);
        break;
      case RegionOpKind::breach: {
        BreachParams b = op.breach;
        b.routing.use_sea_level = true;
        b.routing.sea_level_m = gen.world.sea_level_m;
        breach_depressions(heights, b, sub);
        break;
      }
    }
    clock.stop("post[" + std::to_string(k) + "] " + to_string(op.kind));
    if (ctx.progress) ctx.progress(double(k + 1) / n);
  }
}

}  // namespace terrane
