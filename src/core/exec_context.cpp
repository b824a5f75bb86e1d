// ExecContext helpers: cancellation as a status and the log sink; stage timings.
#include <chrono>
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

}  // namespace

StageClock::StageClock(std::vector<StageTiming>* out)
    : out_(out), wall_(wall_now()), cpu_(cpu_now()) {}

void StageClock::stop(std::string name) {
  const double wall = wall_now(), cpu = cpu_now();
  if (out_ != nullptr) out_->push_back({std::move(name), wall - wall_, cpu - cpu_});
  wall_ = wall;
  cpu_ = cpu;
}

void StageClock::restart() {
  wall_ = wall_now();
  cpu_ = cpu_now();
}

}  // namespace terrane
