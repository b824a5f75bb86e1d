// The block world near the camera and the height field beyond it.
//
// Chunks: each ready chunk's quads go into one buffer (8 bytes a quad, the library's PackedQuad
// unchanged: opaque, then transparent, then liquid ones) drawn as instances of 6 vertices whose
// positions, normals, colours and baked AO the vertex shader decodes (kBlockVertex). With the
// streamer's default BlockAo::occupancy the quads carry no AO (so they merge as without it)
// and the chunk's padded opaque column masks go into a small RG32UI texture, from which the
// fragment shader computes the library's per-vertex AO at the face's corners and interpolates
// it (kBlockFragment, occupancy_ao). Quads lie on
// exposed faces only (the mesher culls faces between blocks, also across chunk borders through
// its one-block padding), so the cost is the surface, not the volume.
//
// The seam between the two worlds. The height field (terrain, its scatter, the sea disc, lakes
// and rivers) keeps being drawn everywhere, except where block_covered() (shaders.hpp) says the
// blocks draw the world instead: within the inner radius (the block view distance minus one
// chunk, inside which every wanted chunk lies whole) at the points whose chunk, and the chunks
// half a chunk above and below, are on the GPU. So
//   - while chunks load, or above and below the block range (it is the viewer's height +-
//     the vertical distance), the height field shows: no holes, and a mountain that rises
//     out of the block range stays smooth above it;
//   - in the band from the inner radius to the outer edge of the wanted chunks (the view
//     distance plus half a chunk's diagonal) both worlds are drawn and the depth test picks
//     the nearer surface; the blocks end there (their fragment shader discards beyond it, also
//     in chunks the hysteresis keeps), so the band is under two chunks wide. The block
//     surface is the same terrain (the density reads the height field, plus overhangs and
//     caves), so in the band steps of blocks poke out of the smooth slope and the smooth slope
//     covers cave mouths, rather than a gap showing the sky;
//   - what remains: a ray that enters a hollow of the block world (a cave mouth, a basin the
//     height field does not have) inside the inner radius and leaves the block chunks below
//     the height field's surface meets nothing (the cut chunks have no walls there), and shows
//     what is behind: the sky or far terrain, a few pixels at the seam in some views (key-colour
//     pictures of default --blocks, 640 x 360, six headings: 0 to 8 such pixels each; no test
//     counts them, because block trees against the sky defeat the crack tests' "below the
//     silhouette" rule);
//   - the band lies 150 m and more away, where the same fog as the terrain's already washes
//     colours towards the horizon colour; a block world's fine detail (single blocks, AO)
//     does not reach it.
// Trees of the height field's scatter are collapsed where their foot is covered out to the
// block view distance, where the block world's own trees end; the sea disc and the lake sheets
// leave the covered area to the block water. Key-colour pictures (crack tests) draw the blocks
// without liquids (they have no sea) and no fog: a hole in the seam or a crack between quads then
// shows the key colour.
#include "block_renderer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <glm/gtc/type_ptr.hpp>

#include "shaders.hpp"
#include "world_renderer.hpp"

namespace terrane::view {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Palette alpha: the fragment shader treats alpha below 0.7 as a liquid (fresnel glint).
constexpr std::uint8_t kOpaqueAlpha = 255, kTransparentAlpha = 230, kLiquidAlpha = 153;

}  // namespace

void BlockCover::apply(GLuint p) const {
  glUniform1i(uniform(p, "u_block_on"), on ? 1 : 0);
  // Its own unit even when off: no two sampler types of a program may share one.
  glUniform1i(uniform(p, "u_block_mask"), kBlockMaskUnit);
  if (!on) return;
  glActiveTexture(GL_TEXTURE0 + kBlockMaskUnit);
  glBindTexture(GL_TEXTURE_2D, texture);
  glActiveTexture(GL_TEXTURE0);
  glUniform2fv(uniform(p, "u_block_origin"), 1, glm::value_ptr(origin_rel));
  glUniform1f(uniform(p, "u_block_chunk_m"), chunk_m);
  glUniform1f(uniform(p, "u_block_base_y"), base_y_m);
  glUniform1f(uniform(p, "u_block_inner_m"), inner_m);
  glUniform1f(uniform(p, "u_block_outer_m"), outer_m);
  glUniform1f(uniform(p, "u_block_margin_m"), margin_m);
}

