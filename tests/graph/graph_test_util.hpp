// Helpers shared by the graph module's tests: unit presets whose heights equal node values, grid
// evaluation, and messages of the Errors that parsing a preset throws.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "terrane/graph.hpp"
#include "terrane/preset.hpp"

namespace terrane::graph_test {

// A preset around `nodes` whose height range is [-1, 1] m, so heights equal node values
// (h = -1 + (v + 1) * 0.5 * 2 is exact for the dyadic values used below).
inline std::string unit_preset(const std::string& nodes, const std::string& output = "out") {
  return R"({"seed": 5, "world": {"height_min_m": -1, "height_max_m": 1, "size": 65},
             "graph": {"output": ")" +
         output + R"(", "nodes": {)" + nodes + "}}}";
}

inline std::vector<float> evaluate_grid(const CompiledGraph& g, const GridSpec& grid,
                                        int threads = 0) {
  std::vector<float> out(grid.sample_count());
  evaluate(g, grid, out, ExecContext{.threads = threads});
  return out;
}

// Value of a unit preset's output at one point.
inline float value_of(const std::string& nodes, double x = 0.0, double z = 0.0) {
  const Preset p = parse_preset(unit_preset(nodes), "test.json");
  return evaluate_at(compile(p), x, z);
}

// The message of the Error (of `category`) thrown by parsing `text` (fails the test when nothing
// is thrown).
inline std::string error_of(const std::string& text, std::span<const std::string> overrides = {},
                            ErrorCategory category = ErrorCategory::invalid_argument) {
  try {
    (void)compile(parse_preset(text, "bad.json", overrides));
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), category) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an Error for: " << text;
  return "";
}

inline void expect_contains(const std::string& message, std::initializer_list<const char*> parts) {
  for (const char* part : parts) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "message lacks '" << part << "': " << message;
  }
}

}  // namespace terrane::graph_test
