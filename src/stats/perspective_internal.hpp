// Internal pieces of the perspective render (perspective.cpp): camera frames (camera.cpp) and
// the sun-shadow sweep (sun_shadow.cpp).
#pragma once

#include <span>
#include <vector>

#include "terrane/stats.hpp"

namespace terrane::perspective_detail {

struct Vec3 {
  double x = 0.0, y = 0.0, z = 0.0;
};
inline double dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 operator-(const Vec3& a, const Vec3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline Vec3 operator+(const Vec3& a, const Vec3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline Vec3 operator*(double s, const Vec3& a) {
  return {s * a.x, s * a.y, s * a.z};
}
inline Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// World -> camera: xc = (p - eye).right, yc = (p - eye).up, depth = (p - eye).forward;
// pixel (sx, sy) = (width / 2 + focal * xc / depth, height / 2 - focal * yc / depth), pixel
// centres at half-integers.
struct CameraFrame {
  Vec3 eye, forward, right, up;
  int width = 0, height = 0;
  double focal_px = 1.0;
  // The (unnormalised) ray through pixel centre (c + 0.5, r + 0.5).
  Vec3 ray(int c, int r) const {
    const double u = (double(c) + 0.5 - 0.5 * double(width)) / focal_px;
    const double v = (0.5 * double(height) - double(r) - 0.5) / focal_px;
    return forward + u * right + v * up;
  }
};
CameraFrame make_frame(const Camera& cam, int width, int height);

// The automatic camera's heading: from beyond the south-west corner towards the north-east.
inline constexpr double kAutoYawDeg = -45.0;
// A camera of the given heading, pitch and field of view, as near as all points still project
// inside the image with a margin of 3% of its smaller side (bisection on the distance), moved
// across the view so that their projection is centred (four rounds of distance and shift).
Camera frame_points(std::span<const Vec3> points, int width, int height, double fov_y_deg,
                    double pitch_deg, double yaw_deg);

// Light factor of the sun per sample of a w x h row-major height grid of spacing `spacing_m`
// (1: lit, 0: in the shadow of terrain towards the sun, soft over about one cell). The sweep
// walks the grid line by line away from the sun keeping the height of the shadow volume
// (max of the terrain and the predecessor's shadow height minus the drop of the sun's ray),
// interpolated linearly between the two predecessors. O(w h), single thread.
void sun_shadow(std::span<const float> heights, int w, int h, double spacing_m,
                double sun_azimuth_deg, double sun_elevation_deg, std::span<float> light);

}  // namespace terrane::perspective_detail
