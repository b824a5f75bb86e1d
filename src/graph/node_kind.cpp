// Node kind names and the graph module's message helpers.
#include <string>

#include "graph/graph_internal.hpp"

namespace terrane {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::noise:
      return "noise";
    case NodeKind::warp:
      return "warp";
    case NodeKind::constant:
      return "constant";
    case NodeKind::add:
      return "add";
    case NodeKind::sub:
      return "sub";
    case NodeKind::mul:
      return "mul";
    case NodeKind::min:
      return "min";
    case NodeKind::max:
      return "max";
    case NodeKind::abs:
      return "abs";
    case NodeKind::neg:
      return "neg";
    case NodeKind::clamp:
      return "clamp";
    case NodeKind::scale_bias:
      return "scale_bias";
    case NodeKind::pow:
      return "pow";
    case NodeKind::blend:
      return "blend";
    case NodeKind::select:
      return "select";
    case NodeKind::curve:
      return "curve";
    case NodeKind::terrace:
      return "terrace";
    case NodeKind::radial_falloff:
      return "radial_falloff";
    case NodeKind::remap:
      return "remap";
    case NodeKind::input:
      return "input";
    case NodeKind::y:
      return "y";
  }
  return "unknown";
}

}  // namespace terrane
