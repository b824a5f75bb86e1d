// Graph -> flat program. Nodes are instantiated once per warp context: a warp node evaluates its
// source's whole sub-graph at displaced positions, so a sub-graph used both inside and outside a
// warp (or under two warps) becomes two instruction sequences reading different displacement
// registers. Registers are never reused, so every instruction is a pure function of its inputs.
#include <algorithm>
#include <bit>
#include <map>
#include <string>

#include "graph/graph_internal.hpp"
#include "graph/program.hpp"

namespace terrane {
namespace {

using Program = CompiledGraph::Program;

// Every input node (reachable from the output or not) must name an available input.
void check_input_names(const Graph& g, std::string_view source,
                       std::span<const std::string_view> inputs) {
  const std::vector<std::string_view> names(inputs.begin(), inputs.end());
  for (const GraphNode& n : g.nodes) {
    if (n.kind != NodeKind::input) continue;
    if (std::find(names.begin(), names.end(), n.input_name) != names.end()) continue;
    const std::string path = g.path + ".nodes." + n.id + ".name";
    if (names.empty()) {
      graph_detail::fail(ErrorCategory::invalid_argument, source, path,
                         "input '" + n.input_name +
                             "' is not available: this graph has no inputs (input nodes exist "
                             "only in a post \"graph\" operation, see docs/PRESETS.md)");
    }
    std::string msg = "unknown input '" + n.input_name + "'";
    const std::string_view guess = closest_name(n.input_name, names);
    if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
    graph_detail::fail(ErrorCategory::invalid_argument, source, path,
                       msg + "; available inputs: " + join_names(names));
  }
}

class Compiler {
 public:
  Compiler(const Graph& g, Program& prog, std::uint64_t seed, std::string_view source)
      : g_(g), prog_(prog), seed_(seed), source_(source) {
    contexts_.push_back({-1, -1, -1});
  }

  int emit(int node, int ctx) {
    const GraphNode& n = g_.nodes[std::size_t(node)];
    if (n.kind == NodeKind::constant) return constant(n.value);
    const auto key = std::make_pair(node, ctx);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const int reg = emit_new(n, node, ctx);
    memo_.emplace(key, reg);
    return reg;
  }

 private:
  struct Context {
    int dx, dz, dy;  // displacement registers, -1 for the unwarped root context (dy: volumes)
  };

  void displace(Instr& in, int ctx) const {
    in.dx = contexts_[std::size_t(ctx)].dx;
    in.dz = contexts_[std::size_t(ctx)].dz;
    in.dy = contexts_[std::size_t(ctx)].dy;
  }

  int new_register() { return prog_.register_count++; }

  void push(const Instr& in) {
    if (prog_.code.size() >= kMaxGraphInstructions) {
      throw Error(ErrorCategory::limit,
                  std::string(source_) + ": " + g_.path + ": the compiled program exceeds " +
                      std::to_string(kMaxGraphInstructions) +
                      " instructions (nested warps instantiate shared sub-graphs once per "
                      "warp context)");
    }
    prog_.code.push_back(in);
  }

  int constant(double v) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
    if (auto it = constants_.find(bits); it != constants_.end()) return it->second;
    const int reg = new_register();
    prog_.constants.emplace_back(reg, float(v));
    constants_.emplace(bits, reg);
    return reg;
  }

  int input(const NodeInput& in, int ctx) {
    return in.node < 0 ? constant(in.constant) : emit(in.node, ctx);
  }

  // The context of warp node `node` applied inside context `ctx`.
  int warp_context(int node, int ctx) {
    const auto key = std::make_pair(node, ctx);
    if (auto it = context_memo_.find(key); it != context_memo_.end()) return it->second;
    int& table = warp_table_[node];
    if (table == 0) {
      WarpParams w = g_.nodes[std::size_t(node)].warp;
      w.seed = hash_combine(seed_, w.seed);
      prog_.warps.push_back(w);
      table = int(prog_.warps.size());  // stored +1 so that 0 means "not yet"
    }
    Instr in;
    in.op = Op::warp;
    in.dst = new_register();
    in.dst2 = new_register();
    if (prog_.volume) in.dst3 = new_register();
    displace(in, ctx);
    in.table = table - 1;
    push(in);
    contexts_.push_back({in.dst, in.dst2, in.dst3});
    const int id = int(contexts_.size()) - 1;
    context_memo_.emplace(key, id);
    return id;
  }

