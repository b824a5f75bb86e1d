// Shaded-relief preview: hypsometric tinting (colour by elevation bands, the cartographic
// convention of e.g. Imhof, "Cartographic Relief Presentation", 1982, ch. 14) multiplied by
// Lambertian hillshading with the customary north-west light at 45 degrees altitude (Horn,
// "Hill shading and the reflectance map", Proc. IEEE 69(1), 1981).
//
// Cost per pixel is one table lookup, one sqrt and one division: the colour ramp is sampled
// once into a 4096-entry table over the height range.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

struct Stop {
  double at;  // metres of depth (water) or fraction of the land span (land)
  float r, g, b;
};

// Water by depth below sea level in metres.
constexpr std::array<Stop, 5> kWater = {{{0.0, 100, 178, 216},
                                         {5.0, 64, 146, 204},
                                         {50.0, 34, 96, 174},
                                         {200.0, 16, 48, 122},
                                         {1000.0, 8, 24, 78}}};

struct Rgb {
  float r, g, b;
};

template <std::size_t N>
Rgb ramp(const std::array<Stop, N>& stops, double t) {
  if (t <= stops[0].at) return {stops[0].r, stops[0].g, stops[0].b};
  for (std::size_t k = 1; k < N; ++k) {
    if (t <= stops[k].at) {
      const auto f = float((t - stops[k - 1].at) / (stops[k].at - stops[k - 1].at));
      const Stop &a = stops[k - 1], &b = stops[k];
      return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
    }
  }
  return {stops[N - 1].r, stops[N - 1].g, stops[N - 1].b};
}

// Land by fraction of the span [sea level, height_max]; the beach is the first 3 m (at most
// 5% of the span on low maps).
Rgb land_colour(double height_above_sea_m, double land_span_m) {
  const double f = height_above_sea_m / land_span_m;
  const double beach = std::min(3.0 / land_span_m, 0.05);
  const std::array<Stop, 9> land = {{{0.0, 224, 210, 160},
                                     {beach, 212, 200, 150},
                                     {beach + 0.03, 98, 152, 74},
                                     {0.30, 122, 166, 86},
                                     {0.50, 160, 160, 102},
                                     {0.65, 140, 116, 90},
                                     {0.80, 136, 131, 128},
                                     {0.92, 240, 240, 245},
                                     {1.00, 255, 255, 255}}};
  return ramp(land, f);
}

// Arid land: sand, ochre, red-brown cliffs, pale caprock.
Rgb arid_land_colour(double height_above_sea_m, double land_span_m) {
  const double f = height_above_sea_m / land_span_m;
  const std::array<Stop, 7> land = {{{0.0, 226, 204, 158},
                                     {0.10, 214, 178, 122},
                                     {0.30, 200, 142, 88},
                                     {0.50, 176, 104, 66},
                                     {0.70, 158, 88, 60},
                                     {0.88, 206, 160, 112},
                                     {1.00, 232, 206, 164}}};
  return ramp(land, f);
}

constexpr int kTable = 4096;

std::uint8_t to_byte(float v) {
  if (!(v > 0.0f)) return 0;
  if (v >= 255.0f) return 255;
  return std::uint8_t(v + 0.5f);
}

}  // namespace

PreviewPalette parse_preview_palette(std::string_view name) {
  if (name == "temperate") return PreviewPalette::temperate;
  if (name == "arid") return PreviewPalette::arid;
  throw Error(ErrorCategory::invalid_argument,
              "unknown preview palette '" + std::string(name) + "' (allowed: temperate, arid)");
}

void PreviewParams::validate() const {
  range.validate("preview height range");
  if (!std::isfinite(sea_level_m)) {
    throw Error(ErrorCategory::invalid_argument, "preview: sea_level_m must be finite");
  }
  if (!(ambient >= 0.0 && ambient <= 1.0)) {
    throw_out_of_range("preview: ambient", format_number(ambient), "[0, 1]");
  }
  if (!std::isfinite(vertical_exaggeration) || vertical_exaggeration <= 0.0) {
    throw Error(ErrorCategory::invalid_argument,
                "preview: vertical_exaggeration = " + std::to_string(vertical_exaggeration) +
                    " must be finite and > 0");
  }
}

