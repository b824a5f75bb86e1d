// Validators for the CLI's numeric options (issue 12, defect 6): every numeric option states
// its allowed range, and a value outside it, a value that is not a number ("nan", "1e300" for
// an integer, "-1" for a seed) or not an integer is refused before CLI11 converts it, with one
// message "--opt: <value> ... (allowed: <range>)". Numbers print as the shortest text that reads
// back the same (format_number), never with %f.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>

namespace terrane::cli {

// An integer in [lo, hi].
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);
// An unsigned 64-bit integer (seeds): 0..2^64-1, no sign.
CLI::Validator unsigned64();
// A finite real number in [lo, hi], or (lo, hi] with open_lo, or [lo, hi) with open_hi; an
// infinite hi prints as "> lo" / ">= lo".
CLI::Validator real_in(double lo, double hi, bool open_lo = false, bool open_hi = false);
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

}  // namespace terrane::cli
