#include "water_layer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <glm/gtc/type_ptr.hpp>

#include "shaders.hpp"
#include "terrane/erosion.hpp"
#include "terrane/graph.hpp"

namespace terrane::view {
namespace {

constexpr int kMaxSamples = 1025;       // per side of the region
constexpr double kRiverAreaM2 = 1.0e6;  // as terrane generate's default
constexpr double kMinLakeDepthM = 0.5;
constexpr float kRiverLiftM = 0.6f;

}  // namespace

WaterLayer::WaterLayer(std::shared_ptr<const ChunkGenerator> generator, const Preset& preset,
                       double view_distance_m)
    : generator_(std::move(generator)),
      sea_level_m_(preset.world.sea_level_m),
      cell_m_(generator_->cell_size_m()) {
  // Twice the view distance (at most 16 km and 1025 samples), on the level-0 lattice.
  const double side = std::min({2.0 * view_distance_m, 16000.0, (kMaxSamples - 1) * cell_m_});
  samples_ = std::max(3, int(side / cell_m_) + 1);
  stats_.region_samples = samples_;
  stats_.region_m = (samples_ - 1) * cell_m_;
  program_ = build_program("water sheets", shaders::kSheetVertex, shaders::kSheetFragment);
  vao_ = GlVertexArray(true);
  vbo_ = GlBuffer(true);
  ibo_ = GlBuffer(true);
  glBindVertexArray(vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, vbo_.id());
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, nullptr);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo_.id());
  glBindVertexArray(0);
}

WaterLayer::~WaterLayer() {
  cancel_ = true;
  if (pending_.valid()) pending_.wait();
  glDeleteProgram(program_);
}

WaterLayer::Region WaterLayer::compute(double centre_x_m, double centre_z_m,
                                       std::shared_ptr<const HeightEditSnapshot> edits) const {
  const auto t0 = std::chrono::steady_clock::now();
  Region r;
  GridSpec grid;
  grid.width = samples_;
  grid.height = samples_;
  grid.spacing_m = cell_m_;
  grid.index_x0 = std::int64_t(std::floor(centre_x_m / cell_m_)) - samples_ / 2;
  grid.index_z0 = std::int64_t(std::floor(centre_z_m / cell_m_)) - samples_ / 2;
  r.origin_x_m = grid.x_m(0);
  r.origin_z_m = grid.z_m(0);
  ExecContext ctx;
  ctx.threads = 1;  // beside the streamer's workers
  ctx.cancel = &cancel_;
  Field2D heights(grid);
  evaluate(generator_->graph(), grid, heights.data, ctx);
  // The level-0 lattice (origin 0, spacing the cell): the chunks' edited heights.
  if (edits != nullptr) edits->add_to(grid, heights.data);
  HydrologyParams params;
  params.routing.use_sea_level = true;
  params.routing.sea_level_m = sea_level_m_;
  params.river_area_m2 = kRiverAreaM2;
  params.min_lake_depth_m = kMinLakeDepthM;
  Hydrology h;
  compute_hydrology(heights, params, h, ctx,
                    HydrologyParts{.routing = false, .drainage_area = false, .sea = false});

  const int n = samples_;
  auto at = [n](int i, int j) { return std::size_t(j) * std::size_t(n) + std::size_t(i); };
  for (int j = 0; j + 1 < n; ++j) {
    for (int i = 0; i + 1 < n; ++i) {
      const std::size_t c[4] = {at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)};
      int lake = -1;
      bool river = false;
      for (std::size_t k : c) {
        if (h.lake_id[k] != kNoLake && lake < 0) lake = int(k);
        river = river || h.river[k] != 0;
      }
      if (lake < 0 && !river) continue;
      const std::uint32_t first = std::uint32_t(r.vertices.size() / 4);
      const int corner[4][2] = {{i, j}, {i + 1, j}, {i, j + 1}, {i + 1, j + 1}};
      for (int k = 0; k < 4; ++k) {
        const float y =
            lake >= 0 ? h.water_level_m.data[std::size_t(lake)] : heights.data[c[k]] + kRiverLiftM;
        r.vertices.insert(r.vertices.end(),
                          {float(double(corner[k][0]) * cell_m_), y,
                           float(double(corner[k][1]) * cell_m_), lake >= 0 ? 0.0f : 1.0f});
      }
      r.indices.insert(r.indices.end(),
                       {first, first + 2, first + 1, first + 1, first + 2, first + 3});
      if (lake >= 0) {
        ++r.stats.lake_cells;
      } else {
        ++r.stats.river_cells;
      }
    }
  }
  r.stats.lakes = h.lakes.size();
  r.stats.compute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void WaterLayer::take(Region&& region) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(region.vertices.size() * 4), region.vertices.data(),
               GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(vao_.id());
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(region.indices.size() * 4),
               region.indices.data(), GL_STATIC_DRAW);
  glBindVertexArray(0);
  index_count_ = GLsizei(region.indices.size());
  origin_x_ = region.origin_x_m;
  origin_z_ = region.origin_z_m;
  centre_x_ = pending_x_;
  centre_z_ = pending_z_;
  have_region_ = true;
  const int samples = stats_.region_samples;
  const double side = stats_.region_m;
  stats_ = region.stats;
  stats_.region_samples = samples;
  stats_.region_m = side;
}

