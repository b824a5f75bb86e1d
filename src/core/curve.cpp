// Monotone piecewise cubic Hermite interpolation: Fritsch & Carlson (1980).
#include "terrane/curve.hpp"
#include "terrane/schema.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "terrane/core.hpp"

namespace terrane {

MonotoneCurve::MonotoneCurve(std::span<const CurvePoint> points, std::string_view path) {
  const std::size_t n = points.size();
  if (n < 2) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(path) + ": a curve needs at least 2 points, got " + std::to_string(n));
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(points[k].x) || !std::isfinite(points[k].y)) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string(path) + "[" + std::to_string(k) + "]: coordinates must be finite");
    }
    if (k > 0 && !(points[k].x > points[k - 1].x)) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string(path) + "[" + std::to_string(k) +
                      "]: x = " + format_number(points[k].x) +
                      " must be greater than the previous x = " + format_number(points[k - 1].x) +
                      " (points sorted by strictly increasing x)");
    }
  }
  // Tangents computed in double once, stored as float for the float evaluator.
  std::vector<double> delta(n - 1), m(n);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    delta[k] = (points[k + 1].y - points[k].y) / (points[k + 1].x - points[k].x);
  }
  m[0] = delta[0];
  m[n - 1] = delta[n - 2];
  for (std::size_t k = 1; k + 1 < n; ++k) {
    m[k] = (delta[k - 1] * delta[k] <= 0.0) ? 0.0 : 0.5 * (delta[k - 1] + delta[k]);
  }
  for (std::size_t k = 0; k + 1 < n; ++k) {
    if (delta[k] == 0.0) {
      m[k] = 0.0;
      m[k + 1] = 0.0;
      continue;
    }
    const double a = m[k] / delta[k], b = m[k + 1] / delta[k];
    const double s = a * a + b * b;
    if (s > 9.0) {  // restrict (a, b) to the circle of radius 3: monotone (Fritsch-Carlson)
      const double t = 3.0 / std::sqrt(s);
      m[k] = t * a * delta[k];
      m[k + 1] = t * b * delta[k];
    }
  }
  x_.resize(n);
  y_.resize(n);
  m_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    x_[k] = float(points[k].x);
    y_[k] = float(points[k].y);
    m_[k] = float(m[k]);
  }
}

float MonotoneCurve::operator()(float x) const {
  if (x_.empty()) return x;
  if (!(x > x_.front())) return y_.front();
  if (x >= x_.back()) return y_.back();
  const std::size_t k = std::size_t(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()) - 1;
  const float h = x_[k + 1] - x_[k];
  const float t = (x - x_[k]) / h;
  const float t2 = t * t, t3 = t2 * t;
  const float h00 = 2.0f * t3 - 3.0f * t2 + 1.0f;
  const float h10 = t3 - 2.0f * t2 + t;
  const float h01 = -2.0f * t3 + 3.0f * t2;
  const float h11 = t3 - t2;
  return h00 * y_[k] + h10 * h * m_[k] + h01 * y_[k + 1] + h11 * h * m_[k + 1];
}

}  // namespace terrane
