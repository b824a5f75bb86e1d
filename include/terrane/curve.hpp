// Monotone cubic curve (module core): the equivalent of Unity's AnimationCurve for remapping
// heights — flatten seas, sharpen peaks. Fritsch & Carlson, "Monotone Piecewise Cubic
// Interpolation", SIAM J. Numer. Anal. 17(2), 1980: piecewise cubic Hermite through the points
// with tangents limited so that the curve never overshoots between points (monotone data gives
// a monotone curve). Outside the first/last point the curve is constant.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace terrane {

struct CurvePoint {
  double x = 0.0;
  double y = 0.0;
};

class MonotoneCurve {
 public:
  MonotoneCurve() = default;
  // Points sorted by strictly increasing, finite x; at least 2. Throws Error(invalid_argument)
  // naming `path` otherwise.
  explicit MonotoneCurve(std::span<const CurvePoint> points, std::string_view path = "curve");

  // Evaluates in float with a fixed operation order (deterministic on every target).
  float operator()(float x) const;
  std::span<const float> xs() const { return x_; }

 private:
  std::vector<float> x_, y_, m_;  // knots and Hermite tangents
};

}  // namespace terrane
