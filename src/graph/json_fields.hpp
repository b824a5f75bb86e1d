// Internal: a reader for one JSON object of a preset section that lower modules parse
// themselves (erosion's "post" list, surface's "surface" section). Each read registers its key;
// finish() rejects every key that was not read, listing the allowed ones. Messages are
// "<where>.<key>: <what>" where `where` already names the source, e.g.
// "builtin preset 'alpine': post[0]". (The graph's own nodes are read by FieldReader in
// nodes.cpp against the schema in schema.cpp.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graph/graph_internal.hpp"

namespace terrane::graph_detail {

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
  void number(std::string_view key, double& out);  // any finite JSON number
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

  // Every key of the object must have been read (or find()-ed). `what` names the object in the
  // message ("unknown key for <what>; allowed keys: ..."); empty for a plain "unknown key".
  void finish(std::string_view what = {}) const;

 private:
  const json& obj_;
  std::string where_;
  std::vector<std::string> known_;
};

}  // namespace terrane::graph_detail