BlockRenderer::BlockRenderer(const BlockWorldGenerator& generator, double view_distance_m,
                             BlockAo ao)
    : ao_(ao),
      chunk_size_(generator.chunk_size()),
      block_m_(generator.params().block_size_m),
      chunk_m_(double(generator.chunk_size()) * generator.params().block_size_m),
      view_distance_m_(view_distance_m) {
  program_ = build_program("blocks", shaders::kBlockVertex, shaders::kBlockFragment);
  vao_ = GlVertexArray(true);

  // Palette: 256 ids a row, sRGB colour and the kind's alpha.
  const BlockPalette& palette = generator.palette();
  const int n = int(palette.types.size());
  const int rows = std::max(1, (n + 255) / 256);
  std::vector<std::uint8_t> texels(std::size_t(256) * std::size_t(rows) * 4, 0);
  liquid_.assign(palette.types.size(), 0);
  for (int id = 0; id < n; ++id) {
    const BlockType& t = palette.types[std::size_t(id)];
    std::uint8_t* texel = texels.data() + std::size_t(id) * 4;
    texel[0] = t.colour[0];
    texel[1] = t.colour[1];
    texel[2] = t.colour[2];
    texel[3] = t.kind == BlockKind::liquid        ? kLiquidAlpha
               : t.kind == BlockKind::transparent ? kTransparentAlpha
                                                  : kOpaqueAlpha;
    liquid_[std::size_t(id)] = t.kind == BlockKind::liquid ? 1 : 0;
  }
  glGenTextures(1, &palette_);
  glBindTexture(GL_TEXTURE_2D, palette_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, rows, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);

  // Cover mask: one 32-bit texel per chunk column (integer textures filter nearest only).
  cover_bits_.assign(std::size_t(kBlockMaskSide) * kBlockMaskSide, 0u);
  glGenTextures(1, &mask_);
  glBindTexture(GL_TEXTURE_2D, mask_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32UI, kBlockMaskSide, kBlockMaskSide, 0, GL_RED_INTEGER,
               GL_UNSIGNED_INT, cover_bits_.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  gpu_bytes_ = texels.size() + cover_bits_.size() * 4;
}

BlockRenderer::~BlockRenderer() {
  chunks_.clear();
  glDeleteTextures(1, &mask_);
  glDeleteTextures(1, &palette_);
  glDeleteProgram(program_);
}

void BlockRenderer::take_events(std::span<const BlockChunkEvent> events) {
  for (const BlockChunkEvent& e : events) {
    if (e.kind != BlockEventKind::evicted) {
      // Ready, or updated (new contents at the same pointer): uploaded within the budget; an
      // updated chunk's old buffers are drawn until its new ones replace them.
      if (e.chunk != nullptr) ready_[e.key] = e.chunk;
    } else {
      ready_.erase(e.key);
      if (auto it = chunks_.find(e.key); it != chunks_.end()) {
        gpu_bytes_ -= it->second.bytes;
        chunks_.erase(it);
        cover_dirty_ = true;
      }
    }
  }
}

BlockUploadStats BlockRenderer::upload(const Camera& camera, double budget_ms) {
  BlockUploadStats stats;
  const auto t0 = Clock::now();
  if (!ready_.empty()) {
    // Nearest first (the camera may have turned or moved since the streamer ranked them).
    std::vector<std::pair<double, BlockChunkKey>> order;
    order.reserve(ready_.size());
    for (const auto& [key, chunk] : ready_) {
      const double half = 0.5 * chunk_m_;
      const double dx = double(key.cx) * chunk_m_ + half - camera.x_m;
      const double dy = double(key.cy) * chunk_m_ + half - camera.y_m;
      const double dz = double(key.cz) * chunk_m_ + half - camera.z_m;
      order.emplace_back(dx * dx + dy * dy + dz * dz, key);
    }
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [d2, key] : order) {
      if (stats.uploaded > 0 && budget_ms >= 0.0 && ms_since(t0) > budget_ms) break;
      const auto it = ready_.find(key);
      upload_chunk(key, *it->second);
      ready_.erase(it);
      ++stats.uploaded;
    }
  }
  stats.pending = ready_.size();
  stats.ms = ms_since(t0);
  return stats;
}

