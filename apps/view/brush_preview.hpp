// The brush tool's preview: a circle of the brush's radius draped on the edited ground under the
// cursor (TerrainQuery::height_at along it), a fainter circle where the falloff starts, and a
// cross at the centre, coloured by the brush's layer and kind. Drawn as camera-facing bands through
// the navmesh overlay's per-frame geometry path (faint where the ground hides it, bright where it
// is in view), after the world and before the panel.
#pragma once

#include <array>
#include <cstdint>

#include "brush_tool.hpp"
#include "camera.hpp"
#include "nav_overlay.hpp"
#include "terrane/world.hpp"

namespace terrane::view {

// The outer circle's colour for a brush kind (RGBA); tests look for it.
std::array<std::uint8_t, 4> brush_colour(BrushKind kind);
// The outer circle's colour for the settings' layer and kind (the heights': the kind's).
std::array<std::uint8_t, 4> brush_colour(const BrushSettings& settings);

class BrushPreview {
 public:
  BrushPreview() = default;  // the GL objects are made on the first draw

  // Draws the preview of `settings` centred at ground point (x, z) on `ground`'s surface into
  // the bound framebuffer of height_px rows. Needs a current GL 3.3 context.
  void draw(const FrameView& view, const Camera& camera, const TerrainQuery& ground, double x_m,
            double z_m, const BrushSettings& settings, int height_px, float fog);

 private:
  std::unique_ptr<NavOverlay> drawer_;
  NavGeometry none_, ribbon_;
};

}  // namespace terrane::view
