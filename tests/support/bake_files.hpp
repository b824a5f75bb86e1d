// Reading back what a bake wrote, for the bake tests: PNGs decoded to RGBA8 (libspng) and the
// scatter CSV split into its fields.
#pragma once

#include <gtest/gtest.h>
#include <spng.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace terrane::test {

struct Rgba {
  int width = 0, height = 0;
  std::vector<std::uint8_t> px;  // 4 bytes per pixel, row-major

  std::uint8_t at(int i, int j, int channel) const {
    return px[(std::size_t(j) * std::size_t(width) + std::size_t(i)) * 4 + std::size_t(channel)];
  }
};

inline Rgba read_rgba(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  Rgba img;
  spng_ctx* ctx = spng_ctx_new(0);
  spng_set_png_buffer(ctx, bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  std::size_t size = 0;
  const bool ok =
      spng_get_ihdr(ctx, &ihdr) == 0 && spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &size) == 0;
  if (ok) {
    img.width = int(ihdr.width);
    img.height = int(ihdr.height);
    img.px.resize(size);
    if (spng_decode_image(ctx, img.px.data(), size, SPNG_FMT_RGBA8, 0) != 0) img.px.clear();
  }
  spng_ctx_free(ctx);
  EXPECT_FALSE(img.px.empty()) << "cannot decode " << p;
  return img;
}

// A scatter CSV row as written, split at commas: x, y, z, yaw, scale_xz, scale_y, species, id
// (and state, where the header says so).
using Row = std::vector<std::string>;

inline std::vector<Row> read_scatter_csv(
    const std::filesystem::path& p,
    const std::string& header = "x,y,z,yaw,scale_xz,scale_y,species,id") {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, header) << p;
  const std::size_t columns = std::size_t(std::count(header.begin(), header.end(), ',')) + 1;
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) r.push_back(f);
    EXPECT_EQ(r.size(), columns) << line;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace terrane::test
