// Temporary during bring-up: kernels whose translation units are being written. Each helper
// removes its definitions from here when its basis lands; this file is deleted before release.
#include "noise/kernel_args.hpp"

namespace terrane::noise_detail {
namespace {
[[noreturn]] void pending(const char* name) {
  throw Error(ErrorCategory::internal, std::string(name) + " kernel is not built yet");
}
}  // namespace
void opensimplex2_row2(const Row2&) { pending("opensimplex2"); }
void opensimplex2_row3(const Row3&) { pending("opensimplex2"); }
void opensimplex2s_row2(const Row2&) { pending("opensimplex2s"); }
void opensimplex2s_row3(const Row3&) { pending("opensimplex2s"); }
void cellular_row2(const Row2&) { pending("cellular"); }
void cellular_row3(const Row3&) { pending("cellular"); }
}  // namespace terrane::noise_detail

