// terrane's PNG encoder (src/io/png_encode.cpp) against libspng: what it writes decodes to the
// pixels it was given, on every layout it writes; an image of one block is libspng's own bytes;
// the bytes do not depend on the thread count.
#include <gtest/gtest.h>
#include <spng.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "io/io_internal.hpp"
#include "support/expect_error.hpp"
#include "terrane/core.hpp"

namespace terrane {
namespace {

struct Layout {
  int color_type, bit_depth, channels;
};
constexpr Layout kLayouts[] = {{0, 8, 1}, {0, 16, 1}, {2, 8, 3}, {2, 16, 3},
                               {4, 8, 2}, {4, 16, 2}, {6, 8, 4}, {6, 16, 4}};

// Samples with smooth parts, noise, and rows repeated from far above (matches that reach back
// across a block's start into its dictionary), 16-bit samples host-endian.
std::vector<std::uint8_t> test_image(int w, int h, const Layout& l, std::uint64_t seed) {
  const std::size_t row = std::size_t(w) * std::size_t(l.channels) * std::size_t(l.bit_depth / 8);
  std::vector<std::uint8_t> px(row * std::size_t(h));
  for (int j = 0; j < h; ++j) {
    std::uint8_t* r = px.data() + std::size_t(j) * row;
    if (j >= 40 && j % 7 == 0) {
      std::memcpy(r, r - 37 * row, row);
      continue;
    }
    for (int i = 0; i < w; ++i) {
      for (int c = 0; c < l.channels; ++c) {
        const std::uint64_t noise =
            mix64(seed ^ (std::uint64_t(j) << 32) ^ std::uint64_t(i * 8 + c));
        const unsigned smooth = unsigned(i * 3 + j * (c + 1));
        const unsigned v = (i / 64 + j / 50) % 3 == 0 ? unsigned(noise) : smooth;
        const std::size_t k = std::size_t(i) * std::size_t(l.channels) + std::size_t(c);
        if (l.bit_depth == 8) {
          r[k] = std::uint8_t(v);
        } else {
          const auto s = std::uint16_t(v * 97u);
          std::memcpy(r + 2 * k, &s, 2);
        }
      }
    }
  }
  return px;
}

struct SpngFree {
  void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};

// Decoded by libspng (CRCs and the Adler-32 checked), 16-bit samples host-endian.
std::vector<std::uint8_t> decode(const std::vector<std::uint8_t>& file, spng_ihdr& ihdr) {
  std::unique_ptr<spng_ctx, SpngFree> ctx(spng_ctx_new(0));
  spng_set_image_limits(ctx.get(), 1u << 20, 1u << 20);
  spng_set_png_buffer(ctx.get(), file.data(), file.size());
  EXPECT_EQ(spng_get_ihdr(ctx.get(), &ihdr), 0);
  std::size_t n = 0;
  EXPECT_EQ(spng_decoded_image_size(ctx.get(), SPNG_FMT_PNG, &n), 0);
  std::vector<std::uint8_t> out(n);
  const int rc = spng_decode_image(ctx.get(), out.data(), n, SPNG_FMT_PNG, 0);
  EXPECT_EQ(rc, 0) << spng_strerror(rc);
  return out;
}

// libspng's encoding with the options terrane used before its own encoder.
std::vector<std::uint8_t> spng_encode(int w, int h, const Layout& l,
                                      const std::vector<std::uint8_t>& px, bool fast) {
  std::unique_ptr<spng_ctx, SpngFree> ctx(spng_ctx_new(SPNG_CTX_ENCODER));
  spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
  spng_set_option(ctx.get(), SPNG_IMG_COMPRESSION_LEVEL, fast ? 1 : 6);
  if (fast) spng_set_option(ctx.get(), SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_PAETH);
  spng_ihdr ihdr{};
  ihdr.width = std::uint32_t(w);
  ihdr.height = std::uint32_t(h);
  ihdr.bit_depth = std::uint8_t(l.bit_depth);
  ihdr.color_type = std::uint8_t(l.color_type);
  EXPECT_EQ(spng_set_ihdr(ctx.get(), &ihdr), 0);
  EXPECT_EQ(spng_encode_image(ctx.get(), px.data(), px.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE),
            0);
  std::size_t len = 0;
  int err = 0;
  std::unique_ptr<void, void (*)(void*)> buf(spng_get_png_buffer(ctx.get(), &len, &err), std::free);
  const auto* b = static_cast<const std::uint8_t*>(buf.get());
  return std::vector<std::uint8_t>(b, b + len);
}

TEST(PngEncode, ManyBlocksDecodeToTheirPixelsOnEveryLayout) {
  // 300 columns: 1 MiB blocks are 3,484 rows of greyscale 8-bit, 436 of RGBA 16-bit, so every
  // layout has several blocks at 4,000 rows.
  const int w = 300, h = 4000;
  for (const Layout& l : kLayouts) {
    const std::vector<std::uint8_t> px = test_image(w, h, l, 11);
    for (const bool fast : {true, false}) {
      const std::vector<std::uint8_t> file = io_detail::encode_png(
          w, h, l.color_type, l.bit_depth, px.data(), px.size(), fast, ExecContext{.threads = 3});
      spng_ihdr ihdr{};
      const std::vector<std::uint8_t> back = decode(file, ihdr);
      EXPECT_EQ(ihdr.width, std::uint32_t(w));
      EXPECT_EQ(ihdr.height, std::uint32_t(h));
      EXPECT_EQ(ihdr.bit_depth, l.bit_depth);
      EXPECT_EQ(ihdr.color_type, l.color_type);
      EXPECT_TRUE(back == px) << "colour type " << l.color_type << ", " << l.bit_depth
                              << " bits, fast " << fast;
      // Blocks cost little: within 2% of one stream's size.
      const std::vector<std::uint8_t> one = spng_encode(w, h, l, px, fast);
      EXPECT_LT(double(file.size()), 1.02 * double(one.size()))
          << "colour type " << l.color_type << ", " << l.bit_depth << " bits, fast " << fast;
    }
  }
}

TEST(PngEncode, OneBlockIsLibspngsBytes) {
  for (const Layout& l : kLayouts) {
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{65, 65}, std::pair{257, 129}}) {
      const std::vector<std::uint8_t> px = test_image(w, h, l, 3);
      for (const bool fast : {true, false}) {
        EXPECT_TRUE(io_detail::encode_png(w, h, l.color_type, l.bit_depth, px.data(), px.size(),
                                          fast, ExecContext{}) == spng_encode(w, h, l, px, fast))
            << w << " x " << h << ", colour type " << l.color_type << ", " << l.bit_depth
            << " bits, fast " << fast;
      }
    }
  }
}

