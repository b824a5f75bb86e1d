// render_stats_charts(): the one-page chart sheet of a TerrainStats (2 x 2 panels), drawn in
// plain RGB with the built-in bitmap font (bitmap_font.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stats/bitmap_font.hpp"
#include "stats/stats_internal.hpp"
#include "terrane/stats.hpp"

namespace terrane {
namespace {

namespace sd = stats_detail;

struct Rgb {
  std::uint8_t r, g, b;
};
constexpr Rgb kInk{30, 30, 30}, kGrid{225, 225, 225}, kBlue{40, 90, 190}, kRed{200, 50, 40},
    kGrey{120, 120, 120};

constexpr int kPanelW = 640, kPanelH = 460, kTitleH = 40;

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), rgb_(std::size_t(w) * std::size_t(h) * 3, 255) {}
  void px(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    std::uint8_t* p = rgb_.data() + (std::size_t(y) * std::size_t(w_) + std::size_t(x)) * 3;
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {
    for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y) {
      for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x) px(x, y, c);
    }
  }
  void line(double x0, double y0, double x1, double y1, Rgb c, int thick = 1) {
    const int steps = int(std::max(std::abs(x1 - x0), std::abs(y1 - y0))) + 1;
    for (int s = 0; s <= steps; ++s) {
      const double t = double(s) / steps;
      const int x = int(std::lround(x0 + (x1 - x0) * t)), y = int(std::lround(y0 + (y1 - y0) * t));
      rect(x - (thick - 1) / 2, y - (thick - 1) / 2, x + thick / 2, y + thick / 2, c);
    }
  }
  // Text with its top-left corner at (x, y); `align` -1 left, 0 centred, 1 right of x.
  void text(int x, int y, std::string_view s, Rgb c, int scale = 2, int align = -1) {
    if (align == 0) x -= sd::text_width(s, scale) / 2;
    if (align == 1) x -= sd::text_width(s, scale);
    for (const char ch : s) {
      const std::uint8_t* g = sd::glyph(ch);
      for (int r = 0; r < sd::kGlyphH; ++r) {
        for (int q = 0; q < sd::kGlyphW; ++q) {
          if ((g[r] >> (sd::kGlyphW - 1 - q)) & 1) {
            rect(x + q * scale, y + r * scale, x + q * scale + scale - 1, y + r * scale + scale - 1,
                 c);
          }
        }
      }
      x += (sd::kGlyphW + 1) * scale;
    }
  }
  // Text rotated a quarter turn counter-clockwise (reads bottom to top), centred on (x, y).
  void text_up(int x, int y, std::string_view s, Rgb c, int scale = 2) {
    int yy = y + sd::text_width(s, scale) / 2;
    for (const char ch : s) {
      const std::uint8_t* g = sd::glyph(ch);
      for (int r = 0; r < sd::kGlyphH; ++r) {
        for (int q = 0; q < sd::kGlyphW; ++q) {
          if ((g[r] >> (sd::kGlyphW - 1 - q)) & 1) {
            rect(x + r * scale, yy - q * scale - scale + 1, x + r * scale + scale - 1,
                 yy - q * scale, c);
          }
        }
      }
      yy -= (sd::kGlyphW + 1) * scale;
    }
  }
  ChartImage take() { return ChartImage{w_, h_, std::move(rgb_)}; }

 private:
  int w_, h_;
  std::vector<std::uint8_t> rgb_;
};

std::string label(double v) {
  char buf[32];
  if (v != 0.0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-3)) {
    std::snprintf(buf, sizeof buf, "1E%d", int(std::lround(std::log10(std::abs(v)))));
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

// One axis: linear or log10 (then lo, hi are decades' exponents after the transform).
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double map(double v, double a, double b) const {
    const double t = ((log ? std::log10(v) : v) - lo) / (hi - lo);
    return a + (b - a) * t;
  }
  std::vector<double> ticks() const {  // tick values (not transformed)
    std::vector<double> out;
    if (log) {
      const int first = int(std::ceil(lo - 1e-9)), last = int(std::floor(hi + 1e-9));
      const int every = std::max(1, (last - first + 7) / 8);  // at most about 8 labels
      for (int e = first; e <= last; e += every) out.push_back(std::pow(10.0, e));
      return out;
    }
    const double span = hi - lo, raw = span / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      if (raw <= m * mag + 1e-12) {
        step = m * mag;
        break;
      }
    }
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * span; v += step) {
      out.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
    }
    return out;
  }
};

Axis log_axis(const std::vector<double>& values) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values) {
    if (v > 0.0) {
      lo = std::min(lo, std::log10(v));
      hi = std::max(hi, std::log10(v));
    }
  }
  if (!(hi > lo)) {
    lo = std::isfinite(lo) ? lo - 1 : 0;
    hi = lo + 2;
  }
  return Axis{std::floor(lo), std::ceil(hi), true};
}

