// SIMD target selection for Highway runtime dispatch.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/simd_dispatch.hpp"
#include "terrane/core.hpp"

static_assert((HWY_TARGETS & (HWY_EMU128 | HWY_SCALAR)) != 0, "a scalar target must be compiled");

namespace terrane {
namespace {

std::int64_t hwy_bit(SimdTarget t) {
  switch (t) {
    case SimdTarget::scalar: return HWY_TARGETS & (HWY_EMU128 | HWY_SCALAR);
    case SimdTarget::sse4: return HWY_SSE4;
    case SimdTarget::avx2: return HWY_AVX2;
    case SimdTarget::avx3: return HWY_AVX3;
    case SimdTarget::best: return 0;
  }
  return 0;
}

bool available(SimdTarget t) {
  const std::int64_t bit = hwy_bit(t);
  if ((HWY_TARGETS & bit) == 0) return false;
  // The scalar target (HWY_SCALAR or HWY_EMU128) is plain C++ and runs everywhere.
  return t == SimdTarget::scalar || (hwy::SupportedTargets() & bit) != 0;
}

SimdTarget best_available() {
  for (SimdTarget t : {SimdTarget::avx3, SimdTarget::avx2, SimdTarget::sse4}) {
    if (available(t)) return t;
  }
  return SimdTarget::scalar;
}

std::size_t table_index(SimdTarget t) {
  if (t == SimdTarget::scalar) return HWY_MAX_DYNAMIC_TARGETS + 1;  // HWY_CHOOSE_FALLBACK
  const auto mask = static_cast<std::uint64_t>(HWY_CHOSEN_TARGET_SHIFT(hwy_bit(t)));
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(mask);
}

struct State {
  std::atomic<int> requested{-1};  // SimdTarget, -1 = not initialised
  std::atomic<int> resolved{-1};
  std::atomic<std::size_t> index{0};
  std::mutex init;
};

State& state() {
  static State s;
  return s;
}

[[noreturn]] void throw_unsupported(SimdTarget t) {
  std::string supported;
  for (SimdTarget x : supported_simd_targets()) {
    if (!supported.empty()) supported += ", ";
    supported += to_string(x);
  }
  throw Error(ErrorCategory::invalid_argument,
              std::string("SIMD target '") + to_string(t) +
                  "' is not supported by this CPU or build (supported: " + supported + ")");
}

void apply(SimdTarget t) {
  if (t != SimdTarget::best && !available(t)) throw_unsupported(t);
  const SimdTarget r = t == SimdTarget::best ? best_available() : t;
  State& s = state();
  s.index.store(table_index(r));
  s.resolved.store(int(r));
  s.requested.store(int(t));
}

void ensure_init() {
  State& s = state();
  if (s.requested.load() >= 0) return;
  std::lock_guard<std::mutex> lock(s.init);
  if (s.requested.load() >= 0) return;
  const char* env = std::getenv("TERRANE_SIMD");
  SimdTarget t = SimdTarget::best;
  if (env != nullptr && *env != '\0') {
    try {
      t = parse_simd_target(env);
    } catch (const Error& e) {
      throw Error(ErrorCategory::invalid_argument, std::string("environment variable TERRANE_SIMD: ") + e.what());
    }
  }
  apply(t);
}

}  // namespace

const char* to_string(SimdTarget t) {
  switch (t) {
    case SimdTarget::best: return "best";
    case SimdTarget::scalar: return "scalar";
    case SimdTarget::sse4: return "sse4";
    case SimdTarget::avx2: return "avx2";
    case SimdTarget::avx3: return "avx3";
  }
  return "?";
}

SimdTarget parse_simd_target(std::string_view name) {
  for (SimdTarget t : {SimdTarget::best, SimdTarget::scalar, SimdTarget::sse4, SimdTarget::avx2,
                       SimdTarget::avx3}) {
    if (name == to_string(t)) return t;
  }
  throw Error(ErrorCategory::invalid_argument,
              "unknown SIMD target '" + std::string(name) +
                  "' (allowed: scalar, sse4, avx2, avx3, best)");
}

void set_simd_target(SimdTarget t) {
  std::lock_guard<std::mutex> lock(state().init);
  apply(t);
}

SimdTarget simd_target() {
  ensure_init();
  return SimdTarget(state().requested.load());
}

SimdTarget resolved_simd_target() {
  ensure_init();
  return SimdTarget(state().resolved.load());
}

SimdTarget resolved_simd_target(const ExecContext& ctx) {
  if (ctx.simd == SimdTarget::best) return resolved_simd_target();
  // Also rejects values outside the enum (hwy_bit() is 0 for them).
  if (!available(ctx.simd)) throw_unsupported(ctx.simd);
  return ctx.simd;
}

std::vector<SimdTarget> supported_simd_targets() {
  std::vector<SimdTarget> out;
  for (SimdTarget t : {SimdTarget::avx3, SimdTarget::avx2, SimdTarget::sse4, SimdTarget::scalar}) {
    if (available(t)) out.push_back(t);
  }
  return out;
}

namespace detail {
std::size_t simd_table_index() {
  ensure_init();
  return state().index.load(std::memory_order_relaxed);
}
std::size_t simd_table_index(SimdTarget resolved) {
  if (resolved == SimdTarget::best) return simd_table_index();
  if (!available(resolved)) throw_unsupported(resolved);
  return table_index(resolved);
}
}  // namespace detail

}  // namespace terrane
