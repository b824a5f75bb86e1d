// The preset's "post" list: JSON -> std::vector<RegionOp>, validated. Each operation's keys are
// its parameter struct's schema table (ThermalParams::fields(), ...) plus RegionOp::fields();
// messages are "<source>: post[i].<key>: <what>".
#include <algorithm>
#include <string>

#include "preset/json_reader.hpp"
#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {
namespace {

// The "output" and "nodes" of a graph operation, parsed and checked like the preset's graph
// (messages name "post[i].nodes.<id>..."); compiling once here reports unknown input names
// while parsing rather than when the operation runs.
Graph parse_post_graph(JsonFields& f, const Preset& preset, const std::string& path) {
  json section = json::object();
  if (const json* nodes = f.find("nodes")) section["nodes"] = *nodes;
  if (const json* output = f.find("output")) section["output"] = *output;
  Graph g = parse_graph(section, preset.world, preset.source, path);
  g.validate(preset.source);
  (void)compile(g, preset.world, preset.seed, preset.source, post_graph_input_names(),
                OutputMapping::identity);
  return g;
}

constexpr const char* kKinds = "thermal, droplets, stream_power, blur, graph, breach";

}  // namespace

std::vector<RegionOp> parse_post(const json* post, const Preset& preset) {
  std::vector<RegionOp> ops;
  if (post == nullptr) return ops;
  if (!post->is_array()) {
    fail(ErrorCategory::invalid_argument, preset.source, "post",
         "expected an array of region operations, got " + describe(*post));
  }
  for (std::size_t i = 0; i < post->size(); ++i) {
    const std::string path = "post[" + std::to_string(i) + "]";
    const std::string where = preset.source + ": " + path;
    const json& obj = (*post)[i];
    if (!obj.is_object()) {
      JsonFields::fail(where, "expected an object {\"op\": ...}, got " + describe(obj));
    }
    auto op_it = obj.find("op");
    if (op_it == obj.end() || !op_it->is_string()) {
      JsonFields::fail(where + ".op",
                       std::string("missing or not a string (allowed: ") + kKinds + ")");
    }
    RegionOp op;
    try {
      op.kind = parse_region_op_kind(op_it->get<std::string>());
    } catch (const Error& e) {
      JsonFields::fail(where + ".op", e.what());
    }
    JsonFields f(obj, where);
    f.find("op");
    const std::string what = std::string("a '") + to_string(op.kind) + "' operation";
    switch (op.kind) {
      case RegionOpKind::thermal:
        f.fields(ThermalParams::fields(), op.thermal);
        break;
      case RegionOpKind::droplets:
        f.fields(DropletParams::fields(), op.droplets);
        break;
      case RegionOpKind::stream_power:
        f.fields(StreamPowerParams::fields(), op.stream_power);
        break;
      case RegionOpKind::blur:
        break;
      case RegionOpKind::graph:
        op.graph = parse_post_graph(f, preset, path);
        f.fields(HydrologyParams::fields(), op.hydrology);
        break;
      case RegionOpKind::breach:
        f.fields(BreachParams::fields(), op.breach);
        break;
    }
    f.fields(RegionOp::fields(op.kind), op);
    f.finish(what);
    op.validate(where);
    if (!op.uplift_node.empty()) {
      const auto& nodes = preset.graph.nodes;
      if (std::none_of(nodes.begin(), nodes.end(),
                       [&](const GraphNode& n) { return n.id == op.uplift_node; })) {
        JsonFields::fail(where + ".uplift_node",
                         "'" + op.uplift_node + "' is not a node of the graph");
      }
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace terrane::preset_detail
