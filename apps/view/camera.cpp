#include "camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

namespace terrane::view {

glm::dvec3 Camera::forward() const {
  const double yaw = glm::radians(yaw_deg), pitch = glm::radians(pitch_deg);
  return {std::sin(yaw) * std::cos(pitch), std::sin(pitch), std::cos(yaw) * std::cos(pitch)};
}

glm::dvec3 Camera::right() const {
  const double yaw = glm::radians(yaw_deg);
  return {-std::cos(yaw), 0.0, std::sin(yaw)};
}

glm::dvec3 reference_point(const Camera& camera) {
  constexpr double kLattice = 4096.0;
  return {std::floor(camera.x_m / kLattice) * kLattice, 0.0,
          std::floor(camera.z_m / kLattice) * kLattice};
}

glm::mat4 view_projection(const Camera& camera, double aspect, double near_m, double far_m) {
  const glm::vec3 f(camera.forward());
  const glm::mat4 view = glm::lookAt(glm::vec3(0.0f), f, glm::vec3(0.0f, 1.0f, 0.0f));
  const glm::mat4 proj = glm::perspective(float(glm::radians(camera.fov_deg)), float(aspect),
                                          float(near_m), float(far_m));
  return proj * view;
}

FrameView frame_view(const Camera& camera, int width, int height, double view_distance_m) {
  FrameView v;
  const double aspect = double(width) / double(std::max(height, 1));
  v.far_m = std::max(view_distance_m * 1.5, 2000.0) + std::abs(camera.y_m) * 2.0;
  v.near_m = std::clamp(v.far_m * 1e-5, 0.3, 10.0);
  v.view_proj = view_projection(camera, aspect, v.near_m, v.far_m);
  v.ref = reference_point(camera);
  v.cam_offset = glm::vec3(float(camera.x_m - v.ref.x), float(camera.y_m - v.ref.y),
                           float(camera.z_m - v.ref.z));
  v.sun = glm::normalize(glm::vec3(0.45f, 0.6f, 0.35f));
  return v;
}

bool outside_frustum(const glm::mat4& m, const glm::vec3& lo, const glm::vec3& hi) {
  // Each clip plane: all eight corners outside it means the box is outside.
  int outside[6] = {0, 0, 0, 0, 0, 0};
  for (int c = 0; c < 8; ++c) {
    const glm::vec4 p =
        m * glm::vec4((c & 1) ? hi.x : lo.x, (c & 2) ? hi.y : lo.y, (c & 4) ? hi.z : lo.z, 1.0f);
    outside[0] += p.x < -p.w;
    outside[1] += p.x > p.w;
    outside[2] += p.y < -p.w;
    outside[3] += p.y > p.w;
    outside[4] += p.z < -p.w;
    outside[5] += p.z > p.w;
  }
  for (int k : outside) {
    if (k == 8) return true;
  }
  return false;
}

}  // namespace terrane::view
