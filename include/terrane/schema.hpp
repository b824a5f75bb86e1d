// terrane schema (module `core`): one table per parameter struct, and the one number formatter
// and range check that every error message uses.
//
// A parameter struct (ThermalParams, DropletParams, ClimateParams, WorldSettings, ...) lists its
// scalar fields once, next to its definition, as a table of Field<T>: the JSON key, a reference
// to the member, and the allowed range. That one table drives
//   - validation: check_fields() (Params::validate() calls it, then checks what spans fields),
//   - parsing: the preset module reads exactly the table's keys (unknown keys are errors with a
//     "did you mean"), with the member's default when a key is absent,
//   - `--set a.b.c=value` overrides: the keys a path may name,
//   - the error text: "<path>.<key> = <value> is outside the allowed range <range>".
// Adding a field to a struct is one line in its table. The table knows nothing of JSON.
//
// Threading: tables are immutable after their first use (function-local statics); everything
// here is reentrant.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "terrane/core.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Messages

// The shortest decimal text that reads back as v ("0.5", "1e-07", "40", "1e+300"; whole numbers
// below 1e10 in full: "2000000"), "inf", "-inf", "nan".
std::string format_number(double v);

// An allowed interval of a number: [lo, hi], with either end open. Integer fields use closed
// ranges and print as "lo..hi".
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;

  static constexpr Range closed(double lo, double hi) { return {lo, hi, false, false}; }
  static constexpr Range open_lo(double lo, double hi) {
    return {lo, hi, true, false};
  }  // (lo, hi]
  static constexpr Range open_hi(double lo, double hi) {
    return {lo, hi, false, true};
  }                                            // [lo, hi)
  static constexpr Range any() { return {}; }  // every finite number

  // v is finite and inside.
  bool contains(double v) const;
  // "[0, 90)", "(0, 1]"; with `integer`, "0..100000".
  std::string text(bool integer = false) const;
};

// "<source>: <path>: <message>" (path omitted when empty): where an error happened.
std::string located(std::string_view source, std::string_view path, std::string_view message);
// Throws Error(category, located(source, path, message)).
[[noreturn]] void fail_at(ErrorCategory category, std::string_view source, std::string_view path,
                          std::string_view message);

// Throws Error(invalid_argument) "<path> = <value> is outside the allowed range <allowed>".
[[noreturn]] void throw_out_of_range(std::string_view path, std::string_view value,
                                     std::string_view allowed);
// The one range check: v must be finite and inside r; the message names path, v and r.
void check_range(std::string_view path, double v, const Range& r);
// Integers: lo <= v <= hi, message "<path> = <v> is outside the allowed range lo..hi".
void check_range(std::string_view path, std::int64_t v, std::int64_t lo, std::int64_t hi);

// The name in `candidates` closest to `key` (edit distance <= 2; else the shortest name that
// starts with a key of 3 or more characters, as "talus" for "talus_deg"), or "" (for "did you
// mean").
std::string_view closest_name(std::string_view key, std::span<const std::string_view> candidates);
// "a, b, c"
std::string join_names(std::span<const std::string_view> names);

// ---------------------------------------------------------------------------------------------
// Tables

// How a field is read and checked.
enum class FieldFlag : unsigned {
  none = 0,
  unbounded_null = 1,  // numbers: JSON null means unbounded (-inf for keys with "min", +inf
                       // otherwise); the range is then not checked (bounds are intervals)
  zero_or_range = 2,   // numbers: 0 (off) or inside the range
  unchecked = 4,       // check_fields() skips it (the struct's validate() checks it itself)
};
constexpr FieldFlag operator|(FieldFlag a, FieldFlag b) {
  return FieldFlag(unsigned(a) | unsigned(b));
}
constexpr bool has_flag(FieldFlag set, FieldFlag f) {
  return (unsigned(set) & unsigned(f)) != 0;
}

// One scalar field of T: the key and a function returning a reference to the member (so nested
// members, such as StreamPowerParams::routing.sea_level_m under the key "sea_level_m", work).
// Seeds (std::uint64_t) read as a JSON integer or a decimal string.
template <class T>
struct Field {
  using Ref = std::variant<double& (*)(T&), int& (*)(T&), std::int64_t& (*)(T&),
                           std::uint64_t& (*)(T&), bool& (*)(T&), std::string& (*)(T&)>;
  std::string_view key;
  Ref ref;
  Range range = Range::any();  // numbers and integers (integers: closed, printed lo..hi)
  FieldFlag flags = FieldFlag::none;
};

// A table entry's reference: TERRANE_FIELD_REF(ThermalParams, talus_deg).
#define TERRANE_FIELD_REF(T, member) (+[](T& p) -> decltype((p.member)) { return p.member; })

template <class T>
std::vector<std::string_view> field_keys(std::span<const Field<T>> fields) {
  std::vector<std::string_view> keys;
  keys.reserve(fields.size());
  for (const Field<T>& f : fields) keys.push_back(f.key);
  return keys;
}

// Checks every field of `value` against its table entry; messages are
// "<path>.<key> = <value> is outside the allowed range <range>". Throws Error(invalid_argument).
template <class T>
void check_fields(const T& value, std::span<const Field<T>> fields, std::string_view path) {
  T& v = const_cast<T&>(value);  // the references are only read here
  for (const Field<T>& f : fields) {
    if (has_flag(f.flags, FieldFlag::unchecked) || has_flag(f.flags, FieldFlag::unbounded_null)) {
      continue;
    }
    // The path is spelled out only for a value that fails: validation runs on every sampler
    // and every point evaluation, and the strings were most of its cost.
    const auto where = [&] { return std::string(path) + "." + std::string(f.key); };
    std::visit(
        [&](auto ref) {
          using M = std::remove_reference_t<decltype(ref(v))>;
          if constexpr (std::is_same_v<M, double>) {
            const double x = ref(v);
            if (has_flag(f.flags, FieldFlag::zero_or_range) && x == 0.0) return;
            if (!f.range.contains(x)) check_range(where(), x, f.range);
          } else if constexpr (std::is_same_v<M, int> || std::is_same_v<M, std::int64_t>) {
            // Integer fields have finite closed ranges; an unbounded one is not checked.
            if (!std::isfinite(f.range.lo) || !std::isfinite(f.range.hi)) return;
            const auto x = std::int64_t(ref(v));
            const auto lo = std::int64_t(f.range.lo), hi = std::int64_t(f.range.hi);
            if (x < lo || x > hi) check_range(where(), x, lo, hi);
          }
        },
        f.ref);
  }
}

}  // namespace terrane
