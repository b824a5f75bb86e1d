// Internal: the per-basis boilerplate of a noise translation unit, written once.
//
// Inside the per-target namespace (after the Basis struct):
//   TERRANE_NOISE_ROW_KERNELS(Perlin, PerlinBasis)
// defines PerlinRow2 / PerlinRow3 / PerlinRow2Pair from the row drivers of fractal-inl.h.
// In the HWY_ONCE section, inside namespace terrane::noise_detail:
//   TERRANE_NOISE_EXPORT(Perlin, perlin)
// exports them and defines perlin_row2 / perlin_row3 / perlin_row2_pair (kernel_args.hpp),
// dispatched to the process-wide SIMD target chosen in core.hpp, and perlin_row2_for(target) /
// ... returning the kernel of one resolved target (an ExecContext's).
#pragma once

#include "core/simd_dispatch.hpp"

#define TERRANE_NOISE_ROW_KERNELS(NAME, BASIS)                                  \
  void NAME##Row2(const Row2& r) { Row2Kernel<BASIS>(r); }                      \
  void NAME##Row3(const Row3& r) { Row3Kernel<BASIS>(r); }                      \
  void NAME##Row2Pair(const Row2Pair& r) { Row2PairKernel<BASIS>(r); }

#define TERRANE_NOISE_EXPORT(NAME, SNAKE)           \
  HWY_EXPORT(NAME##Row2);                           \
  HWY_EXPORT(NAME##Row3);                           \
  HWY_EXPORT(NAME##Row2Pair);                       \
  void SNAKE##_row2(const Row2& r) {                \
    TERRANE_DISPATCH(NAME##Row2)(r);                \
  }                                                 \
  void SNAKE##_row3(const Row3& r) {                \
    TERRANE_DISPATCH(NAME##Row3)(r);                \
  }                                                 \
  void SNAKE##_row2_pair(const Row2Pair& r) {       \
    TERRANE_DISPATCH(NAME##Row2Pair)(r);            \
  }                                                 \
  Row2Fn SNAKE##_row2_for(SimdTarget t) {           \
    return &TERRANE_DISPATCH_TO(NAME##Row2, t);     \
  }                                                 \
  Row3Fn SNAKE##_row3_for(SimdTarget t) {           \
    return &TERRANE_DISPATCH_TO(NAME##Row3, t);     \
  }                                                 \
  Row2PairFn SNAKE##_row2_pair_for(SimdTarget t) {  \
    return &TERRANE_DISPATCH_TO(NAME##Row2Pair, t); \
  }
