// libFuzzer target: a preset file (tests/fuzz/corpus/fuzz_preset_file). The input is written to
// a file and loaded by path, as `terrane generate <file>` does (regular-file and size checks,
// JSON parsing with its nesting bound, every section's reader and validation). A preset that
// loads must load again from its canonical JSON to the same canonical JSON.
#include "fuzz/fuzz_support.hpp"
#include "terrane/preset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static terrane::fuzz::InputFile file("input.json");
  const std::filesystem::path& path = file.write(data, size);
  terrane::fuzz::expect_result_or_error(path.string(), [&] {
    const terrane::Preset preset = terrane::load_preset(path.string());
    const terrane::Preset again = terrane::parse_preset(preset.canonical_json, path.string());
    if (again.canonical_json != preset.canonical_json) {
      terrane::fuzz::fail("the canonical JSON does not load to itself", preset.canonical_json);
    }
  });
  return 0;
}
