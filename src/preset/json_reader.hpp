// Internal: a reader for one JSON object of a preset section. Each read registers its key;
// finish() rejects every key that was not read, with a "did you mean" and the allowed keys.
// fields() reads every entry of a schema table (terrane/schema.hpp). Messages are
// "<where>.<key>: <what>" where `where` already names the source, e.g.
// "builtin preset 'alpine': post[0]".
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {

class JsonFields {
 public:
  // Throws "<where>: expected an object, got ..." when obj is not an object.
  JsonFields(const json& obj, std::string where);

  [[noreturn]] static void fail(const std::string& path, const std::string& what);
  const std::string& where() const { return where_; }
  std::string path(std::string_view key) const { return where_ + "." + std::string(key); }

  // Registers key as allowed and returns its value, or null when absent.
  const json* find(std::string_view key);
  // Each reader leaves `out` unchanged when the key is absent (the default applies).
  // A finite JSON number; with `unbounded_null`, null is -inf (keys containing "min") or +inf.
  void number(std::string_view key, double& out, bool unbounded_null = false);
  void boolean(std::string_view key, bool& out);
  void string(std::string_view key, std::string& out);
  // An integer in 0..2^64-1 or a decimal string (as the preset's own "seed").
  void seed(std::string_view key, std::uint64_t& out);
  // A JSON integer; values beyond Int's range are clamped so validate() reports them with the
  // field's allowed range.
  template <class Int>
  void integer(std::string_view key, Int& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_number_integer()) fail(path(key), "expected an integer, got " + describe(*v));
    if (v->is_number_unsigned()) {
      const std::uint64_t u = v->get<std::uint64_t>();
      out = u > std::uint64_t(std::numeric_limits<Int>::max()) ? std::numeric_limits<Int>::max()
                                                               : Int(u);
      return;
    }
    const std::int64_t s = v->get<std::int64_t>();
    if constexpr (std::is_unsigned_v<Int>) {
      if (s < 0) fail(path(key), std::to_string(s) + " is negative");
      out = Int(s);
    } else {
      out = Int(std::clamp<std::int64_t>(s, std::numeric_limits<Int>::min(),
                                         std::numeric_limits<Int>::max()));
    }
  }
  // [r, g, b] with integers in 0..255.
  void colour(std::string_view key, std::array<std::uint8_t, 3>& out);
  // A noise object: type, fractal (by name) and NoiseParams::fields().
  void noise(std::string_view key, NoiseParams& out);

  // Every key of a schema table, by its type.
  template <class T>
  void fields(std::span<const Field<T>> table, T& out) {
    for (const Field<T>& f : table) {
      std::visit(
          [&](auto ref) {
            using M = std::remove_reference_t<decltype(ref(out))>;
            if constexpr (std::is_same_v<M, double>) {
              number(f.key, ref(out), has_flag(f.flags, FieldFlag::unbounded_null));
            } else if constexpr (std::is_same_v<M, std::uint64_t>) {
              seed(f.key, ref(out));
            } else if constexpr (std::is_same_v<M, bool>) {
              boolean(f.key, ref(out));
            } else if constexpr (std::is_same_v<M, std::string>) {
              string(f.key, ref(out));
            } else {
              integer(f.key, ref(out));
            }
          },
          f.ref);
    }
  }

  // Every key of the object must have been read (or find()-ed). `what` names the object in the
  // message ("unknown key 'k' in <what> (did you mean 'x'?); allowed keys: ...").
  void finish(std::string_view what = {}) const;

 private:
  const json& obj_;
  std::string where_;
  std::vector<std::string_view> known_;
};

}  // namespace terrane::preset_detail