// A panel's frame: plot rectangle, ticks, labels. Returns the plot rectangle.
struct Plot {
  int x0, y0, x1, y1;  // left, top, right, bottom
  Axis ax, ay;
  double X(double v) const { return ax.map(v, x0, x1); }
  double Y(double v) const { return ay.map(v, y1, y0); }
};

Plot frame(Canvas& cv, int px, int py, const std::string& title, const std::string& xlabel,
           const std::string& ylabel, const Axis& ax, const Axis& ay) {
  Plot p{px + 96, py + 44, px + kPanelW - 24, py + kPanelH - 64, ax, ay};
  cv.text(px + kPanelW / 2, py + 12, title, kInk, 2, 0);
  for (const double t : ax.ticks()) {
    const int x = int(std::lround(p.X(t)));
    cv.line(x, p.y0, x, p.y1, kGrid);
    cv.line(x, p.y1, x, p.y1 + 6, kInk);
    cv.text(x, p.y1 + 12, label(t), kInk, 2, 0);
  }
  for (const double t : ay.ticks()) {
    const int y = int(std::lround(p.Y(t)));
    cv.line(p.x0, y, p.x1, y, kGrid);
    cv.line(p.x0 - 6, y, p.x0, y, kInk);
    cv.text(p.x0 - 10, y - 7, label(t), kInk, 2, 1);
  }
  cv.line(p.x0, p.y0, p.x0, p.y1, kInk, 2);
  cv.line(p.x0, p.y1, p.x1, p.y1, kInk, 2);
  cv.text((p.x0 + p.x1) / 2, p.y1 + 36, xlabel, kInk, 2, 0);
  cv.text_up(px + 8, (p.y0 + p.y1) / 2, ylabel, kInk, 2);
  return p;
}

// A reason that does not fit the panel is wrapped at spaces.
void unavailable(Canvas& cv, const Plot& p, const std::string& why) {
  const int max_chars = (p.x1 - p.x0 - 20) / 12;
  std::string text = "N/A: " + why, line;
  int y = (p.y0 + p.y1) / 2 - 20;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = std::min(text.size(), pos + std::size_t(max_chars));
    if (end < text.size()) {
      const std::size_t sp = text.rfind(' ', end);
      if (sp != std::string::npos && sp > pos) end = sp;
    }
    cv.text((p.x0 + p.x1) / 2, y, text.substr(pos, end - pos), kRed, 2, 0);
    y += 20;
    pos = end + (end < text.size() && text[end] == ' ' ? 1 : 0);
  }
}

void dot(Canvas& cv, double x, double y, Rgb c) {
  const int xi = int(std::lround(x)), yi = int(std::lround(y));
  cv.rect(xi - 3, yi - 3, xi + 3, yi + 3, c);
}

std::string fixed(const Stat& s, const char* f) {
  if (!s.ok()) return "N/A";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, *s.value);
  return buf;
}

void slope_panel(Canvas& cv, const TerrainStats& s, int px, int py) {
  double top = 0.0;
  for (double v : s.slope_histogram) top = std::max(top, v);
  top = top > 0 ? top * 1.1 : 1.0;
  const Plot p = frame(cv, px, py, "SLOPE, P50 = " + fixed(s.slope_p50_deg, "%.1f") + " DEG",
                       "SLOPE (DEG)", "SHARE OF LAND", Axis{0, 90, false}, Axis{0, top, false});
  if (!s.slope_p50_deg.ok()) return unavailable(cv, p, s.slope_p50_deg.why);
  for (std::size_t b = 0; b < s.slope_histogram.size(); ++b) {
    const double v = s.slope_histogram[b];
    if (v <= 0) continue;
    cv.rect(int(p.X(double(b))) + 1, int(p.Y(v)), int(p.X(double(b + 1))) - 1, p.y1 - 1, kBlue);
  }
  const int xa = int(p.X(s.agent_slope_deg));
  for (int y = p.y0; y < p.y1; y += 8) cv.line(xa, y, xa, y + 3, kRed, 2);
  cv.text(xa + 6, p.y0 + 4, "AGENT", kRed, 2);
}

void hypsometry_panel(Canvas& cv, const TerrainStats& s, int px, int py) {
  const Plot p =
      frame(cv, px, py, "HYPSOMETRY, HI = " + fixed(s.hypsometric_integral, "%.3f"),
            "SHARE OF LAND ABOVE", "RELATIVE HEIGHT", Axis{0, 1, false}, Axis{0, 1, false});
  if (!s.hypsometric_integral.ok()) return unavailable(cv, p, s.hypsometric_integral.why);
  const auto& c = s.hypsometric_curve;
  for (std::size_t k = 1; k < c.size(); ++k) {
    cv.line(p.X(c[k - 1]), p.Y(double(k - 1) / 100.0), p.X(c[k]), p.Y(double(k) / 100.0), kBlue, 3);
  }
}

