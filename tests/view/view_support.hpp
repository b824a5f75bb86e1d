// The terrane-view tests' shared parts: a run of the viewer offscreen under xvfb-run, its
// picture decoded (RGB8) and its --stats, in a directory of the test's own.
#pragma once

#include <gtest/gtest.h>
#include <spng.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace terrane_view_test {

namespace fs = std::filesystem;

struct Shot {
  int rc = -1;
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  nlohmann::json stats;
  std::string log;

  const unsigned char* at(int x, int y) const {
    return rgb.data() + (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 3;
  }
};

// Share of the pixels of a box (fractions of the picture) that differ by more than `tolerance`
// (RGB summed) between a and b.
inline double changed(const Shot& a, const Shot& b, double x0, double x1, double y0, double y1,
                      int tolerance = 24) {
  std::size_t n = 0, all = 0;
  for (int y = int(y0 * a.height); y < int(y1 * a.height); ++y) {
    for (int x = int(x0 * a.width); x < int(x1 * a.width); ++x) {
      const unsigned char *p = a.at(x, y), *q = b.at(x, y);
      n += std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]) > tolerance;
      ++all;
    }
  }
  return double(n) / double(std::max<std::size_t>(all, 1));
}

// Pixels that differ at all between a and b (every pixel of the larger one when the sizes
// differ).
inline std::size_t differing_pixels(const Shot& a, const Shot& b) {
  std::size_t n = 0;
  for (std::size_t k = 0; k + 2 < a.rgb.size() && k + 2 < b.rgb.size(); k += 3) {
    n += a.rgb[k] != b.rgb[k] || a.rgb[k + 1] != b.rgb[k + 1] || a.rgb[k + 2] != b.rgb[k + 2];
  }
  return n + (a.rgb.size() != b.rgb.size() ? a.rgb.size() : 0);
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Under ASan the viewer runs without LeakSanitizer: Mesa keeps allocations until exit and
// unloads its driver before the leak check, so the reports have no stacks to suppress by (only
// "<unknown module>"). Address and undefined-behaviour errors are still fatal. Ignored without
// ASan.
inline const std::string kLeakSuppressions = "ASAN_OPTIONS=detect_leaks=0 ";

// Decodes an RGB8 picture into s (width 0 when it is not a PNG).
inline void read_png(const fs::path& png, Shot& s) {
  const std::string bytes = read_text(png);
  spng_ctx* ctx = spng_ctx_new(0);
  spng_set_png_buffer(ctx, bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  std::size_t size = 0;
  if (spng_get_ihdr(ctx, &ihdr) == 0 && spng_decoded_image_size(ctx, SPNG_FMT_RGB8, &size) == 0) {
    s.rgb.resize(size);
    if (spng_decode_image(ctx, s.rgb.data(), size, SPNG_FMT_RGB8, 0) == 0) {
      s.width = int(ihdr.width);
      s.height = int(ihdr.height);
    }
  }
  spng_ctx_free(ctx);
}

class ViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("terrane_view_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // The start of a command line run under a virtual display of its own: xvfb-run picks a free
  // display number and keeps its X authority file in the test's directory. Without -f, xvfb-run
  // makes a temporary directory for it and, when removing that directory fails on exit, exits 5
  // in place of the command's status (seen once on CI, with the viewer's own exit status lost).
  std::string xvfb_run() const {
    return kLeakSuppressions + TERRANE_XVFB_RUN " -a -f " + (dir_ / "Xauthority").string() +
           " -s '-screen 0 1024x768x24' ";
  }

  // Runs terrane-view offscreen under xvfb-run with `args` and reads its picture and stats.
  Shot render(const std::string& args, const std::string& env = "") {
    Shot s;
    const fs::path png = dir_ / "shot.png", json = dir_ / "stats.json", log = dir_ / "log.txt";
    const std::string cmd = env + " " + xvfb_run() + TERRANE_VIEW_PATH + " " + args +
                            " --offscreen --screenshot " + png.string() + " --stats " +
                            json.string() + " > " + log.string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    s.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    s.log = read_text(log);
    if (s.rc != 0) return s;
    s.stats = nlohmann::json::parse(read_text(json));
    read_png(png, s);
    return s;
  }

  // Runs `body`, a shell script that starts the viewer (with --trace-input, in the background,
  // as $pid) and drives its window with xdotool, under xvfb-run; its output and the viewer's go
  // to `log`, returned with the exit status. The script steps with `await TEXT [N]`: it waits
  // until the log holds N (default 1) lines with TEXT (the window's "input: ..." lines, its
  // "saved commit #K"), so every step follows what the window did, whatever the machine's load,
  // never the clock. After 300 s without them, the script kills the viewer and fails, naming
  // what it waited for.
  int drive_window(const std::string& body, const fs::path& log, std::string& text) {
    const fs::path script = dir_ / "drive.sh";
    std::ofstream(script) << "log='" << log.string() << "'\n"
                          << "await() {\n"
                             "  n=0\n"
                             "  while [ \"$(grep -cF -- \"$1\" \"$log\")\" -lt \"${2:-1}\" ]; do\n"
                             "    n=$((n + 1))\n"
                             "    if [ $n -gt 3000 ]; then\n"
                             "      echo \"drive.sh: timed out waiting for '$1' (x${2:-1})\"\n"
                             "      kill $pid; exit 1\n"
                             "    fi\n"
                             "    sleep 0.1\n"
                             "  done\n"
                             "}\n"
                          << body << "\n";
    const std::string cmd = xvfb_run() + "sh " + script.string() + " > " + log.string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    text = read_text(log);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  fs::path dir_;
};

}  // namespace terrane_view_test