TEST(PngEncode, SameBytesOnAnyThreadCount) {
  const Layout l{2, 8, 3};
  const int w = 700, h = 2000;  // 4 MiB of RGB: 5 blocks
  const std::vector<std::uint8_t> px = test_image(w, h, l, 5);
  for (const bool fast : {true, false}) {
    const std::vector<std::uint8_t> one = io_detail::encode_png(
        w, h, l.color_type, l.bit_depth, px.data(), px.size(), fast, ExecContext{.threads = 1});
    for (const int threads : {2, 3, 8}) {
      EXPECT_TRUE(one == io_detail::encode_png(w, h, l.color_type, l.bit_depth, px.data(),
                                               px.size(), fast, ExecContext{.threads = threads}))
          << threads << " threads, fast " << fast;
    }
  }
}

// A directory of the test's own, removed with everything in it at the end.
struct ScratchDir {
  explicit ScratchDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() /
            ("terrane_png_encode_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir); }
  const std::filesystem::path& path() const { return dir; }
  std::filesystem::path dir;
};

std::vector<std::uint8_t> file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(PngEncode, RowsAskedForAsTheyAreEncodedAreWrittenAsTheWholeImage) {
  // 4 MiB of RGB: 5 blocks; one worker compresses them in two waves of at most 4.
  const Layout l{2, 8, 3};
  const int w = 700, h = 2000;
  const std::vector<std::uint8_t> px = test_image(w, h, l, 9);
  const std::size_t row = std::size_t(w) * 3;
  const ScratchDir dir("png_rows");
  for (const int threads : {1, 2}) {
    std::vector<std::atomic<int>> asked(static_cast<std::size_t>(h));
    const io_detail::PngRows rows = [&](int j, std::uint8_t* out) {
      ++asked[std::size_t(j)];
      std::memcpy(out, px.data() + std::size_t(j) * row, row);
    };
    const std::filesystem::path p = dir.path() / ("rows" + std::to_string(threads) + ".png");
    io_detail::write_png_atomic(p, w, h, l.color_type, l.bit_depth, rows, true,
                                ExecContext{.threads = threads});
    EXPECT_TRUE(file_bytes(p) == io_detail::encode_png(w, h, l.color_type, l.bit_depth, px.data(),
                                                       px.size(), true, ExecContext{}))
        << threads << " threads";
    // Every row at least once; only the few before each block's start (its dictionary and the
    // row its first filter reads) more than once.
    int again = 0;
    for (const std::atomic<int>& a : asked) {
      EXPECT_GE(a.load(), 1);
      again += a.load() - 1;
    }
    EXPECT_LE(again, 4 * (32768 / int(row + 1) + 2));
  }
}

TEST(PngEncode, ARowThatFailsPublishesNothing) {
  const Layout l{0, 16, 1};
  const int w = 1000, h = 3000;  // 6 MB of samples: blocks in more than one wave
  const ScratchDir dir("png_fail");
  const std::filesystem::path p = dir.path() / "fails.png";
  const io_detail::PngRows rows = [&](int j, std::uint8_t* out) {
    if (j == 2500) throw Error(ErrorCategory::io, "row 2500 is not there");
    std::memset(out, j & 0xff, std::size_t(w) * 2);
  };
  test::expect_error(
      [&] {
        io_detail::write_png_atomic(p, w, h, l.color_type, l.bit_depth, rows, false,
                                    ExecContext{.threads = 1});
      },
      ErrorCategory::io, {"row 2500 is not there"});
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "neither the file nor a temporary";
}

TEST(PngEncode, RefusesWhatItDoesNotWrite) {
  const std::vector<std::uint8_t> px(12, 0);
  test::expect_error(
      [&] { io_detail::encode_png(2, 2, 3, 8, px.data(), px.size(), true, ExecContext{}); },
      ErrorCategory::internal, {"colour type 3"});
  test::expect_error([&] { io_detail::encode_png(2, 2, 2, 8, px.data(), 11, true, ExecContext{}); },
                     ErrorCategory::internal, {"11 bytes of pixels"});
}

}  // namespace
}  // namespace terrane