std::array<float, 3> preview_water_albedo(double depth_m) {
  const Rgb c = ramp(kWater, std::max(depth_m, 0.0));
  return {c.r, c.g, c.b};
}

std::array<float, 3> preview_albedo(const PreviewParams& params, double height_m) {
  const double sea = params.sea_level_m;
  if (height_m < sea) return preview_water_albedo(sea - height_m);
  const double land_span = std::max(params.range.height_max_m - sea, 1.0);
  const Rgb c = params.palette == PreviewPalette::arid ? arid_land_colour(height_m - sea, land_span)
                                                       : land_colour(height_m - sea, land_span);
  return {c.r, c.g, c.b};
}

void PreviewWater::validate(std::size_t cells, std::string_view who) const {
  const auto check = [&](std::size_t n, const char* name) {
    if (n != 0 && n != cells) {
      throw Error(ErrorCategory::invalid_argument, std::string(who) + ": " + name + " holds " +
                                                       std::to_string(n) + " values; the map has " +
                                                       std::to_string(cells) + " cells");
    }
  };
  check(water_level_m.size(), "water_level_m");
  check(river.size(), "river");
}

void render_preview(const Field2D& heights, const PreviewParams& params,
                    std::span<std::uint8_t> rgb, const ExecContext& ctx) {
  render_preview(heights, params, PreviewWater{}, rgb, ctx);
}

namespace {

// The preview a row at a time: the colour tables formed once, each row from the heights of its
// own and its two neighbouring rows, so rows can be formed in any order and on any worker.
class PreviewRows {
 public:
  // Throws Error(invalid_argument) for bad parameters or water spans of the wrong size.
  PreviewRows(const Field2D& heights, const PreviewParams& params, const PreviewWater& water)
      : heights_(heights), water_(water) {
    params.validate();
    heights.grid.validate("preview height field");
    if (heights.data.size() != heights.grid.sample_count()) {
      throw Error(ErrorCategory::invalid_argument,
                  "preview: need " + std::to_string(heights.grid.sample_count()) +
                      " heights, got " + std::to_string(heights.data.size()));
    }
    water.validate(heights.grid.sample_count(), "preview");
    const double lo = params.range.height_min_m, hi = params.range.height_max_m;
    table_.resize(kTable);
    for (int k = 0; k < kTable; ++k) {
      const auto c = preview_albedo(params, lo + (hi - lo) * double(k) / double(kTable - 1));
      table_[std::size_t(k)] = {c[0], c[1], c[2]};
    }
    // Lakes by depth over [0, 200 m]: the same ramp as the sea.
    lake_table_.resize(kLakeTable);
    for (int k = 0; k < kLakeTable; ++k) {
      const auto c = preview_water_albedo(kLakeDepthMax * double(k) / double(kLakeTable - 1));
      lake_table_[std::size_t(k)] = {c[0], c[1], c[2]};
    }
    to_index_ = float(double(kTable - 1) / (hi - lo));
    to_lake_index_ = float(double(kLakeTable - 1) / kLakeDepthMax);
    lo_f_ = float(lo);
    sea_f_ = float(params.sea_level_m);
    ambient_ = float(params.ambient);
    gscale_ = float(params.vertical_exaggeration / (2.0 * heights.grid.spacing_m));
  }

