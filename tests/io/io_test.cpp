#include <gtest/gtest.h>
#include <unistd.h>
#include <spng.h>
#include <zlib.h>

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>
#include <ImfTiledOutputFile.h>
#include <half.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "terrane/core.hpp"
#include "terrane/field.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

class IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("terrane_io_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

std::vector<unsigned char> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  return out;
}

// Calls f, expects an Error whose message names `file`; returns the error's category.
template <typename F>
ErrorCategory expect_error_naming(const fs::path& file, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos)
        << "message does not name the file: " << e.what();
    return e.category();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a terrane::Error: " << e.what();
    return ErrorCategory::internal;
  }
  ADD_FAILURE() << "no error for " << file;
  return ErrorCategory::internal;
}

Image16 test_image(int w, int h) {
  Image16 img{w, h, {}};
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      img.samples.push_back(std::uint16_t(hash_combine(std::uint64_t(i), std::uint64_t(j))));
    }
  }
  img.samples[0] = 0;
  img.samples[1] = 65535;
  img.samples[2] = 0x1234;
  return img;
}

Field2D test_heights(int w, int h, double lo, double hi) {
  Field2D f(GridSpec{.width = w, .height = h});
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      f.at(i, j) =
          float(lo + (hi - lo) * unit_float(hash_combine(std::uint64_t(i + 7), std::uint64_t(j))));
    }
  }
  return f;
}

// Replaces IHDR's width/height of a PNG in memory and fixes the chunk CRC.
void patch_ihdr_size(std::vector<unsigned char>& png, std::uint32_t w, std::uint32_t h) {
  ASSERT_GE(png.size(), 33u);
  ASSERT_EQ(std::memcmp(&png[12], "IHDR", 4), 0);
  for (int k = 0; k < 4; ++k) {
    png[16 + k] = static_cast<unsigned char>(w >> (24 - 8 * k));
    png[20 + k] = static_cast<unsigned char>(h >> (24 - 8 * k));
  }
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), &png[12], 17);
  for (int k = 0; k < 4; ++k) png[29 + k] = static_cast<unsigned char>(crc >> (24 - 8 * k));
}

// ---------------------------------------------------------------------------------------------

TEST(HeightMapping, EndsRoundingAndClamping) {
  const HeightRange r{-200.0, 1200.0};
  EXPECT_EQ(height_to_u16(-200.0f, r), 0);
  EXPECT_EQ(height_to_u16(1200.0f, r), 65535);
  EXPECT_EQ(height_to_u16(-5000.0f, r), 0);
  EXPECT_EQ(height_to_u16(5000.0f, r), 65535);
  EXPECT_EQ(height_to_u16(std::nanf(""), r), 0);
  EXPECT_EQ(height_to_u16(500.0f, r), 32768);  // 32767.5 rounds to nearest (up)
  for (int v : {0, 1, 12345, 32768, 65534, 65535}) {
    EXPECT_EQ(height_to_u16(u16_to_height(std::uint16_t(v), r), r), v);
  }
  test::expect_error_eq(
      [] {
        HeightRange({5.0, 5.0}).validate();
      },
      ErrorCategory::invalid_argument,
      "height range: height_min_m = 5 m and height_max_m = 5 m "
      "must be finite with height_max_m > height_min_m");
  test::expect_error_eq(
      [] {
        HeightRange({0.0, INFINITY}).validate("sidecar");
      },
      ErrorCategory::invalid_argument,
      "sidecar: height_min_m = 0 m and height_max_m = inf m must be finite "
      "with height_max_m > height_min_m");
}

TEST_F(IoTest, Png16RoundTripIsExact) {
  const Image16 img = test_image(37, 21);
  const fs::path p = dir_ / "h.png";
  write_png16(p, img);
  const Image16 back = read_png16(p);
  EXPECT_EQ(back.width, 37);
  EXPECT_EQ(back.height, 21);
  EXPECT_EQ(back.samples, img.samples);

  const HeightRange r{-200.0, 1200.0};
  const Field2D f = test_heights(64, 48, -250.0, 1250.0);
  write_png16(p, f, r);
  const Field2D g = read_png16(p, r, 2.0);
  ASSERT_EQ(g.data.size(), f.data.size());
  EXPECT_EQ(g.grid.spacing_m, 2.0);
  for (std::size_t k = 0; k < f.data.size(); ++k) {
    EXPECT_EQ(g.data[k], u16_to_height(height_to_u16(f.data[k], r), r));
    EXPECT_NEAR(g.data[k], std::clamp(f.data[k], -200.0f, 1200.0f), 1400.0 / 65535.0);
  }
  EXPECT_EQ(entries(dir_).size(), 1u);  // no temporaries left behind
}

// An image whose rows are formed as the encoder asks for them has the bytes of the same samples
// written whole, on any thread count; an image of several compression blocks (1 MiB each) and
// an odd width. A row that throws publishes nothing.
TEST_F(IoTest, Png16FromRowsHasTheBytesOfTheWholeImage) {
  const int w = 1001, h = 700;  // 1.4 MB of samples: two blocks
  Image16 img{w, h, std::vector<std::uint16_t>(std::size_t(w) * h)};
  for (std::size_t c = 0; c < img.samples.size(); ++c) {
    img.samples[c] = std::uint16_t(hash_combine(c, 3) >> 40);
  }
  const fs::path whole = dir_ / "whole.png", rows = dir_ / "rows.png";
  write_png16(whole, img);
  for (const int threads : {1, 2}) {
    write_png16(
        rows, w, h,
        [&](int j, std::span<std::uint16_t> out) {
          ASSERT_EQ(out.size(), std::size_t(w));
          std::copy_n(img.samples.begin() + std::ptrdiff_t(j) * w, w, out.begin());
        },
        ExecContext{.threads = threads});
    EXPECT_EQ(read_bytes(rows), read_bytes(whole)) << threads << " threads";
  }
  const fs::path failing = dir_ / "failing.png";
  EXPECT_THROW(write_png16(
                   failing, w, h,
                   [&](int j, std::span<std::uint16_t> out) {
                     if (j == h - 3) throw Error(ErrorCategory::internal, "row failed");
                     std::fill(out.begin(), out.end(), std::uint16_t(7));
                   },
                   ExecContext{.threads = 2}),
               Error);
  EXPECT_FALSE(fs::exists(failing));
  EXPECT_EQ(entries(dir_).size(), 2u);  // no temporaries left behind
}

