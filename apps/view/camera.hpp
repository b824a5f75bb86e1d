// The viewer's camera: a double-precision position (the world is big), yaw and pitch in degrees,
// and the matrices the renderer needs relative to a reference point near the camera.
#pragma once

#include <glm/glm.hpp>

namespace terrane::view {

struct Camera {
  double x_m = 0.0, y_m = 300.0, z_m = 0.0;
  double yaw_deg = 0.0;    // 0 looks along +Z, 90 along +X
  double pitch_deg = -15;  // negative looks down [Limit: -89..89]
  double fov_deg = 60.0;   // vertical field of view

  glm::dvec3 forward() const;
  glm::dvec3 right() const;  // horizontal, to the right of forward
};

// Reference point of the camera-relative coordinates: the camera's position rounded to a 4096 m
// lattice in x and z (y = 0); see shaders.hpp.
glm::dvec3 reference_point(const Camera& camera);

// Rotation and projection of camera-relative positions (the camera at the origin).
glm::mat4 view_projection(const Camera& camera, double aspect, double near_m, double far_m);

// What every program of a frame shares: the matrix of camera-relative positions, the reference
// point and the camera's offset from it (see shaders.hpp), sun and fog.
struct FrameView {
  glm::mat4 view_proj{1.0f};
  glm::dvec3 ref{0.0};
  glm::vec3 cam_offset{0.0f};
  glm::vec3 sun{0.0f, 1.0f, 0.0f};
  glm::vec3 fog_colour{0.70f, 0.78f, 0.86f};
  double near_m = 1.0, far_m = 1000.0;
};
FrameView frame_view(const Camera& camera, int width, int height, double view_distance_m);

// A chunk's box, relative to the camera, is outside the frustum (conservative: false when unsure).
bool outside_frustum(const glm::mat4& view_proj, const glm::vec3& box_min,
                     const glm::vec3& box_max);

}  // namespace terrane::view
