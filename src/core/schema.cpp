// The one number formatter and range check of every error message (terrane/schema.hpp).
#include "terrane/schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace terrane {

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  // Whole numbers of up to ten digits in full ("2000000", not "2e+06").
  if (v == std::floor(v) && std::abs(v) < 1e10) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

bool Range::contains(double v) const {
  return std::isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
}

std::string Range::text(bool integer) const {
  if (integer && std::isfinite(lo) && std::isfinite(hi)) {
    return std::to_string(std::int64_t(lo)) + ".." + std::to_string(std::int64_t(hi));
  }
  return std::string(lo_open ? "(" : "[") + format_number(lo) + ", " + format_number(hi) +
         (hi_open ? ")" : "]");
}

std::string located(std::string_view source, std::string_view path, std::string_view message) {
  std::string s(source);
  if (!path.empty()) {
    s += ": ";
    s += path;
  }
  s += ": ";
  s += message;
  return s;
}

void fail_at(ErrorCategory category, std::string_view source, std::string_view path,
             std::string_view message) {
  throw Error(category, located(source, path, message));
}

void throw_out_of_range(std::string_view path, std::string_view value, std::string_view allowed) {
  std::string msg(path);
  msg += " = ";
  msg += value;
  msg += " is outside the allowed range ";
  msg += allowed;
  throw Error(ErrorCategory::invalid_argument, msg);
}

void check_range(std::string_view path, double v, const Range& r) {
  if (!r.contains(v)) throw_out_of_range(path, format_number(v), r.text());
}

void check_range(std::string_view path, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v < lo || v > hi) {
    throw_out_of_range(path, std::to_string(v), std::to_string(lo) + ".." + std::to_string(hi));
  }
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view closest_name(std::string_view key, std::span<const std::string_view> candidates) {
  std::string_view best;
  std::size_t best_d = 3;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (!best.empty() || key.size() < 3) return best;
  // A key written without its unit suffix ("talus" for "talus_deg", "river_area" for
  // "river_area_m2"): the shortest candidate that starts with it.
  for (std::string_view c : candidates) {
    if (c.size() > key.size() && c.substr(0, key.size()) == key &&
        (best.empty() || c.size() < best.size())) {
      best = c;
    }
  }
  return best;
}

std::string join_names(std::span<const std::string_view> names) {
  std::string s;
  for (std::string_view n : names) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

}  // namespace terrane
