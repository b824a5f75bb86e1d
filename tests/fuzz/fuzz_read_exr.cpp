// libFuzzer target: read_exr on arbitrary bytes (tests/fuzz/corpus/fuzz_read_exr).
#include "fuzz/fuzz_support.hpp"
#include "terrane/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static terrane::fuzz::InputFile file("input.exr");
  const std::filesystem::path& path = file.write(data, size);
  terrane::fuzz::expect_result_or_error(path.string(), [&] {
    const terrane::Field2D heights = terrane::read_exr(path);
    if (heights.data.size() != heights.grid.sample_count()) {
      terrane::fuzz::fail("read_exr returned an inconsistent field", path.string());
    }
  });
  return 0;
}