void BlockRenderer::upload_chunk(const BlockChunkKey& key, const BlockChunkResident& chunk) {
  const BlockMesh& mesh = chunk.mesh;
  GpuChunk g;
  g.origin_x = double(key.cx) * chunk_m_;
  g.origin_y = double(key.cy) * chunk_m_;
  g.origin_z = double(key.cz) * chunk_m_;
  g.opaque = std::uint32_t(mesh.opaque.size());
  staging_.clear();
  staging_.reserve(mesh.opaque.size() + mesh.translucent.size());
  for (const PackedQuad& q : mesh.opaque) staging_.push_back(q.bits);
  auto is_liquid = [&](const PackedQuad& q) {
    return q.block() < liquid_.size() && liquid_[q.block()] != 0;
  };
  for (const PackedQuad& q : mesh.translucent) {
    if (!is_liquid(q)) staging_.push_back(q.bits);
  }
  g.transparent = std::uint32_t(staging_.size()) - g.opaque;
  for (const PackedQuad& q : mesh.translucent) {
    if (is_liquid(q)) staging_.push_back(q.bits);
  }
  g.liquid = std::uint32_t(staging_.size()) - g.opaque - g.transparent;
  if (!staging_.empty()) {
    // PackedQuad's 64 bits as the shader's uvec2 (low, high): little-endian hosts only, which
    // is every host terrane-view builds on (x86-64, arm64).
    static_assert(sizeof(PackedQuad) == 8);
    g.vbo = GlBuffer(true);
    glBindBuffer(GL_ARRAY_BUFFER, g.vbo.id());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(staging_.size() * 8), staging_.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    g.bytes = staging_.size() * 8;
  }
  if (!chunk.occupancy.empty()) {
    // The uint64 masks as RG32UI texels (low word, high word): little-endian, as above.
    const int p = chunk_size_ + 2;
    g.occupancy = GlTexture(true);
    glBindTexture(GL_TEXTURE_2D, g.occupancy.id());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RG32UI, p, p, 0, GL_RG_INTEGER, GL_UNSIGNED_INT,
                 chunk.occupancy.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    g.bytes += chunk.occupancy.size() * 8;
  }
  gpu_bytes_ += g.bytes;
  if (auto it = chunks_.find(key); it != chunks_.end()) gpu_bytes_ -= it->second.bytes;
  chunks_.insert_or_assign(key, std::move(g));
  cover_dirty_ = true;
}