// The same for 8-bit images of 1, 3 and 4 channels.
TEST_F(IoTest, Png8FromRowsHasTheBytesOfTheWholeImage) {
  const int w = 777, h = 500;
  for (const int channels : {1, 3, 4}) {
    const std::size_t row_bytes = std::size_t(w) * std::size_t(channels);
    std::vector<std::uint8_t> px(row_bytes * h);
    for (std::size_t k = 0; k < px.size(); ++k) {
      px[k] = std::uint8_t((hash_combine(k, 5) >> 50) % 7 == 0 ? k / 97 : k % 251);
    }
    const fs::path whole = dir_ / "whole8.png", rows = dir_ / "rows8.png";
    write_png8(whole, w, h, channels, px);
    for (const int threads : {1, 2}) {
      write_png8(
          rows, w, h, channels,
          [&](int j, std::span<std::uint8_t> out) {
            ASSERT_EQ(out.size(), row_bytes);
            std::copy_n(px.begin() + std::ptrdiff_t(std::size_t(j) * row_bytes), row_bytes,
                        out.begin());
          },
          ExecContext{.threads = threads});
      EXPECT_EQ(read_bytes(rows), read_bytes(whole)) << channels << " channels, " << threads;
    }
  }
  test::expect_error_eq(
      [&] { write_png8(dir_ / "two.png", 4, 4, 2, [](int, std::span<std::uint8_t>) {}); },
      ErrorCategory::invalid_argument,
      (dir_ / "two.png").string() + ": 2 channels (allowed: 1, 3, 4)");
}

TEST_F(IoTest, Png16StoresSamplesBigEndian) {
  Image16 img{2, 1, {0x1234, 0xABCD}};
  const fs::path p = dir_ / "order.png";
  write_png16(p, img);
  const auto png = read_bytes(p);
  // Walk the chunks (PNG spec §5.3), collect IDAT, inflate it.
  std::vector<unsigned char> idat;
  bool saw_ihdr = false;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t len = std::uint32_t(png[at]) << 24 | std::uint32_t(png[at + 1]) << 16 |
                              std::uint32_t(png[at + 2]) << 8 | png[at + 3];
    const std::string type(reinterpret_cast<const char*>(&png[at + 4]), 4);
    if (type == "IHDR") {
      saw_ihdr = true;
      EXPECT_EQ(png[at + 8 + 8], 16);  // bit depth
      EXPECT_EQ(png[at + 8 + 9], 0);   // colour type greyscale
    }
    if (type == "IDAT")
      idat.insert(idat.end(), png.begin() + long(at + 8), png.begin() + long(at + 8 + len));
    at += 12 + len;
  }
  ASSERT_TRUE(saw_ihdr);
  std::vector<unsigned char> raw(1 + 4);
  uLongf raw_len = uLongf(raw.size());
  ASSERT_EQ(uncompress(raw.data(), &raw_len, idat.data(), uLong(idat.size())), Z_OK);
  ASSERT_EQ(raw_len, 5u);
  // Byte 0 is the row's filter type; the first pixel has no left/up neighbour, so every filter
  // leaves its two bytes unchanged: 0x1234 must appear as 0x12, 0x34.
  EXPECT_EQ(raw[1], 0x12);
  EXPECT_EQ(raw[2], 0x34);
  if (raw[0] == 0) {
    EXPECT_EQ(raw[3], 0xAB);
    EXPECT_EQ(raw[4], 0xCD);
  }
  EXPECT_EQ(read_png16(p).samples, img.samples);
}