  int unary(Op op, const GraphNode& n, int ctx) {
    Instr in;
    in.op = op;
    in.a = input(n.inputs[0], ctx);
    in.dst = new_register();
    push(in);
    return in.dst;
  }

  int emit_new(const GraphNode& n, int node, int ctx) {
    Instr in;
    switch (n.kind) {
      case NodeKind::constant:
        return constant(n.value);
      case NodeKind::warp:
        return input(n.inputs[0], warp_context(node, ctx));
      case NodeKind::noise: {
        int& table = noise_table_[node];
        if (table == 0) {
          NoiseParams p = n.noise;
          p.seed = hash_combine(seed_, p.seed);
          prog_.noises.push_back(p);
          table = int(prog_.noises.size());
        }
        in.op = Op::noise;
        in.table = table - 1;
        displace(in, ctx);
        in.dst = new_register();
        push(in);
        return in.dst;
      }
      case NodeKind::radial_falloff:
        in.op = Op::radial_falloff;
        in.p[0] = n.center_x_m;
        in.p[1] = n.center_z_m;
        in.p[2] = n.radius_m;
        in.p[3] = n.falloff_m;
        displace(in, ctx);
        in.dst = new_register();
        push(in);
        return in.dst;
      case NodeKind::add:
      case NodeKind::sub:
      case NodeKind::mul:
      case NodeKind::min:
      case NodeKind::max: {
        // Left fold in input order: a fixed operation order.
        const Op op = n.kind == NodeKind::add   ? Op::add
                      : n.kind == NodeKind::sub ? Op::sub
                      : n.kind == NodeKind::mul ? Op::mul
                      : n.kind == NodeKind::min ? Op::min
                                                : Op::max;
        int acc = input(n.inputs[0], ctx);
        for (std::size_t k = 1; k < n.inputs.size(); ++k) {
          Instr step;
          step.op = op;
          step.a = acc;
          step.b = input(n.inputs[k], ctx);
          step.dst = new_register();
          push(step);
          acc = step.dst;
        }
        return acc;
      }
      case NodeKind::abs:
        return unary(Op::abs, n, ctx);
      case NodeKind::neg:
        return unary(Op::neg, n, ctx);
      case NodeKind::y:
        if (!prog_.volume) {
          graph_detail::fail(ErrorCategory::invalid_argument, source_, g_.path + ".nodes." + n.id,
                             "a 'y' node reads the height of a 3D sample: it exists only in a "
                             "voxel density graph (voxel.density), not in a height-field graph");
        }
        in.op = Op::y;
        displace(in, ctx);
        in.dst = new_register();
        push(in);
        return in.dst;
      case NodeKind::input: {
        // Input fields are per grid sample (per column in a volume): a warp context does not
        // displace them.
        int& table = input_table_[n.input_name];
        if (table == 0) {
          prog_.input_names.push_back(n.input_name);
          table = int(prog_.input_names.size());
        }
        in.op = Op::input;
        in.table = table - 1;
        in.dst = new_register();
        push(in);
        return in.dst;
      }
      default:
        break;
    }
    in.a = input(n.inputs[0], ctx);
    switch (n.kind) {
      case NodeKind::clamp:
        in.op = Op::clamp;
        in.p[0] = n.lo;
        in.p[1] = n.hi;
        break;
      case NodeKind::scale_bias:
        in.op = Op::scale_bias;
        in.p[0] = n.scale;
        in.p[1] = n.bias;
        break;
      case NodeKind::pow:
        in.op = Op::pow;
        in.p[0] = n.exponent;
        break;
      case NodeKind::blend:
        in.op = Op::blend;
        in.b = input(n.inputs[1], ctx);
        in.c = input(n.inputs[2], ctx);
        break;
      case NodeKind::select:
        in.op = Op::select;
        in.b = input(n.inputs[1], ctx);
        in.c = input(n.inputs[2], ctx);
        in.p[0] = n.threshold;
        in.p[1] = n.falloff;
        break;
      case NodeKind::curve:
        in.op = Op::curve;
        prog_.curves.emplace_back(n.points,
                                  std::string(source_) + ": " + g_.path + ".nodes." + n.id);
        in.table = int(prog_.curves.size()) - 1;
        break;
      case NodeKind::terrace: {
        in.op = Op::terrace;
        std::vector<float> levels;
        for (double l : n.levels) levels.push_back(float(l));
        prog_.level_sets.push_back(std::move(levels));
        in.table = int(prog_.level_sets.size()) - 1;
        in.p[0] = n.sharpness;
        break;
      }
      case NodeKind::remap:
        in.op = Op::remap;
        in.p[0] = n.from_lo;
        in.p[2] = n.to_lo;
        in.p[4] = (n.to_hi - n.to_lo) / (n.from_hi - n.from_lo);
        in.p[5] = std::min(n.to_lo, n.to_hi);
        in.p[6] = std::max(n.to_lo, n.to_hi);
        in.flag = n.clamp_output;
        break;
      default:
        throw Error(ErrorCategory::internal, std::string(source_) + ": " + g_.path +
                                                 ": unhandled node kind " + to_string(n.kind));
    }
    in.dst = new_register();
    push(in);
    return in.dst;
  }

