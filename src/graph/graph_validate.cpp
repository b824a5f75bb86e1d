// Range, reference and cycle checks for WorldSettings and Graph (used by the preset parser and
// by compile(), so hand-built graphs are checked too).
#include <cmath>
#include <string>

#include "graph/graph_internal.hpp"

namespace terrane {
namespace {

using graph_detail::fail;

// Largest magnitude accepted for scalar node parameters (keeps float conversions finite).
constexpr double kMaxScalar = 1e6;
// Largest world coordinate accepted for radial_falloff centres and radii.
constexpr double kMaxCoordinate_m = 1e12;

void check_range(std::string_view source, const std::string& path, double v, double lo, double hi,
                 bool lo_open = false) {
  terrane::check_range(std::string(source) + ": " + path, v, Range{lo, hi, lo_open, false});
}

std::size_t expected_inputs(NodeKind k) {
  switch (k) {
    case NodeKind::noise:
    case NodeKind::constant:
    case NodeKind::radial_falloff:
    case NodeKind::input:
    case NodeKind::y:
      return 0;
    case NodeKind::warp:
    case NodeKind::abs:
    case NodeKind::neg:
    case NodeKind::clamp:
    case NodeKind::scale_bias:
    case NodeKind::pow:
    case NodeKind::curve:
    case NodeKind::terrace:
    case NodeKind::remap:
      return 1;
    case NodeKind::add:
    case NodeKind::sub:
    case NodeKind::mul:
    case NodeKind::min:
    case NodeKind::max:
      return 2;  // at least
    case NodeKind::blend:
    case NodeKind::select:
      return 3;
  }
  return 0;
}

void validate_node(const Graph& g, const GraphNode& n, std::string_view source) {
  const std::string path = g.path + ".nodes." + n.id;
  auto field = [&](std::string_view f) { return path + "." + std::string(f); };
  const std::size_t want = expected_inputs(n.kind);
  const bool variadic = n.kind == NodeKind::add || n.kind == NodeKind::mul ||
                        n.kind == NodeKind::min || n.kind == NodeKind::max;
  if (variadic ? n.inputs.size() < want : n.inputs.size() != want) {
    fail(ErrorCategory::invalid_argument, source, path,
         std::string("a '") + to_string(n.kind) + "' node takes " + (variadic ? "at least " : "") +
             std::to_string(want) + " inputs, got " + std::to_string(n.inputs.size()));
  }
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    const NodeInput& in = n.inputs[k];
    const std::string ipath = path + ".inputs[" + std::to_string(k) + "]";
    if (in.node >= 0) {
      if (std::size_t(in.node) >= g.nodes.size()) {
        fail(ErrorCategory::invalid_argument, source, ipath,
             "node index " + std::to_string(in.node) + " is outside 0.." +
                 std::to_string(g.nodes.size() - 1));
      }
    } else {
      check_range(source, ipath, in.constant, -kMaxScalar, kMaxScalar);
    }
  }
  switch (n.kind) {
    case NodeKind::noise:
      n.noise.validate(std::string(source) + ": " + path);
      break;
    case NodeKind::warp:
      n.warp.validate(std::string(source) + ": " + path);
      break;
    case NodeKind::constant:
      check_range(source, field("value"), n.value, -kMaxScalar, kMaxScalar);
      break;
    case NodeKind::clamp:
      check_range(source, field("lo"), n.lo, -kMaxScalar, kMaxScalar);
      check_range(source, field("hi"), n.hi, n.lo, kMaxScalar);
      break;
    case NodeKind::scale_bias:
      check_range(source, field("scale"), n.scale, -kMaxScalar, kMaxScalar);
      check_range(source, field("bias"), n.bias, -kMaxScalar, kMaxScalar);
      break;
    case NodeKind::pow:
      check_range(source, field("exponent"), n.exponent, 0.0, 16.0, true);
      break;
    case NodeKind::select:
      check_range(source, field("threshold"), n.threshold, -kMaxScalar, kMaxScalar);
      check_range(source, field("falloff"), n.falloff, 0.0, kMaxScalar);
      break;
    case NodeKind::curve: {
      if (n.points.size() > 256) {
        fail(ErrorCategory::invalid_argument, source, field("points"),
             std::to_string(n.points.size()) + " points is more than the limit of 256");
      }
      for (std::size_t k = 0; k < n.points.size(); ++k) {
        const std::string p = field("points") + "[" + std::to_string(k) + "]";
        check_range(source, p + "[0]", n.points[k].x, -kMaxScalar, kMaxScalar);
        check_range(source, p + "[1]", n.points[k].y, -kMaxScalar, kMaxScalar);
      }
      MonotoneCurve check(n.points, std::string(source) + ": " + field("points"));
      break;
    }
    case NodeKind::terrace: {
      if (n.levels.size() < 2 || n.levels.size() > 256) {
        fail(ErrorCategory::invalid_argument, source, field("levels"),
             std::to_string(n.levels.size()) + " levels is outside the allowed range 2..256");
      }
      for (std::size_t k = 0; k < n.levels.size(); ++k) {
        const std::string p = field("levels") + "[" + std::to_string(k) + "]";
        check_range(source, p, n.levels[k], -kMaxScalar, kMaxScalar);
        if (k > 0 && !(n.levels[k] > n.levels[k - 1])) {
          fail(ErrorCategory::invalid_argument, source, p,
               format_number(n.levels[k]) + " must be greater than the previous level " +
                   format_number(n.levels[k - 1]) + " (levels strictly increasing)");
        }
      }
      check_range(source, field("sharpness"), n.sharpness, 0.0, 0.99);
      break;
    }
    case NodeKind::radial_falloff:
      check_range(source, field("center_x_m"), n.center_x_m, -kMaxCoordinate_m, kMaxCoordinate_m);
      check_range(source, field("center_z_m"), n.center_z_m, -kMaxCoordinate_m, kMaxCoordinate_m);
      check_range(source, field("radius_m"), n.radius_m, 0.0, kMaxCoordinate_m);
      check_range(source, field("falloff_m"), n.falloff_m, 0.0, kMaxCoordinate_m);
      break;
    case NodeKind::remap:
      check_range(source, field("from") + "[0]", n.from_lo, -kMaxScalar, kMaxScalar);
      check_range(source, field("from") + "[1]", n.from_hi, -kMaxScalar, kMaxScalar);
      check_range(source, field("to") + "[0]", n.to_lo, -kMaxScalar, kMaxScalar);
      check_range(source, field("to") + "[1]", n.to_hi, -kMaxScalar, kMaxScalar);
      if (n.from_lo == n.from_hi) {
        fail(ErrorCategory::invalid_argument, source, field("from"),
             "[" + format_number(n.from_lo) + ", " + format_number(n.from_hi) +
                 "] is empty: from[0] must differ from from[1]");
      }
      break;
    case NodeKind::input:
      if (n.input_name.empty()) {
        fail(ErrorCategory::invalid_argument, source, field("name"),
             "an 'input' node needs the name of a field (e.g. \"height\")");
      }
      break;
    case NodeKind::add:
    case NodeKind::sub:
    case NodeKind::mul:
    case NodeKind::min:
    case NodeKind::max:
    case NodeKind::abs:
    case NodeKind::neg:
    case NodeKind::blend:
    case NodeKind::y:
      break;
  }
}

// Depth-first search with colours; reports the first cycle as "a -> b -> a".
void check_acyclic(const Graph& g, std::string_view source) {
  enum Colour : unsigned char { white, grey, black };
  std::vector<Colour> colour(g.nodes.size(), white);
  std::vector<std::pair<int, std::size_t>> stack;  // node, next input to visit
  for (std::size_t root = 0; root < g.nodes.size(); ++root) {
    if (colour[root] != white) continue;
    stack.push_back({int(root), 0});
    colour[root] = grey;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const GraphNode& n = g.nodes[std::size_t(node)];
      if (next == n.inputs.size()) {
        colour[std::size_t(node)] = black;
        stack.pop_back();
        continue;
      }
      const int child = n.inputs[next++].node;
      if (child < 0) continue;
      if (colour[std::size_t(child)] == grey) {
        std::string cycle;
        bool on = false;
        for (const auto& [s, _] : stack) {
          on = on || s == child;
          if (on) cycle += g.nodes[std::size_t(s)].id + " -> ";
        }
        cycle += g.nodes[std::size_t(child)].id;
        fail(ErrorCategory::invalid_argument, source,
             g.path + ".nodes." + g.nodes[std::size_t(child)].id,
             "the graph has a cycle: " + cycle);
      }
      if (colour[std::size_t(child)] == white) {
        colour[std::size_t(child)] = grey;
        stack.push_back({child, 0});
      }
    }
  }
}

}  // namespace