TEST_F(IoTest, Png16RejectsMalformedFiles) {
  const fs::path good = dir_ / "good.png";
  write_png16(good, test_image(40, 30));
  const auto bytes = read_bytes(good);

  const fs::path missing = dir_ / "missing.png";
  EXPECT_EQ(expect_error_naming(missing, [&] { read_png16(missing); }), ErrorCategory::io);

  const fs::path empty = dir_ / "empty.png";
  write_bytes(empty, {});
  EXPECT_EQ(expect_error_naming(empty, [&] { read_png16(empty); }), ErrorCategory::parse);

  const fs::path noise = dir_ / "noise.png";
  std::vector<unsigned char> junk(3000);
  for (std::size_t k = 0; k < junk.size(); ++k) junk[k] = static_cast<unsigned char>(mix64(k));
  write_bytes(noise, junk);
  EXPECT_EQ(expect_error_naming(noise, [&] { read_png16(noise); }), ErrorCategory::parse);
  // Random bytes behind a valid signature.
  std::copy(bytes.begin(), bytes.begin() + 8, junk.begin());
  write_bytes(noise, junk);
  EXPECT_EQ(expect_error_naming(noise, [&] { read_png16(noise); }), ErrorCategory::parse);

  const fs::path cut = dir_ / "cut.png";
  for (std::size_t len : {std::size_t(1), std::size_t(8), std::size_t(20), std::size_t(33),
                          std::size_t(50), bytes.size() / 2, bytes.size() - 13}) {
    write_bytes(cut, std::vector<unsigned char>(bytes.begin(), bytes.begin() + long(len)));
    EXPECT_EQ(expect_error_naming(cut, [&] { read_png16(cut); }), ErrorCategory::parse)
        << "length " << len;
  }

  // An 8-bit greyscale PNG made by spng directly.
  const fs::path eight = dir_ / "eight.png";
  {
    spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    spng_ihdr ihdr{};
    ihdr.width = 4;
    ihdr.height = 4;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE;
    ASSERT_EQ(spng_set_ihdr(ctx, &ihdr), 0);
    std::vector<unsigned char> px(16, 77);
    ASSERT_EQ(spng_encode_image(ctx, px.data(), px.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    std::size_t len = 0;
    int err = 0;
    auto* buf = static_cast<unsigned char*>(spng_get_png_buffer(ctx, &len, &err));
    ASSERT_NE(buf, nullptr);
    write_bytes(eight, std::vector<unsigned char>(buf, buf + len));
    std::free(buf);
    spng_ctx_free(ctx);
  }
  try {
    read_png16(eight);
    FAIL() << "8-bit PNG accepted";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.category(), ErrorCategory::parse);
    EXPECT_NE(msg.find(eight.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("16-bit greyscale"), std::string::npos) << msg;
    EXPECT_NE(msg.find("found 8-bit greyscale"), std::string::npos) << msg;
  }

  // Oversize headers: one side beyond the cap, and sides within the cap but too many samples.
  const fs::path huge = dir_ / "huge.png";
  auto patched = bytes;
  patch_ihdr_size(patched, 1000000, 1000000);
  write_bytes(huge, patched);
  EXPECT_EQ(expect_error_naming(huge, [&] { read_png16(huge); }), ErrorCategory::limit);
  patched = bytes;
  patch_ihdr_size(patched, 60000, 60000);
  write_bytes(huge, patched);
  EXPECT_EQ(expect_error_naming(huge, [&] { read_png16(huge); }), ErrorCategory::limit);
  test::expect_error_eq([&] { read_png16(huge); }, ErrorCategory::limit,
                        huge.string() +
                            ": image size 60000 x 60000 = 3600000000 samples exceeds "
                            "the cap of 1073741824");
  // Plausible size, but the image data is far too short for it.
  patched = bytes;
  patch_ihdr_size(patched, 4000, 4000);
  write_bytes(huge, patched);
  EXPECT_EQ(expect_error_naming(huge, [&] { read_png16(huge); }), ErrorCategory::parse);
}

TEST_F(IoTest, Raw16RoundTripByteOrderAndWarnings) {
  const fs::path p = dir_ / "h.raw";
  // Warnings reach the context's log sink (and only warnings are expected here).
  std::vector<std::pair<LogLevel, std::string>> logged;
  ExecContext ctx;
  ctx.log = [&](LogLevel level, std::string_view m) { logged.emplace_back(level, m); };
  auto warnings_of = [&](auto&& write) {
    logged.clear();
    write();
    std::vector<std::string> w;
    for (const auto& [level, m] : logged) {
      EXPECT_EQ(level, LogLevel::warning) << m;
      w.push_back(m);
    }
    return w;
  };
  const Image16 sq = test_image(33, 33);
  EXPECT_TRUE(warnings_of([&] { write_raw16(p, sq, ctx); }).empty());
  const auto bytes = read_bytes(p);
  ASSERT_EQ(bytes.size(), 33u * 33u * 2u);
  EXPECT_EQ(bytes[4], 0x34);  // sample 2 = 0x1234, little-endian
  EXPECT_EQ(bytes[5], 0x12);
  EXPECT_EQ(read_raw16(p).samples, sq.samples);  // side inferred from the size
  EXPECT_EQ(read_raw16(p, 33, 33).samples, sq.samples);

  const Image16 rect = test_image(20, 7);
  const std::vector<std::string> w = warnings_of([&] { write_raw16(p, rect, ctx); });
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("2^n + 1"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find(p.string()), std::string::npos) << w[0];
  write_raw16(p, rect);  // no sink: the warning is dropped, the file written
  EXPECT_EQ(read_raw16(p, 20, 7).samples, rect.samples);
  EXPECT_EQ(read_raw16(p, 20, 7).samples, rect.samples);
  EXPECT_EQ(expect_error_naming(p, [&] { read_raw16(p); }), ErrorCategory::parse);  // 140: no
  EXPECT_EQ(expect_error_naming(p, [&] { read_raw16(p, 21, 7); }), ErrorCategory::parse);
  test::expect_error_eq([&] { read_raw16(p); }, ErrorCategory::parse,
                        p.string() +
                            ": size 280 bytes = 140 samples is not a square; give the "
                            "width and height explicitly");
  test::expect_error_eq([&] { read_raw16(p, 21, 7); }, ErrorCategory::parse,
                        p.string() +
                            ": size 280 bytes does not match 21 x 7 16-bit samples (294 "
                            "bytes)");
  // Square but not 2^n + 1.
  EXPECT_EQ(warnings_of([&] { write_raw16(p, test_image(32, 32), ctx); }).size(), 1u);

  const HeightRange r{0.0, 500.0};
  const Field2D f = test_heights(65, 65, 0.0, 500.0);
  EXPECT_TRUE(warnings_of([&] { write_raw16(p, f, r, ctx); }).empty());
  const Image16 back = read_raw16(p);
  for (std::size_t k = 0; k < f.data.size(); ++k) {
    EXPECT_EQ(back.samples[k], height_to_u16(f.data[k], r));
  }

  const fs::path odd = dir_ / "odd.raw";
  write_bytes(odd, std::vector<unsigned char>(9, 1));
  EXPECT_EQ(expect_error_naming(odd, [&] { read_raw16(odd); }), ErrorCategory::parse);
  test::expect_error_eq([&] { read_raw16(odd); }, ErrorCategory::parse,
                        odd.string() +
                            ": size 9 bytes is odd; a RAW16 file holds 2 bytes per "
                            "sample");
  const fs::path empty = dir_ / "empty.raw";
  write_bytes(empty, {});
  EXPECT_EQ(expect_error_naming(empty, [&] { read_raw16(empty); }), ErrorCategory::parse);
  const fs::path missing = dir_ / "missing.raw";
  EXPECT_EQ(expect_error_naming(missing, [&] { read_raw16(missing); }), ErrorCategory::io);
  const fs::path even = dir_ / "even.raw";
  write_bytes(even, std::vector<unsigned char>(10, 1));
  EXPECT_EQ(expect_error_naming(even, [&] { read_raw16(even, 100000, 3); }), ErrorCategory::limit);
  test::expect_error_eq([&] { read_raw16(even, 100000, 3); }, ErrorCategory::limit,
                        even.string() +
                            ": image size 100000 x 3 exceeds the allowed range "
                            "1..65536 per side");
}

TEST_F(IoTest, ExrRoundTripIsExactFloat) {
  const fs::path p = dir_ / "h.exr";
  Field2D f = test_heights(50, 31, -300.0, 2500.0);
  f.at(0, 0) = 1e-30f;
  f.at(1, 0) = -0.0f;
  f.at(2, 0) = 123456.789f;
  write_exr(p, f);
  const Field2D g = read_exr(p, 0.5);
  ASSERT_EQ(g.grid.width, 50);
  ASSERT_EQ(g.grid.height, 31);
  EXPECT_EQ(g.grid.spacing_m, 0.5);
  EXPECT_EQ(std::memcmp(g.data.data(), f.data.data(), f.data.size() * sizeof(float)), 0);
  EXPECT_EQ(entries(dir_).size(), 1u);
}

// terrane writes its EXR files itself, their chunks compressed on the context's workers: the
// bytes are those of OpenEXR's own writer (the C++ library, which terrane used before) with the
// same header, on any thread count. Cases: one scanline, a last chunk of 1 and of 15 scanlines,
// several waves of chunks (two workers: eight chunks a wave), smooth heights (which deflate),
// and random bits in rows too long for deflate's window to see the channels repeat (chunks that
// do not shrink, stored as they are); -0, denormals, infinities and a NaN.
TEST_F(IoTest, ExrFilesHaveTheBytesOfOpenExrsOwnWriter) {
  const auto openexr_bytes = [&](const Field2D& f) {
    const int w = f.grid.width, h = f.grid.height;
    const fs::path p = dir_ / "reference.exr";
    {
      Imf::Header header(w, h);
      header.compression() = Imf::ZIP_COMPRESSION;
      Imf::FrameBuffer fb;
      char* base = const_cast<char*>(reinterpret_cast<const char*>(f.data.data()));
      for (const char* c : {"R", "G", "B"}) {
        header.channels().insert(c, Imf::Channel(Imf::FLOAT));
        fb.insert(c, Imf::Slice(Imf::FLOAT, base, sizeof(float), sizeof(float) * std::size_t(w)));
      }
      Imf::OutputFile file(p.c_str(), header);
      file.setFrameBuffer(fb);
      file.writePixels(h);
    }
    auto bytes = read_bytes(p);
    fs::remove(p);
    return bytes;
  };
  struct Case {
    int w, h;
    bool noise;
  };
  for (const Case c : {Case{1, 1, false}, Case{9, 17, false}, Case{300, 31, false},
                       Case{257, 700, false}, Case{16400, 3, true}}) {
    Field2D f(GridSpec{.width = c.w, .height = c.h});
    for (int j = 0; j < c.h; ++j) {
      for (int i = 0; i < c.w; ++i) {
        const auto bits = std::uint32_t(hash_combine(std::uint64_t(i), std::uint64_t(j)) >> 17);
        f.at(i, j) =
            c.noise ? std::bit_cast<float>(bits) : float(100.0 * std::sin(0.01 * i) + 0.5 * j);
      }
    }
    f.at(0, 0) = -0.0f;
    if (c.w * c.h > 4) {
      f.at(c.w - 1, c.h - 1) = std::numeric_limits<float>::denorm_min();
      f.data[f.data.size() / 2] = std::numeric_limits<float>::infinity();
      f.data[f.data.size() / 3] = -std::numeric_limits<float>::infinity();
      f.data[f.data.size() / 4] = std::numeric_limits<float>::quiet_NaN();
    }
    const auto expected = openexr_bytes(f);
    for (const int threads : {1, 2}) {
      const fs::path p = dir_ / "t.exr";
      write_exr(p, f, ExecContext{.threads = threads});
      EXPECT_EQ(read_bytes(p), expected) << c.w << " x " << c.h << " on " << threads << " threads";
      fs::remove(p);
    }
  }
}

TEST_F(IoTest, ExrReadsYChannelAndRejectsOthers) {
  // Written with OpenEXR directly: a luminance-only HALF file, and one with only an A channel.
  const int w = 5, h = 3;
  std::vector<float> px(w * h);
  for (int k = 0; k < w * h; ++k) px[std::size_t(k)] = float(k) * 0.5f - 2.0f;
  auto write_channel = [&](const fs::path& p, const char* name, Imf::PixelType type) {
    Imf::Header header(w, h);
    header.channels().insert(name, Imf::Channel(type));
    std::vector<Imath::half> half_px(px.begin(), px.end());
    Imf::FrameBuffer fb;
    if (type == Imf::HALF) {
      fb.insert(name, Imf::Slice(Imf::HALF, reinterpret_cast<char*>(half_px.data()),
                                 sizeof(Imath::half), sizeof(Imath::half) * w));
    } else {
      fb.insert(name, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data()), sizeof(float),
                                 sizeof(float) * w));
    }
    Imf::OutputFile file(p.c_str(), header);
    file.setFrameBuffer(fb);
    file.writePixels(h);
  };
  const fs::path y = dir_ / "y.exr";
  write_channel(y, "Y", Imf::HALF);
  const Field2D f = read_exr(y);
  ASSERT_EQ(f.data.size(), px.size());
  for (std::size_t k = 0; k < px.size(); ++k) EXPECT_EQ(f.data[k], px[k]);  // exact in half

  const fs::path a = dir_ / "a.exr";
  write_channel(a, "A", Imf::FLOAT);
  try {
    read_exr(a);
    FAIL() << "file without R or Y accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::parse);
    EXPECT_NE(std::string(e.what()).find("found: A"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(a.string()), std::string::npos) << e.what();
  }
}

// read_exr decodes with OpenEXR's core library: tiled files (partial tiles at the right and
// bottom), HALF samples and other compressions read exactly as the C++ library wrote them.
TEST_F(IoTest, ExrReadsTiledAndCompressedFiles) {
  const int w = 37, h = 21;
  std::vector<float> px(std::size_t(w) * h);
  for (std::size_t k = 0; k < px.size(); ++k) px[k] = float(k) * 0.25f - 40.0f;
  const fs::path tiled = dir_ / "tiled.exr";
  {
    Imf::Header header(w, h);
    header.channels().insert("R", Imf::Channel(Imf::FLOAT));
    header.setTileDescription(Imf::TileDescription(16, 8, Imf::ONE_LEVEL));
    header.compression() = Imf::PIZ_COMPRESSION;
    Imf::TiledOutputFile file(tiled.c_str(), header);
    Imf::FrameBuffer fb;
    fb.insert("R", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data()), sizeof(float),
                              sizeof(float) * w));
    file.setFrameBuffer(fb);
    file.writeTiles(0, file.numXTiles() - 1, 0, file.numYTiles() - 1);
  }
  const Field2D t = read_exr(tiled);
  ASSERT_EQ(t.grid.width, w);
  ASSERT_EQ(t.grid.height, h);
  EXPECT_EQ(std::memcmp(t.data.data(), px.data(), px.size() * sizeof(float)), 0);
  for (Imf::Compression c : {Imf::NO_COMPRESSION, Imf::RLE_COMPRESSION, Imf::ZIPS_COMPRESSION,
                             Imf::ZIP_COMPRESSION, Imf::PIZ_COMPRESSION}) {
    const fs::path p = dir_ / ("scan" + std::to_string(int(c)) + ".exr");
    Imf::Header header(w, h);
    header.channels().insert("R", Imf::Channel(Imf::FLOAT));
    header.channels().insert("G", Imf::Channel(Imf::HALF));
    header.compression() = c;
    std::vector<Imath::half> g(px.size(), Imath::half(1.0f));
    {
      Imf::OutputFile file(p.c_str(), header);
      Imf::FrameBuffer fb;
      fb.insert("R", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(px.data()), sizeof(float),
                                sizeof(float) * w));
      fb.insert("G", Imf::Slice(Imf::HALF, reinterpret_cast<char*>(g.data()), sizeof(Imath::half),
                                sizeof(Imath::half) * w));
      file.setFrameBuffer(fb);
      file.writePixels(h);
    }
    const Field2D f = read_exr(p);
    EXPECT_EQ(std::memcmp(f.data.data(), px.data(), px.size() * sizeof(float)), 0) << int(c);
  }
}

