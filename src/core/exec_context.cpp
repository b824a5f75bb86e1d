// ExecContext helpers: cancellation as a status and the log sink; stage timings.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "terrane/core.hpp"

namespace terrane {

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
  }
  return "?";
}

void throw_if_cancelled(const ExecContext& ctx) {
  if (ctx.cancelled()) throw Error(ErrorCategory::cancelled, "cancelled");
}

void log_message(const ExecContext& ctx, LogLevel level, std::string_view message) {
  if (ctx.log) ctx.log(level, message);
}

namespace {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The process's CPU time, all threads.
double cpu_now() {
#if defined(CLOCK_PROCESS_CPUTIME_ID)
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) {
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  }
#endif
  return double(std::clock()) / double(CLOCKS_PER_SEC);
}

// Sets the peak counter to the memory resident now (Linux >= 4.0; elsewhere nothing).
void reset_peak_rss() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

}  // namespace

std::uint64_t peak_resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1) break;
  }
  std::fclose(f);
  return std::uint64_t(kib) * 1024u;
}

StageClock::StageClock(std::vector<StageTiming>* out, bool peaks)
    : out_(out), peaks_(peaks && out != nullptr) {
  restart();
}

void StageClock::stop(std::string name) {
  const double wall = wall_now(), cpu = cpu_now();
  if (out_ != nullptr) out_->push_back({std::move(name), wall - wall_, cpu - cpu_});
  if (peaks_) {
    out_->back().peak_rss_bytes = peak_resident_bytes();
    reset_peak_rss();
  }
  wall_ = wall;
  cpu_ = cpu;
}

void StageClock::restart() {
  if (peaks_) reset_peak_rss();
  wall_ = wall_now();
  cpu_ = cpu_now();
}

}  // namespace terrane