  const Graph& g_;
  Program& prog_;
  std::uint64_t seed_;
  std::string_view source_;
  std::vector<Context> contexts_;
  std::map<std::pair<int, int>, int> memo_;          // (node, context) -> register
  std::map<std::pair<int, int>, int> context_memo_;  // (warp node, context) -> context
  std::map<std::uint64_t, int> constants_;           // bits of the value -> register
  std::map<int, int> noise_table_, warp_table_;      // node -> table index + 1
  std::map<std::string, int> input_table_;           // input name -> table index + 1
};

}  // namespace

CompiledGraph::CompiledGraph() = default;
CompiledGraph::CompiledGraph(std::unique_ptr<Program> program) : program_(std::move(program)) {}
CompiledGraph::~CompiledGraph() = default;
CompiledGraph::CompiledGraph(CompiledGraph&&) noexcept = default;
CompiledGraph& CompiledGraph::operator=(CompiledGraph&&) noexcept = default;

const CompiledGraph::Program& CompiledGraph::program() const {
  if (!program_) {
    throw Error(ErrorCategory::invalid_argument,
                "CompiledGraph: empty (default-constructed or moved from); use compile()");
  }
  return *program_;
}
const WorldSettings& CompiledGraph::world() const {
  return program().world;
}
std::size_t CompiledGraph::instruction_count() const {
  return program().code.size();
}
const std::vector<std::string>& CompiledGraph::required_inputs() const {
  return program().input_names;
}

CompiledGraph compile(const Graph& graph, const WorldSettings& world, std::uint64_t seed,
                      std::string_view source, std::span<const std::string_view> inputs,
                      OutputMapping mapping) {
  world.validate(std::string(source) + ": world");
  graph.validate(source);
  auto prog = std::make_unique<Program>();
  prog->world = world;
  prog->mapping = mapping;
  check_input_names(graph, source, inputs);
  Compiler c(graph, *prog, seed, source);
  prog->output_register = c.emit(graph.output, 0);
  return CompiledGraph(std::move(prog));
}

CompiledGraph compile_volume(const Graph& graph, const WorldSettings& world, std::uint64_t seed,
                             std::string_view source, std::span<const std::string_view> inputs) {
  world.validate(std::string(source) + ": world");
  graph.validate(source);
  auto prog = std::make_unique<Program>();
  prog->world = world;
  prog->mapping = OutputMapping::identity;
  prog->volume = true;
  check_input_names(graph, source, inputs);
  Compiler c(graph, *prog, seed, source);
  prog->output_register = c.emit(graph.output, 0);
  return CompiledGraph(std::move(prog));
}

CompiledGraph compile(const GraphSource& g) {
  if (g.graph == nullptr)
    throw Error(ErrorCategory::invalid_argument, "compile: GraphSource without a graph");
  return compile(*g.graph, g.world, g.seed, g.source);
}

GridSpec default_grid(const WorldSettings& world) {
  return GridSpec{.width = world.size, .height = world.size, .spacing_m = world.cell_size_m};
}

}  // namespace terrane