TEST_F(IoTest, ExrRejectsMalformedFiles) {
  const fs::path good = dir_ / "good.exr";
  write_exr(good, test_heights(64, 40, 0.0, 100.0));
  const auto bytes = read_bytes(good);

  const fs::path missing = dir_ / "missing.exr";
  EXPECT_EQ(expect_error_naming(missing, [&] { read_exr(missing); }), ErrorCategory::io);
  const fs::path empty = dir_ / "empty.exr";
  write_bytes(empty, {});
  EXPECT_EQ(expect_error_naming(empty, [&] { read_exr(empty); }), ErrorCategory::parse);
  const fs::path noise = dir_ / "noise.exr";
  std::vector<unsigned char> junk(4000);
  for (std::size_t k = 0; k < junk.size(); ++k) junk[k] = static_cast<unsigned char>(mix64(k));
  write_bytes(noise, junk);
  EXPECT_EQ(expect_error_naming(noise, [&] { read_exr(noise); }), ErrorCategory::parse);
  const fs::path cut = dir_ / "cut.exr";
  for (std::size_t len :
       {std::size_t(4), std::size_t(30), std::size_t(200), bytes.size() / 2, bytes.size() - 10}) {
    write_bytes(cut, std::vector<unsigned char>(bytes.begin(), bytes.begin() + long(len)));
    EXPECT_EQ(expect_error_naming(cut, [&] { read_exr(cut); }), ErrorCategory::parse) << len;
  }
  // Data window far beyond the caps: patch the dataWindow attribute's max corner.
  auto patched = bytes;
  const std::string key = "dataWindow";
  auto it = std::search(patched.begin(), patched.end(), key.begin(), key.end());
  ASSERT_NE(it, patched.end());
  const std::size_t value =
      std::size_t(it - patched.begin()) + key.size() + 1 + 6 + 4;  // "box2i\0", size
  ASSERT_LT(value + 16, patched.size());
  const std::int32_t big = 2000000000;
  std::memcpy(&patched[value + 8], &big, 4);   // max.x (little-endian host and file)
  std::memcpy(&patched[value + 12], &big, 4);  // max.y
  const fs::path huge = dir_ / "huge.exr";
  write_bytes(huge, patched);
  try {
    read_exr(huge);
    FAIL() << "oversize data window accepted";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(huge.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("2000000000"), std::string::npos) << msg;  // the value found
    EXPECT_NE(msg.find("65536"), std::string::npos) << msg;       // the allowed range
  }
}

