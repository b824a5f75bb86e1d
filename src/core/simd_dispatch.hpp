// Internal: runtime dispatch of Highway kernels to the target chosen by terrane's SIMD setting
// (not Highway's process-wide "best" choice), so tests and users can force any compiled target.
// Use inside a translation unit that did HWY_EXPORT(Func):
//   TERRANE_DISPATCH(Func)(args...);
#pragma once

#include <cstddef>

namespace terrane::detail {
// Index into a HWY_EXPORT table for the resolved SIMD target (see core.hpp).
std::size_t simd_table_index();
}  // namespace terrane::detail

#define TERRANE_DISPATCH(FUNC_NAME) \
  (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::terrane::detail::simd_table_index()]))
