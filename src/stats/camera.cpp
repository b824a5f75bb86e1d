// Cameras of the perspective render (terrane/stats.hpp): validation, look-at, the automatic
// framing of a map and the `--camera` / `--perspective-size` parsers.
//
// The automatic camera frames the map's bounding box (its four corners at the lowest and the
// highest height): the eye moves back along the view direction until the eight corners project
// inside the image with a margin; the distance is found by bisection (the projections shrink
// towards the image centre monotonically as the eye moves back).
#include <charconv>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "stats/perspective_internal.hpp"
#include "terrane/schema.hpp"
#include "terrane/stats.hpp"

namespace terrane {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;
using perspective_detail::CameraFrame;
using perspective_detail::Vec3;

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = text.find(sep, at);
    parts.push_back(text.substr(at, next == std::string_view::npos ? text.size() - at : next - at));
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return parts;
}

bool parse_double(std::string_view s, double& v) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(v);
}

}  // namespace

namespace perspective_detail {

CameraFrame make_frame(const Camera& cam, int width, int height) {
  CameraFrame f;
  f.eye = {cam.x_m, cam.y_m, cam.z_m};
  const double cy = std::cos(cam.yaw_deg * kDeg), sy = std::sin(cam.yaw_deg * kDeg);
  const double cp = std::cos(cam.pitch_deg * kDeg), sp = std::sin(cam.pitch_deg * kDeg);
  f.forward = {cp * cy, sp, cp * sy};
  f.right = {-sy, 0.0, cy};
  f.up = {-sp * cy, cp, -sp * sy};
  f.width = width;
  f.height = height;
  f.focal_px = 0.5 * double(height) / std::tan(0.5 * cam.fov_y_deg * kDeg);
  return f;
}

Camera frame_points(std::span<const Vec3> points, int width, int height, double fov_y_deg,
                    double pitch_deg, double yaw_deg) {
  Camera cam;
  cam.yaw_deg = yaw_deg;
  cam.pitch_deg = pitch_deg;
  cam.fov_y_deg = fov_y_deg;
  cam.validate();
  Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const Vec3& p : points) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  Vec3 centre = 0.5 * (lo + hi);
  const CameraFrame base = make_frame(cam, width, height);
  const double margin = 0.03 * double(std::min(width, height));
  // The points' pixel bounds from an eye dist behind `centre` (false when one is behind it).
  struct Bounds {
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  };
  const auto bounds = [&](double dist, Bounds& b) {
    const Vec3 eye = centre - dist * base.forward;
    b = Bounds{};
    for (const Vec3& p : points) {
      const Vec3 d = p - eye;
      const double zc = dot(d, base.forward);
      if (zc <= 1e-6) return false;
      const double sx = 0.5 * double(width) + base.focal_px * dot(d, base.right) / zc;
      const double sy = 0.5 * double(height) - base.focal_px * dot(d, base.up) / zc;
      b = {std::min(b.x0, sx), std::max(b.x1, sx), std::min(b.y0, sy), std::max(b.y1, sy)};
    }
    return true;
  };
  const auto fits = [&](double dist) {
    Bounds b;
    return bounds(dist, b) && b.x0 >= margin && b.x1 <= double(width) - margin && b.y0 >= margin &&
           b.y1 <= double(height) - margin;
  };
  const double extent = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1.0});
  double dist = extent;
  // Nearest distance that fits, then the view shifted across so the points' bounds are centred
  // in the image; a few rounds (each shift lets the next distance be nearer).
  for (int round = 0; round < 4; ++round) {
    double near = 0.0, far = extent;
    while (!fits(far)) far *= 2.0;  // terminates: far enough, every point is near the centre
    for (int k = 0; k < 50; ++k) {
      const double mid = 0.5 * (near + far);
      (fits(mid) ? far : near) = mid;
    }
    dist = far;
    if (round == 3) break;
    Bounds b;
    bounds(dist, b);
    const double px_to_m = dist / base.focal_px;  // at the depth of the centre
    const double dx = 0.5 * (b.x0 + b.x1) - 0.5 * double(width);
    const double dy = 0.5 * (b.y0 + b.y1) - 0.5 * double(height);
    centre = centre + (dx * px_to_m) * base.right - (dy * px_to_m) * base.up;
  }
  const Vec3 eye = centre - dist * base.forward;
  cam.x_m = eye.x;
  cam.y_m = eye.y;
  cam.z_m = eye.z;
  return cam;
}

}  // namespace perspective_detail

void Camera::validate() const {
  check_range("camera.x_m", x_m, Range::any());
  check_range("camera.y_m", y_m, Range::any());
  check_range("camera.z_m", z_m, Range::any());
  check_range("camera.yaw_deg", yaw_deg, Range::any());
  check_range("camera.pitch_deg", pitch_deg, Range{-90.0, 90.0, true, true});
  check_range("camera.fov_y_deg", fov_y_deg, Range::closed(1.0, 150.0));
}

