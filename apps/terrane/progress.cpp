#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "commands.hpp"

namespace terrane::cli {
namespace {
std::mutex g_progress_mutex;
}

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled && isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(double fraction) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(g_progress_mutex);
  const int percent = std::clamp(int(fraction * 100.0), 0, 100);
  if (done_ || percent == last_percent_) return;
  last_percent_ = percent;
  const int width = 30, filled = percent * width / 100;
  std::fprintf(stderr, "\r%-10s [%.*s%*s] %3d%%", label_.c_str(), filled,
               "##############################", width - filled, "", percent);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(g_progress_mutex);
  if (done_) return;
  done_ = true;
  if (last_percent_ >= 0) std::fprintf(stderr, "\r%*s\r", 60, "");
  std::fflush(stderr);
}

}  // namespace terrane::cli