TEST_F(IoTest, AtomicWriteLeavesNothingOnFailure) {
  const Image16 img = test_image(8, 8);
  // A path under a regular file fails even for root.
  const fs::path blocker = dir_ / "regular_file";
  write_bytes(blocker, {1, 2, 3});
  const fs::path under_file = blocker / "x.png";
  EXPECT_EQ(expect_error_naming(under_file, [&] { write_png16(under_file, img); }),
            ErrorCategory::io);
  const fs::path etc = "/etc/hostname/x.png";
  EXPECT_EQ(expect_error_naming(etc, [&] { write_png16(etc, img); }), ErrorCategory::io);
  const fs::path no_dir = dir_ / "does_not_exist" / "x.raw";
  EXPECT_EQ(expect_error_naming(no_dir, [&] { write_raw16(no_dir, img); }), ErrorCategory::io);
  EXPECT_EQ(expect_error_naming(no_dir, [&] { write_exr(no_dir, test_heights(4, 4, 0, 1)); }),
            ErrorCategory::io);
  EXPECT_FALSE(fs::exists(dir_ / "does_not_exist"));
  EXPECT_EQ(entries(dir_), std::vector<fs::path>{"regular_file"});

  // A writer that fails half-way: the old file stays, no temporary remains.
  const fs::path target = dir_ / "keep.bin";
  write_bytes(target, {42});
  // The writer's own exception becomes an Error(io) naming the file.
  test::expect_error_eq(
      [&] {
        write_file_atomic(target, [](int fd) {
          ASSERT_EQ(::write(fd, "partial", 7), 7);
          throw std::runtime_error("disk on fire");
        });
      },
      ErrorCategory::io, target.string() + ": disk on fire");
  EXPECT_EQ(read_bytes(target), std::vector<unsigned char>{42});
  EXPECT_EQ(entries(dir_).size(), 2u);
  // A successful write replaces the old contents.
  const std::vector<std::byte> payload = {std::byte{1}, std::byte{2}};
  write_file_atomic(target, payload, /*sync=*/true);
  EXPECT_EQ(read_bytes(target), (std::vector<unsigned char>{1, 2}));
  EXPECT_EQ(entries(dir_).size(), 2u);
}