std::span<const Field<WorldSettings>> WorldSettings::fields() {
  using W = WorldSettings;
  static const Field<W> table[] = {
      {"cell_size_m", TERRANE_FIELD_REF(W, cell_size_m), Range::open_lo(0.0, 10000.0)},
      {"height_min_m", TERRANE_FIELD_REF(W, height_min_m), Range::closed(-1e6, 1e6)},
      // Above height_min_m: checked by validate().
      {"height_max_m", TERRANE_FIELD_REF(W, height_max_m), Range::open_lo(-1e6, 1e6),
       FieldFlag::unchecked},
      {"sea_level_m", TERRANE_FIELD_REF(W, sea_level_m), Range::closed(-1e6, 1e6)},
      {"size", TERRANE_FIELD_REF(W, size), Range::closed(1, kMaxGridSide)},
      {"preview_palette", TERRANE_FIELD_REF(W, preview_palette)},
  };
  return table;
}

void WorldSettings::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
  const std::string p(path);
  if (!Range::open_lo(height_min_m, 1e6).contains(height_max_m)) {
    throw_out_of_range(p + ".height_max_m", format_number(height_max_m),
                       "(height_min_m = " + format_number(height_min_m) + ", 1e6]");
  }
  if (preview_palette != "temperate" && preview_palette != "arid") {
    throw Error(ErrorCategory::invalid_argument, p + ".preview_palette: unknown palette '" +
                                                     preview_palette +
                                                     "' (allowed: temperate, arid)");
  }
}

void Graph::validate(std::string_view source) const {
  if (nodes.empty()) fail(ErrorCategory::invalid_argument, source, path + ".nodes", "no nodes");
  if (output < 0 || std::size_t(output) >= nodes.size()) {
    fail(ErrorCategory::invalid_argument, source, path + ".output",
         "node index " + std::to_string(output) + " is outside 0.." +
             std::to_string(nodes.size() - 1));
  }
  for (const GraphNode& n : nodes) validate_node(*this, n, source);
  check_acyclic(*this, source);
}

}  // namespace terrane
