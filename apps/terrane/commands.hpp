// The terrane CLI's subcommands. Each is a thin layer over the library: parse options, call
// library functions, print results. Errors propagate as terrane::Error; main() prints
// "error: <message>" and exits 2.
#pragma once

#include <string>
#include <vector>

#include "terrane/core.hpp"

namespace terrane::cli {

struct GenerateOptions {
  std::string preset = "default";  // builtin name or path to a JSON file
  std::string out_dir = "out";
  std::vector<std::string> overrides;  // --set a.b=value
  bool has_seed = false;
  std::uint64_t seed = 0;
  bool has_size = false;
  int size = 0;  // used when has_size, else the preset's world.size
  bool has_width = false, has_height = false;
  int width = 0, height = 0;
  bool has_origin = false;
  double origin_x = 0.0, origin_z = 0.0;
  bool has_cell = false;
  double cell_m = 0.0;  // used when has_cell, else the preset's world.cell_size_m
  std::string formats = "png16,preview";
  int threads = 0;
  bool quiet = false;
};

struct BenchOptions {
  std::string only;  // a single workload, e.g. "W2"; empty = all
  int repeats = 5;
  bool all_targets = false;
};

int run_generate(const GenerateOptions& opt);
int run_presets();
int run_bench_noise(const BenchOptions& opt);

// A progress bar on stderr (only when stderr is a terminal); thread-safe, throttled.
class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();
  void update(double fraction);
  void finish();

 private:
  std::string label_;
  bool enabled_;
  int last_percent_ = -1;
  bool done_ = false;
};

}  // namespace terrane::cli
