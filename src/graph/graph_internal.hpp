// Internal helpers shared by the graph module's sources: error formatting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "terrane/graph.hpp"
#include "terrane/schema.hpp"

namespace terrane::graph_detail {

// "<source>: <path>: <message>" (path omitted when empty).
std::string located(std::string_view source, std::string_view path, std::string_view message);
[[noreturn]] void fail(ErrorCategory category, std::string_view source, std::string_view path,
                       std::string_view message);

}  // namespace terrane::graph_detail