TEST_F(IoTest, NormalMapEncodesNormals) {
  // Flat on the left half, a ramp rising along +X on the right half.
  Field2D f(GridSpec{.width = 16, .height = 4, .spacing_m = 1.0});
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 16; ++i) f.at(i, j) = i < 8 ? 0.0f : float(i - 8);
  }
  const fs::path p = dir_ / "n.png";
  write_normal_map_png(p, f);
  spng_ctx* ctx = spng_ctx_new(0);
  const auto bytes = read_bytes(p);
  spng_set_png_buffer(ctx, bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  ASSERT_EQ(spng_get_ihdr(ctx, &ihdr), 0);
  EXPECT_EQ(ihdr.color_type, SPNG_COLOR_TYPE_TRUECOLOR);
  EXPECT_EQ(ihdr.bit_depth, 8);
  std::vector<unsigned char> rgb(16 * 4 * 3);
  ASSERT_EQ(spng_decode_image(ctx, rgb.data(), rgb.size(), SPNG_FMT_RGB8, 0), 0);
  spng_ctx_free(ctx);
  auto px = [&](int i, int j, int c) { return int(rgb[std::size_t((j * 16 + i) * 3 + c)]); };
  EXPECT_EQ(px(2, 1, 0), 128);  // flat: (0, 1, 0) -> (128, 128, 255)
  EXPECT_EQ(px(2, 1, 1), 128);
  EXPECT_EQ(px(2, 1, 2), 255);
  // 45 degree slope rising along +X: n = (-0.7071, 0.7071, 0).
  EXPECT_EQ(px(12, 1, 0), 37);
  EXPECT_EQ(px(12, 1, 1), 128);
  EXPECT_EQ(px(12, 1, 2), 218);
}

// The normal map of a height field is formed a row at a time as the encoder asks for it: the
// bytes of the map written from normals_clamped's three fields, borders included, on any thread
// count; an image of several compression blocks.
TEST_F(IoTest, NormalMapFromHeightsHasTheBytesOfItsNormals) {
  const Field2D f = test_heights(701, 613, -40.0, 90.0);
  Normals n;
  normals_clamped(f, n);
  const fs::path from_normals = dir_ / "normals.png", from_heights = dir_ / "heights.png";
  write_normal_map_png(from_normals, n);
  for (const int threads : {1, 2}) {
    write_normal_map_png(from_heights, f, ExecContext{.threads = threads});
    EXPECT_EQ(read_bytes(from_heights), read_bytes(from_normals)) << threads << " threads";
  }
}

