// libFuzzer target: `--set` overrides (tests/fuzz/corpus/fuzz_preset_override). The first byte
// picks a builtin preset; the rest, split at newlines, is a list of up to 16 "path=value"
// assignments, applied one by one to the builtin's JSON (apply_override) and then all together
// while loading it (load_preset with overrides, as `terrane generate NAME --set ...` does).
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "terrane/preset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> names = terrane::builtin_preset_names();
  if (size == 0) return 0;
  const std::string& name = names[data[0] % names.size()];
  const std::string source = "builtin preset '" + name + "'";
  std::vector<std::string> overrides;
  std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (std::size_t at = 0; at <= rest.size() && overrides.size() < 16;) {
    const std::size_t end = std::min(rest.find('\n', at), rest.size());
    overrides.push_back(rest.substr(at, end - at));
    at = end + 1;
  }
  const std::string_view json = terrane::builtin_preset_json(name);
  for (const std::string& assignment : overrides) {
    terrane::fuzz::expect_result_or_error(
        "fuzz", [&] { (void)terrane::apply_override(json, assignment, "fuzz"); });
  }
  terrane::fuzz::expect_result_or_error(source, [&] {
    const terrane::Preset preset = terrane::load_preset(name, overrides);
    const terrane::Preset again = terrane::parse_preset(preset.canonical_json, source);
    if (again.canonical_json != preset.canonical_json) {
      terrane::fuzz::fail("the canonical JSON does not load to itself", preset.canonical_json);
    }
  });
  return 0;
}