Camera camera_look_at(double eye_x_m, double eye_y_m, double eye_z_m, double target_x_m,
                      double target_y_m, double target_z_m, double fov_y_deg) {
  const double dx = target_x_m - eye_x_m, dy = target_y_m - eye_y_m, dz = target_z_m - eye_z_m;
  const double horizontal = std::hypot(dx, dz);
  if (!std::isfinite(horizontal) || !std::isfinite(dy) || horizontal <= 1e-9 * std::abs(dy) ||
      horizontal == 0.0) {
    throw Error(ErrorCategory::invalid_argument,
                "camera_look_at: the target must not lie straight above or below the eye (or on "
                "it); the camera has no roll and needs a heading");
  }
  Camera c;
  c.x_m = eye_x_m;
  c.y_m = eye_y_m;
  c.z_m = eye_z_m;
  c.yaw_deg = std::atan2(dz, dx) / kDeg;
  c.pitch_deg = std::atan2(dy, horizontal) / kDeg;
  c.fov_y_deg = fov_y_deg;
  c.validate();
  return c;
}

Camera auto_camera(const GridSpec& grid, double height_min_m, double height_max_m, int width,
                   int height, double fov_y_deg, double pitch_deg) {
  grid.validate("auto_camera grid");
  check_range("auto_camera width", std::int64_t(width), kMinPerspectiveSide, kMaxPerspectiveSide);
  check_range("auto_camera height", std::int64_t(height), kMinPerspectiveSide, kMaxPerspectiveSide);
  check_range("auto_camera height_min_m", height_min_m, Range::any());
  check_range("auto_camera height_max_m", height_max_m, Range{height_min_m, INFINITY});
  check_range("auto_camera pitch_deg", pitch_deg, Range{-89.0, 0.0, false, true});
  std::vector<Vec3> corners;
  for (const double x : {grid.x_m(0), grid.x_m(grid.width - 1)}) {
    for (const double z : {grid.z_m(0), grid.z_m(grid.height - 1)}) {
      for (const double y : {height_min_m, height_max_m}) corners.push_back({x, y, z});
    }
  }
  return perspective_detail::frame_points(corners, width, height, fov_y_deg, pitch_deg,
                                          perspective_detail::kAutoYawDeg);
}

std::optional<Camera> parse_camera(std::string_view text) {
  if (text.empty() || text == "auto") return std::nullopt;
  const std::vector<std::string_view> parts = split(text, ',');
  if (parts.size() != 5 && parts.size() != 6) {
    throw Error(ErrorCategory::invalid_argument,
                "--camera: expected 'auto' or x,y,z,yaw,pitch[,fov] (metres, degrees), got '" +
                    std::string(text) + "' (" + std::to_string(parts.size()) + " values)");
  }
  static constexpr const char* kNames[] = {"x", "y", "z", "yaw", "pitch", "fov"};
  double v[6] = {0, 0, 0, 0, 0, 40.0};
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parse_double(parts[k], v[k])) {
      throw Error(ErrorCategory::invalid_argument, "--camera: " + std::string(kNames[k]) + " = '" +
                                                       std::string(parts[k]) +
                                                       "' is not a finite number");
    }
  }
  Camera c{v[0], v[1], v[2], v[3], v[4], v[5]};
  try {
    c.validate();
  } catch (const Error& e) {
    throw Error(e.category(), std::string("--camera: ") + e.what());
  }
  return c;
}

void parse_perspective_size(std::string_view text, int& width, int& height) {
  const std::size_t x = text.find('x');
  const auto bad = [&](const std::string& why) {
    throw Error(ErrorCategory::invalid_argument,
                "--perspective-size: '" + std::string(text) + "' " + why);
  };
  if (x == std::string_view::npos) bad("is not WIDTHxHEIGHT (e.g. 1920x1080)");
  int v[2] = {0, 0};
  const std::string_view parts[2] = {text.substr(0, x), text.substr(x + 1)};
  for (int k = 0; k < 2; ++k) {
    const std::string_view p = parts[k];
    const auto r = std::from_chars(p.data(), p.data() + p.size(), v[k]);
    if (p.empty() || r.ec != std::errc() || r.ptr != p.data() + p.size()) {
      bad("is not WIDTHxHEIGHT (e.g. 1920x1080)");
    }
    if (v[k] < kMinPerspectiveSide || v[k] > kMaxPerspectiveSide) {
      bad(std::string(k == 0 ? "width " : "height ") + std::to_string(v[k]) +
          " is outside the allowed range " + std::to_string(kMinPerspectiveSide) + ".." +
          std::to_string(kMaxPerspectiveSide));
    }
  }
  width = v[0];
  height = v[1];
}

}  // namespace terrane