void WaterLayer::update(const Camera& camera) {
  if (pending_.valid()) {
    if (pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      stats_.computing = true;
      return;
    }
    take(pending_.get());  // rethrows a failure of the region's computation
  }
  stats_.computing = false;
  const double reach = 0.25 * stats_.region_m;
  const bool moved = !have_region_ || std::abs(camera.x_m - centre_x_) >= reach ||
                     std::abs(camera.z_m - centre_z_) >= reach;
  if (!moved && !stale_) return;
  // Edits keep the region where it is (a stroke does not move it).
  pending_x_ = moved ? camera.x_m : centre_x_;
  pending_z_ = moved ? camera.z_m : centre_z_;
  stale_ = false;
  pending_ = std::async(std::launch::async, [this, x = pending_x_, z = pending_z_, e = edits_] {
    return compute(x, z, e);
  });
  stats_.computing = true;
}

void WaterLayer::set_edits(std::shared_ptr<const HeightEditSnapshot> edits) {
  edits_ = std::move(edits);
  stale_ = true;
}

void WaterLayer::finish(const Camera& camera) {
  update(camera);
  while (pending_.valid()) {
    pending_.wait();
    update(camera);
  }
}

void WaterLayer::draw(const FrameView& view, float fog_density, const BlockCover& cover) const {
  if (!have_region_ || index_count_ == 0) return;
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(-1.0f, -1.0f);
  glUseProgram(program_);
  glUniformMatrix4fv(uniform(program_, "u_view_proj"), 1, GL_FALSE, glm::value_ptr(view.view_proj));
  const glm::vec3 origin_rel(float(origin_x_ - view.ref.x), float(-view.ref.y),
                             float(origin_z_ - view.ref.z));
  glUniform3fv(uniform(program_, "u_origin_rel"), 1, glm::value_ptr(origin_rel));
  glUniform3fv(uniform(program_, "u_cam_offset"), 1, glm::value_ptr(view.cam_offset));
  glUniform3fv(uniform(program_, "u_sun"), 1, glm::value_ptr(view.sun));
  glUniform3fv(uniform(program_, "u_fog_colour"), 1, glm::value_ptr(view.fog_colour));
  glUniform1f(uniform(program_, "u_fog_density"), fog_density);
  cover.apply(program_);
  glBindVertexArray(vao_.id());
  glDrawElements(GL_TRIANGLES, index_count_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
  glDisable(GL_POLYGON_OFFSET_FILL);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glUseProgram(0);
}

}  // namespace terrane::view
