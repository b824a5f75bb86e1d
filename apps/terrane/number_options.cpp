// Numeric option validators (number_options.hpp).
#include "number_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "terrane/schema.hpp"

namespace terrane::cli {
namespace {

// The value as the message quotes it: at most 40 bytes.
std::string quote_value(const std::string& text) {
  return "'" + (text.size() <= 40 ? text : text.substr(0, 40) + "...") + "'";
}

}  // namespace

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (end == text.c_str() || *end != '\0') {
          return quote_value(text) + " is not an integer (allowed: " + range + ")";
        }
        if (errno == ERANGE || v < lo || v > hi) {
          return quote_value(text) + " is outside the allowed range " + range;
        }
        return "";
      },
      "INT in " + range);
}

CLI::Validator unsigned64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string range = "0..18446744073709551615";
        errno = 0;
        char* end = nullptr;
        const bool digits = !text.empty() && text[0] >= '0' && text[0] <= '9';
        (void)std::strtoull(text.c_str(), &end, 10);
        if (!digits || *end != '\0') {
          return quote_value(text) + " is not an unsigned integer (allowed: " + range + ")";
        }
        if (errno == ERANGE) return quote_value(text) + " is outside the allowed range " + range;
        return "";
      },
      "UINT64");
}

CLI::Validator real_in(double lo, double hi, bool open_lo, bool open_hi) {
  std::string range;
  if (std::isinf(hi)) {
    range = std::string(open_lo ? "> " : ">= ") + format_number(lo);
  } else {
    range = std::string(open_lo ? "(" : "[") + format_number(lo) + ", " + format_number(hi) +
            (open_hi ? ")" : "]");
  }
  return CLI::Validator(
      [lo, hi, open_lo, open_hi, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || std::isnan(v)) {
          return quote_value(text) + " is not a number (allowed: " + range + ")";
        }
        const bool below = open_lo ? !(v > lo) : !(v >= lo);
        const bool above = open_hi ? !(v < hi) : !(v <= hi);
        if (!std::isfinite(v) || below || above) {
          if (std::isinf(hi)) return quote_value(text) + " must be a finite number " + range;
          return quote_value(text) + " is outside the allowed range " + range;
        }
        return "";
      },
      "NUMBER " + range);
}

}  // namespace terrane::cli
