// Internal helpers shared by the graph module's sources: error formatting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "terrane/graph.hpp"
#include "terrane/schema.hpp"

namespace terrane::graph_detail {

using terrane::located;
// fail_at (terrane/schema.hpp): "<source>: <path>: <message>".
[[noreturn]] inline void fail(ErrorCategory category, std::string_view source,
                              std::string_view path, std::string_view message) {
  fail_at(category, source, path, message);
}

}  // namespace terrane::graph_detail
