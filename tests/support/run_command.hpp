// Runs a shell command and collects its standard output and exit code (for the tests that drive
// the `terrane` CLI), plus the small preset those tests share.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace terrane::test {

struct CommandResult {
  int code = -1;    // exit status; -1 when the command could not run or was killed
  std::string out;  // what it wrote to standard output
};

inline CommandResult run_command(const std::string& shell_command) {
  CommandResult r;
  FILE* p = popen(shell_command.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A 65 x 65 map at 2 m of one fBm node: quick to generate in every format.
inline constexpr const char* kSmallPreset = R"({
  "name": "small",
  "seed": 5,
  "world": { "cell_size_m": 2.0, "height_min_m": -50, "height_max_m": 250, "size": 65 },
  "graph": {
    "output": "h",
    "nodes": { "h": { "type": "opensimplex2", "fractal": "fbm", "octaves": 4, "frequency": 0.01 } }
  }
})";

}  // namespace terrane::test
