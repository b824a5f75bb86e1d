// libFuzzer target: read_raw16 on arbitrary bytes (tests/fuzz/corpus/fuzz_read_raw16). The file
// is read twice: with its side inferred (0 x 0), and with a width and height taken from the
// input's first four bytes (signed 16-bit little-endian each, so zero and negative sizes come up
// too); the whole input is the file both times.
#include "fuzz/fuzz_support.hpp"
#include "terrane/io.hpp"

namespace {

void check(const terrane::Image16& image, const std::filesystem::path& path) {
  if (image.width < 1 || image.height < 1 ||
      image.samples.size() != std::size_t(image.width) * std::size_t(image.height)) {
    terrane::fuzz::fail("read_raw16 returned an inconsistent image", path.string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static terrane::fuzz::InputFile file("input.r16");
  const std::filesystem::path& path = file.write(data, size);
  terrane::fuzz::expect_result_or_error(path.string(),
                                        [&] { check(terrane::read_raw16(path), path); });
  if (size >= 4) {
    const int width = std::int16_t(data[0] | data[1] << 8);
    const int height = std::int16_t(data[2] | data[3] << 8);
    terrane::fuzz::expect_result_or_error(
        path.string(), [&] { check(terrane::read_raw16(path, width, height), path); });
  }
  return 0;
}
