// libFuzzer target: read_npy on arbitrary bytes (tests/fuzz/corpus/fuzz_read_npy).
#include "fuzz/fuzz_support.hpp"
#include "terrane/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static terrane::fuzz::InputFile file("input.npy");
  const std::filesystem::path& path = file.write(data, size);
  terrane::fuzz::expect_result_or_error(path.string(), [&] {
    const terrane::Field2D heights = terrane::read_npy(path);
    if (heights.data.size() != heights.grid.sample_count()) {
      terrane::fuzz::fail("read_npy returned an inconsistent field", path.string());
    }
  });
  return 0;
}