const BlockCover& BlockRenderer::update_cover(const Camera& camera, bool enabled) {
  cover_.on = enabled && !chunks_.empty();
  if (!cover_.on) return cover_;
  const std::int64_t col_x = std::int64_t(std::floor(camera.x_m / chunk_m_)) - kBlockMaskSide / 2;
  const std::int64_t col_z = std::int64_t(std::floor(camera.z_m / chunk_m_)) - kBlockMaskSide / 2;
  const std::int64_t row = std::int64_t(std::floor(camera.y_m / chunk_m_)) - kBlockMaskRows / 2;
  if (cover_dirty_ || col_x != cover_col_x_ || col_z != cover_col_z_ || row != cover_row_) {
    cover_col_x_ = col_x;
    cover_col_z_ = col_z;
    cover_row_ = row;
    std::fill(cover_bits_.begin(), cover_bits_.end(), 0u);
    for (const auto& [key, g] : chunks_) {
      const std::int64_t i = key.cx - col_x, j = key.cz - col_z, r = key.cy - row;
      if (i < 0 || j < 0 || r < 0 || i >= kBlockMaskSide || j >= kBlockMaskSide ||
          r >= kBlockMaskRows) {
        continue;
      }
      cover_bits_[std::size_t(j) * kBlockMaskSide + std::size_t(i)] |= 1u << unsigned(r);
    }
    glBindTexture(GL_TEXTURE_2D, mask_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kBlockMaskSide, kBlockMaskSide, GL_RED_INTEGER,
                    GL_UNSIGNED_INT, cover_bits_.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    cover_dirty_ = false;
  }
  const glm::dvec3 ref = reference_point(camera);
  cover_.texture = mask_;
  cover_.origin_rel =
      glm::vec2(float(double(col_x) * chunk_m_ - ref.x), float(double(col_z) * chunk_m_ - ref.z));
  cover_.chunk_m = float(chunk_m_);
  cover_.base_y_m = float(double(row) * chunk_m_);
  cover_.inner_m = float(std::max(0.0, view_distance_m_ - chunk_m_));
  cover_.outer_m = float(view_distance_m_);
  cover_.margin_m = float(0.5 * chunk_m_);
  return cover_;
}

BlockDrawStats BlockRenderer::draw_opaque(const FrameView& view, const DrawSettings& settings,
                                          float fog) {
  BlockDrawStats stats;
  draw_pass(view, settings, fog, Pass::opaque, stats);
  return stats;
}

BlockDrawStats BlockRenderer::draw_translucent(const FrameView& view, const DrawSettings& settings,
                                               float fog) {
  BlockDrawStats stats;
  draw_pass(view, settings, fog, Pass::transparent, stats);
  if (!settings.key_colour) draw_pass(view, settings, fog, Pass::liquid, stats);
  return stats;
}

void BlockRenderer::draw_pass(const FrameView& view, const DrawSettings& settings, float fog,
                              Pass pass, BlockDrawStats& stats) {
  // Chunks in the frustum, front to back for the opaque pass (early depth rejection), back to
  // front for the translucent ones.
  order_.clear();
  const float size = float(chunk_m_);
  for (const auto& [key, g] : chunks_) {
    const std::uint32_t count = pass == Pass::opaque        ? g.opaque
                                : pass == Pass::transparent ? g.transparent
                                                            : g.liquid;
    if (count == 0) continue;
    const glm::vec3 lo(float(g.origin_x - view.ref.x) - view.cam_offset.x,
                       float(g.origin_y - view.ref.y) - view.cam_offset.y,
                       float(g.origin_z - view.ref.z) - view.cam_offset.z);
    if (outside_frustum(view.view_proj, lo, lo + glm::vec3(size))) {
      if (pass == Pass::opaque) ++stats.chunks_culled;
      continue;
    }
    const glm::vec3 c = lo + glm::vec3(0.5f * size);
    const double d2 = double(glm::dot(c, c));
    order_.emplace_back(pass == Pass::opaque ? d2 : -d2, &g);
  }
  std::sort(order_.begin(), order_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (order_.empty()) return;

  const GLuint p = program_;
  glUseProgram(p);
  glUniformMatrix4fv(uniform(p, "u_view_proj"), 1, GL_FALSE, glm::value_ptr(view.view_proj));
  glUniform3fv(uniform(p, "u_cam_offset"), 1, glm::value_ptr(view.cam_offset));
  glUniform1f(uniform(p, "u_block_m"), float(block_m_));
  glUniform3fv(uniform(p, "u_sun"), 1, glm::value_ptr(view.sun));
  glUniform3fv(uniform(p, "u_fog_colour"), 1, glm::value_ptr(view.fog_colour));
  glUniform1f(uniform(p, "u_fog_density"), fog);
  // Whole wanted chunks (centres within the view distance) reach this far; chunks kept by the
  // hysteresis beyond it are not drawn, so the edge does not depend on the way the camera came.
  glUniform1f(uniform(p, "u_reach_m"), float(view_distance_m_ + 0.71 * chunk_m_));
  glUniform1i(uniform(p, "u_palette"), 0);
  glUniform1i(uniform(p, "u_block_mask"), kBlockMaskUnit);
  glUniform1i(uniform(p, "u_occupancy"), kBlockOccupancyUnit);
  glUniform1i(uniform(p, "u_ao_mode"), ao_ == BlockAo::none ? 0 : ao_ == BlockAo::baked ? 1 : 2);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, palette_);
  const GLint u_origin_rel = uniform(p, "u_origin_rel"), u_wire = uniform(p, "u_wire");
  glBindVertexArray(vao_.id());
  glEnableVertexAttribArray(0);
  glVertexAttribDivisor(0, 1);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  if (pass == Pass::opaque) {
    // Every quad faces out of its block: the back faces are the insides.
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
  } else {
    // Water and leaves are seen from both sides (from under the water, inside a crown).
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(pass == Pass::transparent ? GL_TRUE : GL_FALSE);
  }
  const int passes = settings.wireframe && pass == Pass::opaque ? 2 : 1;
  for (int wire = 0; wire < passes; ++wire) {
    if (wire == 1) {
      glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
      glEnable(GL_POLYGON_OFFSET_LINE);
      glPolygonOffset(-1.0f, -1.0f);
    }
    glUniform1i(u_wire, wire);
    for (const auto& [d2, gp] : order_) {
      const GpuChunk& g = *gp;
      const std::uint32_t first = pass == Pass::opaque        ? 0u
                                  : pass == Pass::transparent ? g.opaque
                                                              : g.opaque + g.transparent;
      const std::uint32_t count = pass == Pass::opaque        ? g.opaque
                                  : pass == Pass::transparent ? g.transparent
                                                              : g.liquid;
      const glm::vec3 origin_rel(float(g.origin_x - view.ref.x), float(g.origin_y - view.ref.y),
                                 float(g.origin_z - view.ref.z));
      glUniform3fv(u_origin_rel, 1, glm::value_ptr(origin_rel));
      glActiveTexture(GL_TEXTURE0 + kBlockOccupancyUnit);
      glBindTexture(GL_TEXTURE_2D, g.occupancy.id());
      glActiveTexture(GL_TEXTURE0);
      glBindBuffer(GL_ARRAY_BUFFER, g.vbo.id());
      glVertexAttribIPointer(0, 2, GL_UNSIGNED_INT, 8,
                             reinterpret_cast<const void*>(std::size_t(first) * 8));
      glDrawArraysInstanced(GL_TRIANGLES, 0, 6, GLsizei(count));
      if (wire == 0) {
        stats.quads += count;
        if (pass == Pass::opaque) ++stats.chunks_drawn;
      }
    }
    if (wire == 1) {
      glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
      glDisable(GL_POLYGON_OFFSET_LINE);
    }
  }
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
  glVertexAttribDivisor(0, 0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
  glActiveTexture(GL_TEXTURE0 + kBlockOccupancyUnit);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glUseProgram(0);
}

}  // namespace terrane::view
