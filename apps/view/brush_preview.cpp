#include "brush_preview.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace terrane::view {
namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr double kMaxSegment_m = 1.5;  // the circle follows the ground at this spacing or finer
constexpr int kMinSegments = 48, kMaxSegments = 256;

}  // namespace

std::array<std::uint8_t, 4> brush_colour(BrushKind kind) {
  switch (kind) {
    case BrushKind::raise:
      return {255, 165, 30, 255};  // orange
    case BrushKind::lower:
      return {40, 170, 255, 255};  // blue
    case BrushKind::smooth:
      return {120, 255, 110, 255};  // green
    case BrushKind::flatten:
      return {255, 255, 255, 255};  // white
    case BrushKind::noise:
      return {215, 120, 255, 255};  // violet
  }
  return {255, 255, 255, 255};
}

std::array<std::uint8_t, 4> brush_colour(const BrushSettings& s) {
  switch (s.layer) {
    case EditLayer::heights:
      return brush_colour(s.kind);
    case EditLayer::blocks:
      return s.block_kind == BlockBrushKind::dig ? std::array<std::uint8_t, 4>{170, 110, 60, 255}
             : s.block_kind == BlockBrushKind::fill
                 ? std::array<std::uint8_t, 4>{200, 200, 200, 255}
                 : std::array<std::uint8_t, 4>{60, 230, 230, 255};
    case EditLayer::instances:
      return s.instance_kind == InstanceKind::fell ? std::array<std::uint8_t, 4>{235, 50, 40, 255}
             : s.instance_kind == InstanceKind::plant
                 ? std::array<std::uint8_t, 4>{180, 255, 40, 255}
                 : std::array<std::uint8_t, 4>{255, 230, 40, 255};
    case EditLayer::paint:
      return s.paint_kind == PaintKind::paint ? std::array<std::uint8_t, 4>{255, 80, 200, 255}
                                              : std::array<std::uint8_t, 4>{180, 180, 180, 255};
  }
  return {255, 255, 255, 255};
}

void BrushPreview::draw(const FrameView& view, const Camera& camera, const TerrainQuery& ground,
                        double x_m, double z_m, const BrushSettings& settings, int height_px,
                        float fog) {
  if (drawer_ == nullptr) drawer_ = std::make_unique<NavOverlay>();
  ribbon_.clear();
  ribbon_.origin_x_m = x_m;
  ribbon_.origin_z_m = z_m;
  const glm::dvec3 eye(camera.x_m, camera.y_m, camera.z_m);
  // Metres per pixel at distance 1: bands and lifts keep a few pixels far away.
  const double pixel =
      2.0 * std::tan(glm::radians(camera.fov_deg) * 0.5) / double(std::max(height_px, 1));
  auto px_at = [&](double px, const std::array<double, 3>& p) {
    return px * pixel * glm::length(glm::dvec3(p[0], p[1], p[2]) - eye);
  };
  auto on_ground = [&](double x, double z) {
    std::array<double, 3> p{x, ground.height_at(x, z), z};
    p[1] += std::max(0.3, px_at(1.5, p));
    return p;
  };
  std::array<std::uint8_t, 4> outer = brush_colour(settings);
  std::array<std::uint8_t, 4> inner = outer;
  inner[3] = 150;
  auto circle = [&](double r, double width_px, const std::array<std::uint8_t, 4>& rgba) {
    const int n =
        std::clamp(int(std::ceil(kTwoPi * r / kMaxSegment_m)), kMinSegments, kMaxSegments);
    std::array<double, 3> prev = on_ground(x_m + r, z_m);
    for (int k = 1; k <= n; ++k) {
      const double a = kTwoPi * k / n;
      const std::array<double, 3> p = on_ground(x_m + r * std::cos(a), z_m + r * std::sin(a));
      ribbon_.band(prev, p, eye, std::max(0.1, px_at(width_px, prev)), rgba.data());
      prev = p;
    }
  };
  const double r = settings.radius_m;
  circle(r, 1.5, outer);
  const bool falloff = settings.layer == EditLayer::heights || settings.layer == EditLayer::paint;
  if (falloff && settings.falloff_start > 0.05 && settings.falloff_start < 0.95) {
    circle(r * settings.falloff_start, 0.8, inner);
  }
  // The centre: a small cross on the ground.
  const double arm = std::max(0.08 * r, 0.5);
  for (int axis = 0; axis < 2; ++axis) {
    const double dx = axis == 0 ? arm : 0.0, dz = axis == 0 ? 0.0 : arm;
    const std::array<double, 3> a = on_ground(x_m - dx, z_m - dz), c = on_ground(x_m, z_m),
                                b = on_ground(x_m + dx, z_m + dz);
    ribbon_.band(a, c, eye, px_at(1.0, c), outer.data());
    ribbon_.band(c, b, eye, px_at(1.0, c), outer.data());
  }
  drawer_->draw_geometry(view, none_, ribbon_, fog);
}

}  // namespace terrane::view