// An 8-bit RGB PNG decoded by libspng (its CRCs and Adler-32 checked).
std::vector<unsigned char> decode_rgb8(const std::vector<unsigned char>& bytes, int w, int h) {
  spng_ctx* ctx = spng_ctx_new(0);
  spng_set_png_buffer(ctx, bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  EXPECT_EQ(spng_get_ihdr(ctx, &ihdr), 0);
  EXPECT_EQ(ihdr.width, std::uint32_t(w));
  EXPECT_EQ(ihdr.height, std::uint32_t(h));
  EXPECT_EQ(ihdr.color_type, SPNG_COLOR_TYPE_TRUECOLOR);
  std::vector<unsigned char> rgb(std::size_t(w) * std::size_t(h) * 3);
  EXPECT_EQ(spng_decode_image(ctx, rgb.data(), rgb.size(), SPNG_FMT_RGB8, 0), 0);
  spng_ctx_free(ctx);
  return rgb;
}

TEST_F(IoTest, PreviewAndHeightFilesHoldTheirWholeImages) {
  // 1500^2: the preview is 7 blocks of the encoder and the PNG16 5, more than one worker's wave
  // of 4, so the files are formed from rows asked for as they are encoded.
  const int w = 1500, h = 1500;
  const HeightRange range{-200.0, 1200.0};
  Field2D f = test_heights(w, h, -250.0, 1250.0);
  std::vector<float> level(f.data.begin(), f.data.end());
  std::vector<std::uint8_t> river(f.data.size(), 0);
  for (std::size_t c = 0; c < level.size(); c += 5) level[c] += 12.0f;  // lakes
  for (std::size_t c = 1; c < river.size(); c += 7) river[c] = 1;
  PreviewParams params;
  params.range = range;
  const PreviewWater water{level, river};
  std::vector<std::uint8_t> rgb(f.data.size() * 3);
  render_preview(f, params, water, rgb);
  for (const int threads : {1, 2}) {
    const ExecContext ctx{.threads = threads};
    const fs::path pp = dir_ / "preview.png", hp = dir_ / "heights.png";
    write_preview_png(pp, f, params, water, ctx);
    EXPECT_TRUE(decode_rgb8(read_bytes(pp), w, h) == rgb) << threads << " threads";
    write_png16(hp, f, range, ctx);
    EXPECT_EQ(read_png16(hp).samples, heights_to_image16(f, range).samples)
        << threads << " threads";
  }
  EXPECT_EQ(entries(dir_).size(), 2u);  // no temporaries left behind
}

TEST_F(IoTest, PreviewColoursArePlausible) {
  // Columns: -200 m .. 1200 m along X, flat along Z (so no hillshade except at column steps).
  const int w = 1401, h = 8;
  Field2D f(GridSpec{.width = w, .height = h, .spacing_m = 30.0});
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) f.at(i, j) = float(-200 + i);
  }
  const PreviewParams params{.range = {-200.0, 1200.0}, .sea_level_m = 0.0};
  std::vector<std::uint8_t> rgb(std::size_t(w) * h * 3);
  render_preview(f, params, rgb);
  auto colour = [&](double height_m) {
    const auto i = std::size_t(height_m + 200.0);
    const std::size_t at = (std::size_t(3) * w + i) * 3;
    return std::array<int, 3>{rgb[at], rgb[at + 1], rgb[at + 2]};
  };
  for (double d : {-150.0, -40.0, -2.0}) {  // water: blue dominant
    const auto c = colour(d);
    EXPECT_GT(c[2], c[0] + 40) << d;
    EXPECT_GT(c[2], c[1]) << d;
  }
  EXPECT_LT(colour(-150.0)[2], colour(-2.0)[2]);  // deeper is darker
  const auto sand = colour(1.0);
  EXPECT_GT(sand[0], 180);
  EXPECT_GT(sand[0], sand[2] + 30);
  const auto green = colour(150.0);
  EXPECT_GT(green[1], green[0]);
  EXPECT_GT(green[1], green[2]);
  const auto rock = colour(900.0);
  EXPECT_LT(std::abs(rock[0] - rock[1]), 40);
  EXPECT_LT(rock[0], 200);
  const auto snow = colour(1195.0);
  for (int c : snow) EXPECT_GT(c, 225);

  // Hillshade: a ridge along Z; the west face (facing -X, towards the light) is brighter.
  Field2D ridge(GridSpec{.width = 41, .height = 9, .spacing_m = 10.0});
  for (int j = 0; j < 9; ++j) {
    for (int i = 0; i < 41; ++i) ridge.at(i, j) = float(400 - 10 * std::abs(i - 20));
  }
  std::vector<std::uint8_t> shaded(41 * 9 * 3);
  render_preview(ridge, params, shaded);
  const auto sum = [&](int i) {
    const std::size_t at = std::size_t(4 * 41 + i) * 3;
    return shaded[at] + shaded[at + 1] + shaded[at + 2];
  };
  EXPECT_GT(sum(15), sum(25) + 60);

  // Deterministic for any thread count, and the file is written.
  std::vector<std::uint8_t> again(rgb.size());
  render_preview(f, params, again, ExecContext{.threads = 3});
  EXPECT_EQ(again, rgb);
  const fs::path p = dir_ / "preview.png";
  write_preview_png(p, f, params);
  EXPECT_GT(fs::file_size(p), 100u);
  test::expect_error_eq([&] { render_preview(f, params, std::span(rgb).first(10)); },
                        ErrorCategory::invalid_argument,
                        "preview: need " + std::to_string(f.data.size()) + " heights and " +
                            std::to_string(3 * f.data.size()) + " RGB bytes, got " +
                            std::to_string(f.data.size()) + " and 10");
  PreviewParams bad = params;
  bad.ambient = 2.0;
  test::expect_error_eq([&] { render_preview(f, bad, rgb); }, ErrorCategory::invalid_argument,
                        "preview: ambient = 2 is outside the allowed range [0, 1]");
}

TEST_F(IoTest, SidecarJsonParsesBack) {
  Sidecar s;
  s.width = 1025;
  s.height = 513;
  s.spacing_m = 2.5;
  s.origin_x_m = -1280.0;
  s.origin_z_m = 640.0;
  s.range = {-200.0, 1200.0};
  s.sea_level_m = 3.0;
  s.seed = 0xFFFFFFFFFFFFFFFFull;
  s.preset = "alpine";
  s.preset_hash = 0x00ab12cd34ef5678ull;
  s.files = {{"h.png", "png16"}, {"h.exr", "exr"}};
  const fs::path p = dir_ / "map.json";
  write_sidecar_json(p, s);
  std::ifstream in(p);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("width"), 1025);
  EXPECT_EQ(j.at("height"), 513);
  EXPECT_EQ(j.at("spacing_m"), 2.5);
  EXPECT_EQ(j.at("origin_x_m"), -1280.0);
  EXPECT_EQ(j.at("origin_z_m"), 640.0);
  EXPECT_EQ(j.at("height_min_m"), -200.0);
  EXPECT_EQ(j.at("height_max_m"), 1200.0);
  EXPECT_EQ(j.at("sea_level_m"), 3.0);
  EXPECT_EQ(j.at("seed").get<std::uint64_t>(), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(j.at("preset"), "alpine");
  EXPECT_EQ(j.at("preset_hash"), "00ab12cd34ef5678");
  ASSERT_EQ(j.at("files").size(), 2u);
  EXPECT_EQ(j.at("files")[1].at("path"), "h.exr");
  EXPECT_EQ(j.at("files")[1].at("format"), "exr");
  EXPECT_EQ(j.at("terrane_version"), std::string(terrane_version()));
  EXPECT_FALSE(j.contains("warnings"));

  s.warnings = {"size 1025 x 513 is not square"};
  write_sidecar_json(p, s);
  std::ifstream in2(p);
  const nlohmann::json j2 = nlohmann::json::parse(in2);
  EXPECT_EQ(j2.at("warnings")[0], "size 1025 x 513 is not square");

  s.range = {10.0, 0.0};
  EXPECT_EQ(expect_error_naming(p, [&] { write_sidecar_json(p, s); }),
            ErrorCategory::invalid_argument);
}

