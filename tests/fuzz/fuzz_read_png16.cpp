// libFuzzer target: read_png16 on arbitrary bytes (tests/fuzz/corpus/fuzz_read_png16).
#include "fuzz/fuzz_support.hpp"
#include "terrane/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static terrane::fuzz::InputFile file("input.png");
  const std::filesystem::path& path = file.write(data, size);
  terrane::fuzz::expect_result_or_error(path.string(), [&] {
    const terrane::Image16 image = terrane::read_png16(path);
    if (image.width < 1 || image.height < 1 ||
        image.samples.size() != std::size_t(image.width) * std::size_t(image.height)) {
      terrane::fuzz::fail("read_png16 returned an inconsistent image", path.string());
    }
  });
  return 0;
}
