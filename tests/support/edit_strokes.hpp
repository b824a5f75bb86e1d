// Strokes and instances for the edit layers' tests (edit.hpp): one builder per layer, so each
// test names only what it varies.
#pragma once

#include <cstdint>

#include "terrane/edit.hpp"

namespace terrane::test {

inline HeightBrush height_brush(BrushKind kind, double x, double z, double radius,
                                double strength = 2.0, double falloff_start = 0.5) {
  HeightBrush b;
  b.kind = kind;
  b.x_m = x, b.z_m = z, b.radius_m = radius, b.strength_m = strength;
  b.falloff_start = falloff_start;
  return b;
}

inline BlockBrush block_sphere(BlockBrushKind kind, double x, double y, double z, double radius,
                               std::uint16_t block = 0) {
  BlockBrush b;
  b.kind = kind;
  b.x_m = x, b.y_m = y, b.z_m = z, b.radius_m = radius, b.block = block;
  return b;
}

inline SplatBrush paint_brush(int layer, double x, double z, double radius, double strength,
                              double falloff_start = 0.5) {
  SplatBrush b;
  b.kind = PaintKind::paint;
  b.layer = layer;
  b.x_m = x, b.z_m = z, b.radius_m = radius, b.strength = strength;
  b.falloff_start = falloff_start;
  return b;
}

// A scatter instance as a chunk would hold it: an id, a place and a pose of its own.
struct Pose {
  float yaw_deg = 10.0f, scale_xz = 1.5f, scale_y = 2.0f;
};
inline ScatterInstance posed_instance(std::uint64_t id, double x, double z, int species = 0,
                                      Pose pose = {}) {
  ScatterInstance p;
  p.id = id;
  p.x_m = x;
  p.z_m = z;
  p.species = species;
  p.yaw_deg = pose.yaw_deg;
  p.scale_xz = pose.scale_xz;
  p.scale_y = pose.scale_y;
  return p;
}

}  // namespace terrane::test
