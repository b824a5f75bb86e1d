// Internal: runtime dispatch of Highway kernels to the target chosen by terrane's SIMD setting
// (not Highway's process-wide "best" choice), so tests and users can force any compiled target.
// Use inside a translation unit that did HWY_EXPORT(Func):
//   TERRANE_DISPATCH(Func)(args...);                 // the process-wide setting
//   TERRANE_DISPATCH_TO(Func, target)(args...);      // a target from resolved_simd_target(ctx)
#pragma once

#include <cstddef>

#include "terrane/core.hpp"

namespace terrane::detail {
// Index into a HWY_EXPORT table for the process-wide resolved SIMD target (see core.hpp).
std::size_t simd_table_index();
// Index for `resolved` (best = the process-wide one); Error(invalid_argument) when unsupported.
std::size_t simd_table_index(SimdTarget resolved);
}  // namespace terrane::detail

#define TERRANE_DISPATCH(FUNC_NAME) \
  (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::terrane::detail::simd_table_index()]))
#define TERRANE_DISPATCH_TO(FUNC_NAME, TARGET) \
  (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::terrane::detail::simd_table_index(TARGET)]))
