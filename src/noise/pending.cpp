// Temporary during bring-up: kernels whose translation units are being written. Each helper
// removes its definitions from here when its basis lands; this file is deleted before release.
#include "noise/kernel_args.hpp"

namespace terrane::noise_detail {
namespace {
[[noreturn]] void pending(const char* name) {
  throw Error(ErrorCategory::internal, std::string(name) + " kernel is not built yet");
}
}  // namespace
void cellular_row2(const Row2&) { pending("cellular"); }
void cellular_row3(const Row3&) { pending("cellular"); }
void value_row2(const Row2&) { pending("value"); }
void value_row3(const Row3&) { pending("value"); }
void value_cubic_row2(const Row2&) { pending("value_cubic"); }
void value_cubic_row3(const Row3&) { pending("value_cubic"); }
}  // namespace terrane::noise_detail