// Regression (issue 10, fixed): a PNG header whose sides exceed the cap is refused with
// "<file>: PNG image size exceeds the allowed range 1..65536 per side", which does not name the
// sides found (the RAW16 reader says "image size 100000 x 3 exceeds ..."; docs/DESIGN.md §1.6).
TEST_F(IoTest, Png16OversideHeaderNamesItsSize) {
  const fs::path good = dir_ / "good.png";
  write_png16(good, test_image(40, 30));
  auto bytes = read_bytes(good);
  patch_ihdr_size(bytes, 1000000, 1000000);
  const fs::path huge = dir_ / "huge.png";
  write_bytes(huge, bytes);
  test::expect_error([&] { read_png16(huge); }, ErrorCategory::limit,
                     {huge.string() + ": ", "1000000 x 1000000", "1..65536 per side"});
}

// ---------------------------------------------------------------------------------------------
// .npy

// A version 1.0 .npy file: header dict padded to a multiple of 64 bytes, then `data`.
std::vector<unsigned char> npy_bytes(const std::string& dict, const std::vector<unsigned char>& data,
                                     int version = 1) {
  const std::size_t prefix = version == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<unsigned char> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(version), 0};
  const std::size_t len = header.size();
  out.push_back(static_cast<unsigned char>(len & 0xFF));
  out.push_back(static_cast<unsigned char>(len >> 8));
  if (version != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <class T>
std::vector<unsigned char> raw(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST_F(IoTest, NpyReadsFloat32AndFloat64Grids) {
  const fs::path p32 = dir_ / "a.npy", p64 = dir_ / "b.npy";
  write_bytes(p32, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                             raw(std::vector<float>{1, 2, 3, 4, 5, NAN})));
  const Field2D a = read_npy(p32, 2.5);
  EXPECT_EQ(a.grid.width, 3);
  EXPECT_EQ(a.grid.height, 2);
  EXPECT_EQ(a.grid.spacing_m, 2.5);
  EXPECT_EQ(a.at(2, 0), 3.0f);
  EXPECT_EQ(a.at(0, 1), 4.0f);
  EXPECT_TRUE(std::isnan(a.at(2, 1)));
  write_bytes(p64, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}",
                             raw(std::vector<double>{0.5, -7.25}), 2));
  const Field2D b = read_npy(p64);
  EXPECT_EQ(b.grid.width, 2);
  EXPECT_EQ(b.at(1, 0), -7.25f);
}

TEST_F(IoTest, NpyRejectsWhatIsNotATwoDimensionalFloatGrid) {
  const fs::path p = dir_ / "bad.npy";
  auto check = [&](const std::vector<unsigned char>& bytes, ErrorCategory cat,
                   std::initializer_list<std::string_view> needles) {
    write_bytes(p, bytes);
    test::expect_error([&] { read_npy(p); }, cat, needles);
  };
  const auto f6 = raw(std::vector<float>(6, 1.0f));
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", f6),
        ErrorCategory::parse, {p.string() + ": ", "1 dimensions"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", f6),
        ErrorCategory::parse, {"3 dimensions"});
  check(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", f6),
        ErrorCategory::parse, {"'<i4'", "not supported"});
  check(npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", f6),
        ErrorCategory::parse, {"'>f4'"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f6),
        ErrorCategory::parse, {"Fortran order"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }", f6),
        ErrorCategory::parse, {"3 x 3", "36 bytes", "holds only 24"});
  std::vector<unsigned char> longer = f6;
  longer.push_back(0);
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", longer),
        ErrorCategory::parse, {"holds 25"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 3), }", f6),
        ErrorCategory::limit, {"100000 x 3", "1..65536"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (40000, 40000), }", f6),
        ErrorCategory::limit, {"40000 x 40000"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shap': (2, 3), }", f6),
        ErrorCategory::parse, {"'shap'"});
  check(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3) garbage", f6),
        ErrorCategory::parse, {"not a valid .npy header"});
  check({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}, ErrorCategory::parse, {"no \\x93NUMPY magic"});
  // A header length beyond the file.
  std::vector<unsigned char> lie = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", f6);
  lie[8] = 0xFF;
  lie[9] = 0x7F;
  check(lie, ErrorCategory::parse, {"header length 32767"});
  test::expect_error([&] { read_npy(dir_ / "missing.npy"); }, ErrorCategory::io, {"missing.npy"});
}

// Regression (issue 12, found by fuzz_read_npy): a malformed header was quoted whole in the
// message, up to 64 KiB with its newlines and control bytes, so the message was not one line.
// It is quoted to 80 bytes, control and non-ASCII bytes as \xNN.
TEST_F(IoTest, NpyMalformedHeaderIsQuotedOnOneLine) {
  const fs::path p = dir_ / "bad.npy";
  std::string dict = "{'descr':\n'<f4', \x01\xff 'fortran_order': False, 'shape': (2, 3) oops";
  dict += std::string(500, 'x');
  write_bytes(p, npy_bytes(dict, raw(std::vector<float>(6, 1.0f))));
  const std::string message =
      test::expect_error([&] { read_npy(p); }, ErrorCategory::parse,
                         {p.string() + ": not a valid .npy header",
                          "'{'descr':\\x0a'<f4', \\x01\\xff 'fortran", "...'"});
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_LT(message.size(), p.string().size() + 200) << message;
  // A key or a type name from the file is quoted the same way.
  write_bytes(p, npy_bytes("{'de\nscr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                           raw(std::vector<float>(6, 1.0f))));
  test::expect_error([&] { read_npy(p); }, ErrorCategory::parse, {"key 'de\\x0ascr'"});
  write_bytes(p, npy_bytes("{'descr': '<\tf4', 'fortran_order': False, 'shape': (2, 3), }",
                           raw(std::vector<float>(6, 1.0f))));
  test::expect_error([&] { read_npy(p); }, ErrorCategory::parse, {"array type '<\\x09f4'"});
}

}  // namespace
}  // namespace terrane