void spectrum_panel(Canvas& cv, const TerrainStats& s, int px, int py) {
  const Axis ax = log_axis(s.spectrum_wavelength_m.empty() ? std::vector<double>{10.0, 1e4}
                                                           : s.spectrum_wavelength_m);
  const Axis ay =
      log_axis(s.spectrum_power.empty() ? std::vector<double>{1.0, 1e6} : s.spectrum_power);
  const Plot p = frame(cv, px, py, "POWER SPECTRUM, BETA = " + fixed(s.beta, "%.2f"),
                       "WAVELENGTH (M)", "POWER", ax, ay);
  if (!s.beta.ok()) return unavailable(cv, p, s.beta.why);
  for (std::size_t k = 0; k < s.spectrum_wavelength_m.size(); ++k) {
    if (s.spectrum_power[k] > 0)
      dot(cv, p.X(s.spectrum_wavelength_m[k]), p.Y(s.spectrum_power[k]), kBlue);
  }
  // The fit: log10 P = slope log10 k + intercept, k = 1 / wavelength, over the fit range.
  auto power = [&](double lambda) {
    return std::pow(10.0,
                    s.spectrum_fit_slope * std::log10(1.0 / lambda) + s.spectrum_fit_intercept);
  };
  cv.line(p.X(s.beta_fit_min_m), p.Y(power(s.beta_fit_min_m)), p.X(s.beta_fit_max_m),
          p.Y(power(s.beta_fit_max_m)), kRed, 3);
  cv.text(p.x1 - 4, p.y0 + 4,
          "FIT " + label(std::round(s.beta_fit_min_m)) + "-" + label(std::round(s.beta_fit_max_m)) +
              " M",
          kRed, 2, 1);
}

void hack_panel(Canvas& cv, const TerrainStats& s, int px, int py) {
  std::vector<double> a_km2, l_km;
  for (std::size_t k = 0; k < s.hack_area_m2.size(); ++k) {
    a_km2.push_back(s.hack_area_m2[k] * 1e-6);
    l_km.push_back(s.hack_length_m[k] * 1e-3);
  }
  const Plot p =
      frame(cv, px, py, "HACK'S LAW, H = " + fixed(s.hack_h, "%.3f"), "DRAINAGE AREA (KM^2)",
            "UPSTREAM LENGTH (KM)", log_axis(a_km2.empty() ? std::vector<double>{0.1, 10} : a_km2),
            log_axis(l_km.empty() ? std::vector<double>{0.1, 10} : l_km));
  if (!s.hack_h.ok()) return unavailable(cv, p, s.hack_h.why);
  std::vector<double> x, y;
  for (std::size_t k = 0; k < a_km2.size(); ++k) {
    dot(cv, p.X(a_km2[k]), p.Y(l_km[k]), kBlue);
    x.push_back(std::log10(a_km2[k]));
    y.push_back(std::log10(l_km[k]));
  }
  const double h = *s.hack_h.value;
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    mx += x[k] / double(x.size());
    my += y[k] / double(x.size());
  }
  const double a0 = a_km2.front(), a1 = a_km2.back();
  auto len = [&](double a) { return std::pow(10.0, my + h * (std::log10(a) - mx)); };
  cv.line(p.X(a0), p.Y(len(a0)), p.X(a1), p.Y(len(a1)), kRed, 3);
}

}  // namespace

ChartImage render_stats_charts(const TerrainStats& s, std::string_view title) {
  Canvas cv(2 * kPanelW, 2 * kPanelH + kTitleH);
  char head[256];
  std::snprintf(head, sizeof head, "%.*s  %d X %d CELLS OF %g X %g M", int(title.size()),
                title.data(), s.width, s.height, s.cell_x_m, s.cell_z_m);
  cv.text(16, 12, head, kInk, 2);
  cv.line(0, kTitleH - 1, 2 * kPanelW, kTitleH - 1, kGrey);
  slope_panel(cv, s, 0, kTitleH);
  hypsometry_panel(cv, s, kPanelW, kTitleH);
  spectrum_panel(cv, s, 0, kTitleH + kPanelH);
  hack_panel(cv, s, kPanelW, kTitleH + kPanelH);
  cv.line(kPanelW, kTitleH, kPanelW, 2 * kPanelH + kTitleH, kGrey);
  cv.line(0, kTitleH + kPanelH, 2 * kPanelW, kTitleH + kPanelH, kGrey);
  return cv.take();
}

}  // namespace terrane