  // Row j's RGB bytes (3 * width) into out.
  void row(int j, std::uint8_t* out) const {
    const int w = heights_.grid.width, h = heights_.grid.height;
    const auto up = heights_.row(std::max(j - 1, 0)), row = heights_.row(j),
               down = heights_.row(std::min(j + 1, h - 1));
    const std::size_t row0 = std::size_t(j) * std::size_t(w);
    const std::span<const float> level = water_.water_level_m;
    const std::span<const std::uint8_t> river = water_.river;
    // Light towards the north-west (-X, -Z) at 45 degrees: L = (-cos45 sin45, sin45, ...).
    const float lx = -0.5f, ly = 0.70710678f, lz = -0.5f;
    for (int i = 0; i < w; ++i) {
      const float hv = row[std::size_t(i)];
      const float gx =
          (row[std::size_t(std::min(i + 1, w - 1))] - row[std::size_t(std::max(i - 1, 0))]) *
          gscale_;
      const float gz = (down[std::size_t(i)] - up[std::size_t(i)]) * gscale_;
      // n = (-gx, 1, -gz) / |.|; Lambert term normalised so flat ground gives 1.
      const float ndotl = (-gx * lx + ly - gz * lz) / std::sqrt(gx * gx + 1.0f + gz * gz);
      const float lambert = std::max(ndotl, 0.0f) * (1.0f / 0.70710678f);
      float shade = ambient_ + (1.0f - ambient_) * lambert;
      Rgb c;
      bool wet = hv < sea_f_;
      if (wet) {
        float t = (hv - lo_f_) * to_index_;
        t = t > 0.0f ? t : 0.0f;  // also maps NaN to 0
        c = table_[std::size_t(std::min(int(t + 0.5f), kTable - 1))];
      } else if (!level.empty() && level[row0 + std::size_t(i)] > hv) {
        wet = true;
        const float t = (level[row0 + std::size_t(i)] - hv) * to_lake_index_;
        c = lake_table_[std::size_t(std::min(int(t + 0.5f), kLakeTable - 1))];
      } else if (!river.empty() && river[row0 + std::size_t(i)] != 0) {
        wet = true;
        c = lake_table_[0];
      } else {
        float t = (hv - lo_f_) * to_index_;
        t = t > 0.0f ? t : 0.0f;  // also maps NaN to 0
        c = table_[std::size_t(std::min(int(t + 0.5f), kTable - 1))];
      }
      if (wet) shade = 1.0f + 0.25f * (shade - 1.0f);
      out[3 * i + 0] = to_byte(c.r * shade);
      out[3 * i + 1] = to_byte(c.g * shade);
      out[3 * i + 2] = to_byte(c.b * shade);
    }
  }

 private:
  static constexpr int kLakeTable = 1024;
  static constexpr double kLakeDepthMax = 200.0;
  const Field2D& heights_;
  const PreviewWater& water_;
  std::vector<Rgb> table_, lake_table_;
  float to_index_ = 0, to_lake_index_ = 0, lo_f_ = 0, sea_f_ = 0, ambient_ = 0, gscale_ = 0;
};

}  // namespace

void render_preview(const Field2D& heights, const PreviewParams& params, const PreviewWater& water,
                    std::span<std::uint8_t> rgb, const ExecContext& ctx) {
  params.validate();
  heights.grid.validate("preview height field");
  if (heights.data.size() != heights.grid.sample_count() ||
      rgb.size() != heights.grid.sample_count() * 3) {
    throw Error(ErrorCategory::invalid_argument,
                "preview: need " + std::to_string(heights.grid.sample_count()) + " heights and " +
                    std::to_string(heights.grid.sample_count() * 3) + " RGB bytes, got " +
                    std::to_string(heights.data.size()) + " and " + std::to_string(rgb.size()));
  }
  const PreviewRows rows(heights, params, water);
  const int w = heights.grid.width;
  const int grain = std::max(1, 16384 / w);
  parallel_for(ctx, heights.grid.height, grain, [&](std::int64_t jb, std::int64_t je) {
    for (auto j = int(jb); j < int(je); ++j) {
      rows.row(j, rgb.data() + std::size_t(j) * std::size_t(w) * 3);
    }
  });
}

void write_preview_png(const std::filesystem::path& path, const Field2D& heights,
                       const PreviewParams& params, const ExecContext& ctx) {
  write_preview_png(path, heights, params, PreviewWater{}, ctx);
}

void write_preview_png(const std::filesystem::path& path, const Field2D& heights,
                       const PreviewParams& params, const PreviewWater& water,
                       const ExecContext& ctx) {
  io_detail::check_image_size(path, heights.grid.width, heights.grid.height,
                              ErrorCategory::invalid_argument);
  // Rendered a row at a time as the encoder asks for them: the RGB image is never whole.
  const PreviewRows rows(heights, params, water);
  // Fast encoding: a preview is written often and looked at once; time matters more than size.
  io_detail::write_png_atomic(
      path, heights.grid.width, heights.grid.height, 2, 8,
      [&](int j, std::uint8_t* out) { rows.row(j, out); }, true, ctx);
}

}  // namespace terrane
