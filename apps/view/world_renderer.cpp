#include "world_renderer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <glm/gtc/type_ptr.hpp>
#include <unordered_set>

#include "scatter_meshes.hpp"
#include "shaders.hpp"

namespace terrane::view {
namespace {

using Clock = std::chrono::steady_clock;

// position 3, normal 3, morph 1, splat colour (4 bytes) 1, biome colour (4 bytes) 1
constexpr int kVertexFloats = 9;
constexpr int kInstanceFloats = 6;  // position 3, yaw, scale_xz, scale_y
constexpr int kScatterTiles = 8;  // a level-0 chunk's instances in 8 x 8 tiles, culled by distance

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

glm::vec3 lod_colour(int level) {
  static constexpr float kColours[][3] = {
      {0.95f, 0.25f, 0.20f}, {0.98f, 0.62f, 0.15f}, {0.95f, 0.90f, 0.20f}, {0.35f, 0.85f, 0.30f},
      {0.20f, 0.75f, 0.85f}, {0.25f, 0.40f, 0.95f}, {0.65f, 0.30f, 0.90f}, {0.90f, 0.35f, 0.70f}};
  const auto& c = kColours[level % 8];
  return {c[0], c[1], c[2]};
}

// Height tint for presets drawn without splat data (never the case in the viewer today, kept
// so a chunk without surface data still reads as terrain).
std::array<float, 3> height_colour(float y, float sea) {
  const float t = std::clamp((y - sea) / 1500.0f, 0.0f, 1.0f);
  return {0.35f + 0.4f * t, 0.45f + 0.25f * t, 0.25f + 0.45f * t};
}

bool contains(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (s.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

ScatterKind kind_of(const std::string& species_name, int index) {
  std::string s = species_name;
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (contains(s, {"pine", "spruce", "fir", "conifer", "larch", "cedar", "cypress"})) {
    return ScatterKind::conifer;
  }
  if (contains(s, {"bush", "shrub", "scrub", "heath", "grass", "fern"})) return ScatterKind::bush;
  if (contains(s, {"rock", "boulder", "stone", "pebble"})) return ScatterKind::boulder;
  if (contains(s, {"oak", "birch", "beech", "maple", "broadleaf", "palm", "tree"})) {
    return ScatterKind::broadleaf;
  }
  return ScatterKind(index % 4);
}

WorldRenderer::WorldRenderer(const Preset& preset, const ChunkGenerator& generator,
                             double lod0_distance_m)
    : generator_(generator),
      cells_(generator.settings().cells),
      lod0_m_(lod0_distance_m),
      sea_level_m_(float(preset.world.sea_level_m)) {
  for (const SplatLayer& l : preset.surface.layers) {
    layer_colours_.push_back({l.colour[0] / 255.0f, l.colour[1] / 255.0f, l.colour[2] / 255.0f});
  }
  for (const Biome& b : preset.surface.biomes) biome_colours_.push_back(b.colour);
  for (std::size_t s = 0; s < preset.surface.species.size(); ++s) {
    species_kind_.push_back(int(kind_of(preset.surface.species[s].name, int(s))));
  }

  // The shared index pieces: interior(0), then edge(0, e, d) for every edge and d.
  const StitchTable& table = generator.stitch_table();
  std::vector<std::uint32_t> all(table.interior(0).begin(), table.interior(0).end());
  interior_offset_ = 0;
  interior_count_ = all.size();
  edge_pieces_.resize(std::size_t(table.levels() + 1));
  for (int d = 0; d <= table.levels(); ++d) {
    for (int e = 0; e < 4; ++e) {
      const auto piece = table.edge(0, Edge(e), d);
      edge_pieces_[std::size_t(d)][std::size_t(e)] = {all.size() * 4, piece.size()};
      all.insert(all.end(), piece.begin(), piece.end());
    }
  }
  indices_ = GlBuffer(true);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indices_.id());
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(all.size() * 4), all.data(), GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
  gpu_bytes_ += all.size() * 4;

  terrain_program_ = build_program("terrain", shaders::kTerrainVertex, shaders::kTerrainFragment);
  sky_program_ = build_program("sky", shaders::kSkyVertex, shaders::kSkyFragment);
  water_program_ = build_program("water", shaders::kWaterVertex, shaders::kWaterFragment);
  scatter_program_ = build_program("scatter", shaders::kScatterVertex, shaders::kScatterFragment);
  empty_vao_ = GlVertexArray(true);

  // Sea: a unit disc in rings whose radii grow geometrically (fine near the camera).
  std::vector<float> disc;
  constexpr int kSegments = 64, kRings = 24;
  auto ring_radius = [](int r) { return r == 0 ? 0.0 : std::pow(2.0, (r - kRings) * 0.5); };
  for (int r = 0; r < kRings; ++r) {
    for (int s = 0; s < kSegments; ++s) {
      const double a0 = 2.0 * 3.14159265358979 * s / kSegments;
      const double a1 = 2.0 * 3.14159265358979 * (s + 1) / kSegments;
      const double r0 = ring_radius(r), r1 = ring_radius(r + 1);
      const float q[4][2] = {{float(r0 * std::cos(a0)), float(r0 * std::sin(a0))},
                             {float(r0 * std::cos(a1)), float(r0 * std::sin(a1))},
                             {float(r1 * std::cos(a0)), float(r1 * std::sin(a0))},
                             {float(r1 * std::cos(a1)), float(r1 * std::sin(a1))}};
      for (int k : {0, 2, 1, 1, 2, 3}) disc.insert(disc.end(), {q[k][0], q[k][1]});
    }
  }
  water_vertices_ = GLsizei(disc.size() / 2);
  water_vao_ = GlVertexArray(true);
  water_vbo_ = GlBuffer(true);
  glBindVertexArray(water_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, water_vbo_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(disc.size() * 4), disc.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 8, nullptr);
  glBindVertexArray(0);

  const KindGeometry geometry[8] = {conifer_geometry(false), broadleaf_geometry(false),
                                    bush_geometry(false),    boulder_geometry(false),
                                    conifer_geometry(true),  broadleaf_geometry(true),
                                    bush_geometry(true),     boulder_geometry(true)};
  for (int k = 0; k < 8; ++k) {
    kinds_[std::size_t(k)].vbo = GlBuffer(true);
    kinds_[std::size_t(k)].ibo = GlBuffer(true);
    glBindBuffer(GL_ARRAY_BUFFER, kinds_[std::size_t(k)].vbo.id());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(geometry[k].vertices.size() * 4),
                 geometry[k].vertices.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    kinds_[std::size_t(k)].index_count = GLsizei(geometry[k].indices.size());
    // Element buffers are bound through the scatter VAO when drawn.
    glBindVertexArray(empty_vao_.id());
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, kinds_[std::size_t(k)].ibo.id());
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(geometry[k].indices.size() * 4),
                 geometry[k].indices.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
  }
  scatter_vao_ = GlVertexArray(true);
}

WorldRenderer::~WorldRenderer() {
  chunks_.clear();
  glDeleteProgram(terrain_program_);
  glDeleteProgram(sky_program_);
  glDeleteProgram(water_program_);
  glDeleteProgram(scatter_program_);
}

void WorldRenderer::take_events(std::span<const ChunkEvent> events) {
  for (const ChunkEvent& e : events) {
    if (e.kind == ChunkEventKind::ready) {
      if (ready_.emplace(e.key, e.data).second) ready_order_.push_back(e.key);
    } else {
      // evicted: free the buffers; updated (set_edits): free them too, and upload() sends the
      // new contents, since the chunk is visible and no longer on the GPU.
      ready_.erase(e.key);
      if (auto it = chunks_.find(e.key); it != chunks_.end()) {
        gpu_bytes_ -= it->second.bytes;
        chunks_.erase(it);
      }
    }
  }
}

UploadStats WorldRenderer::upload(std::span<const VisibleChunk> visible, double budget_ms) {
  UploadStats stats;
  const auto t0 = Clock::now();
  for (const VisibleChunk& v : visible) {
    if (chunks_.contains(v.key)) continue;
    upload_chunk(v.key, *v.data);
    ready_.erase(v.key);
    ++stats.uploaded;
    if (ms_since(t0) > budget_ms) ++stats.forced;
  }
  while (!ready_order_.empty() && ms_since(t0) < budget_ms) {
    const ChunkKey key = ready_order_.front();
    ready_order_.pop_front();
    const auto it = ready_.find(key);
    if (it == ready_.end()) continue;  // evicted, or uploaded as a visible chunk
    if (!chunks_.contains(key)) {
      upload_chunk(key, *it->second);
      ++stats.uploaded;
    }
    ready_.erase(it);
  }
  // Drop queue entries whose chunk is gone.
  while (!ready_order_.empty() && !ready_.contains(ready_order_.front())) ready_order_.pop_front();
  stats.pending = ready_.size();
  stats.ms = ms_since(t0);
  return stats;
}

void WorldRenderer::upload_chunk(const ChunkKey& key, const ChunkData& data) {
  const Mesh& mesh = data.mesh;
  const int n1 = cells_ + 1, w = cells_ + 3;
  const std::size_t nv = mesh.vertex_count();
  staging_.resize(nv * kVertexFloats);
  const bool morph = mesh.morph_y.size() == nv;
  const int layers = data.splat_layers;
  for (std::size_t v = 0; v < nv; ++v) {
    float* out = staging_.data() + v * kVertexFloats;
    std::memcpy(out, &mesh.positions[3 * v], 12);
    std::memcpy(out + 3, &mesh.normals[3 * v], 12);
    out[6] = morph ? mesh.morph_y[v] : mesh.positions[3 * v + 1];
    std::array<float, 3> c{0.5f, 0.5f, 0.5f};
    int dominant = 0;
    const int i = int(v % std::size_t(n1)), j = int(v / std::size_t(n1));
    if (layers > 0 && v < std::size_t(n1) * std::size_t(n1) &&
        data.splat.size() >= std::size_t(w) * std::size_t(w) * std::size_t(layers)) {
      const std::uint8_t* wt =
          data.splat.data() +
          (std::size_t(j + 1) * std::size_t(w) + std::size_t(i + 1)) * std::size_t(layers);
      c = {0.0f, 0.0f, 0.0f};
      int best = -1;
      for (int l = 0; l < layers && l < int(layer_colours_.size()); ++l) {
        const float f = wt[l] / 255.0f;
        for (int k = 0; k < 3; ++k)
          c[std::size_t(k)] += f * layer_colours_[std::size_t(l)][std::size_t(k)];
        if (wt[l] > best) {
          best = wt[l];
          dominant = l;
        }
      }
    } else {
      c = height_colour(mesh.positions[3 * v + 1], sea_level_m_);
    }
    const std::uint8_t rgba[4] = {std::uint8_t(std::clamp(c[0], 0.0f, 1.0f) * 255.0f + 0.5f),
                                  std::uint8_t(std::clamp(c[1], 0.0f, 1.0f) * 255.0f + 0.5f),
                                  std::uint8_t(std::clamp(c[2], 0.0f, 1.0f) * 255.0f + 0.5f),
                                  std::uint8_t(dominant)};
    std::memcpy(out + 7, rgba, 4);
    std::uint8_t biome[4] = {128, 128, 128, 0};
    if (data.biome.size() == std::size_t(w) * std::size_t(w) &&
        v < std::size_t(n1) * std::size_t(n1)) {
      const std::uint8_t b = data.biome[std::size_t(j + 1) * std::size_t(w) + std::size_t(i + 1)];
      if (b < biome_colours_.size()) {
        biome[0] = biome_colours_[b][0];
        biome[1] = biome_colours_[b][1];
        biome[2] = biome_colours_[b][2];
      }
      biome[3] = b;
    }
    std::memcpy(out + 8, biome, 4);
  }
  GpuChunk g;
  g.vbo = GlBuffer(true);
  g.vao = GlVertexArray(true);
  g.origin_x = mesh.origin_x_m;
  g.origin_y = mesh.origin_y_m;
  g.origin_z = mesh.origin_z_m;
  g.bbox_min = {mesh.bbox_min[0], mesh.bbox_min[1], mesh.bbox_min[2]};
  g.bbox_max = {mesh.bbox_max[0], mesh.bbox_max[1], mesh.bbox_max[2]};
  glBindVertexArray(g.vao.id());
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(staging_.size() * 4), staging_.data(), GL_STATIC_DRAW);
  constexpr GLsizei stride = kVertexFloats * 4;
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(12));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(24));
  glEnableVertexAttribArray(3);
  glVertexAttribPointer(3, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<void*>(28));
  glEnableVertexAttribArray(4);
  glVertexAttribPointer(4, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<void*>(32));
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indices_.id());
  glBindVertexArray(0);
  g.bytes = staging_.size() * 4;

  // Scatter: instances sorted by (kind, tile), one range each.
  if (!data.scatter.empty()) {
    const double size = generator_.chunk_size_m(key.level);
    const int kinds = 4;
    std::vector<std::uint32_t> counts(std::size_t(kinds * kScatterTiles * kScatterTiles), 0);
    std::vector<std::uint32_t> bucket(data.scatter.size());
    for (std::size_t s = 0; s < data.scatter.size(); ++s) {
      const ScatterInstance& inst = data.scatter[s];
      const int kind = inst.species >= 0 && std::size_t(inst.species) < species_kind_.size()
                           ? species_kind_[std::size_t(inst.species)]
                           : 0;
      const int tx =
          std::clamp(int((inst.x_m - g.origin_x) / size * kScatterTiles), 0, kScatterTiles - 1);
      const int tz =
          std::clamp(int((inst.z_m - g.origin_z) / size * kScatterTiles), 0, kScatterTiles - 1);
      bucket[s] = std::uint32_t((kind * kScatterTiles + tz) * kScatterTiles + tx);
      ++counts[bucket[s]];
    }
    std::vector<std::uint32_t> start(counts.size() + 1, 0);
    for (std::size_t b = 0; b < counts.size(); ++b) start[b + 1] = start[b] + counts[b];
    instance_staging_.assign(data.scatter.size() * kInstanceFloats, 0.0f);
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t s = 0; s < data.scatter.size(); ++s) {
      const ScatterInstance& inst = data.scatter[s];
      float* out = instance_staging_.data() + std::size_t(fill[bucket[s]]++) * kInstanceFloats;
      out[0] = float(inst.x_m - g.origin_x);
      out[1] = inst.y_m;
      out[2] = float(inst.z_m - g.origin_z);
      out[3] = float(glm::radians(double(inst.yaw_deg)));
      out[4] = inst.scale_xz;
      out[5] = inst.scale_y;
    }
    for (std::size_t b = 0; b < counts.size(); ++b) {
      if (counts[b] == 0) continue;
      const int kind = int(b) / (kScatterTiles * kScatterTiles);
      const int tz = (int(b) / kScatterTiles) % kScatterTiles, tx = int(b) % kScatterTiles;
      g.ranges.push_back({kind, start[b], counts[b], float((tx + 0.5) * size / kScatterTiles),
                          float((tz + 0.5) * size / kScatterTiles)});
    }
    g.instances = GlBuffer(true);
    glBindBuffer(GL_ARRAY_BUFFER, g.instances.id());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(instance_staging_.size() * 4),
                 instance_staging_.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    g.bytes += instance_staging_.size() * 4;
  }
  gpu_bytes_ += g.bytes;
  chunks_.insert_or_assign(key, std::move(g));
}

DrawStats WorldRenderer::draw(const Camera& camera, int width, int height,
                              std::span<const VisibleChunk> visible, const DrawSettings& settings,
                              double view_distance_m, const BlockCover& cover) {
  DrawStats stats;
  const FrameView fv = frame_view(camera, width, height, view_distance_m);
  const glm::mat4& view_proj = fv.view_proj;
  const glm::dvec3& ref = fv.ref;
  const glm::vec3& cam_offset = fv.cam_offset;
  const glm::vec3& sun = fv.sun;
  const glm::vec3& fog_colour = fv.fog_colour;
  const bool key = settings.key_colour;
  const float fog = (settings.fog && !key) ? float(fog_density(view_distance_m)) : 0.0f;

  glViewport(0, 0, width, height);
  if (key) {
    glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
  } else {
    glClearColor(fog_colour.r, fog_colour.g, fog_colour.b, 1.0f);
  }
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);

  if (settings.sky && !key) {
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    glUseProgram(sky_program_);
    glUniformMatrix4fv(uniform(sky_program_, "u_inv_view_proj"), 1, GL_FALSE,
                       glm::value_ptr(glm::inverse(view_proj)));
    glUniform3fv(uniform(sky_program_, "u_sun"), 1, glm::value_ptr(sun));
    glUniform3fv(uniform(sky_program_, "u_fog_colour"), 1, glm::value_ptr(fog_colour));
    glBindVertexArray(empty_vao_.id());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glDepthMask(GL_TRUE);
  }
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);

  if (settings.terrain) {
    // Edges bordering a finer visible chunk stay unmorphed: that neighbour stitches to them.
    std::unordered_set<ChunkKey, KeyHash> shown;
    for (const VisibleChunk& v : visible) shown.insert(v.key);
    auto covered_by_same_or_coarser = [&](ChunkKey k) {
      for (int up = 0; k.level + up <= kMaxChunkLevel; ++up) {
        if (shown.contains(k.ancestor(up))) return true;
      }
      return false;
    };
    static constexpr int kStep[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

    glUseProgram(terrain_program_);
    const GLuint p = terrain_program_;
    glUniformMatrix4fv(uniform(p, "u_view_proj"), 1, GL_FALSE, glm::value_ptr(view_proj));
    glUniform3fv(uniform(p, "u_cam_offset"), 1, glm::value_ptr(cam_offset));
    glUniform1i(uniform(p, "u_cells"), cells_);
    glUniform1f(uniform(p, "u_grow"), float(settings.grow));
    glUniform1f(uniform(p, "u_sea"), sea_level_m_);
    glUniform3fv(uniform(p, "u_sun"), 1, glm::value_ptr(sun));
    glUniform3fv(uniform(p, "u_fog_colour"), 1, glm::value_ptr(fog_colour));
    glUniform1f(uniform(p, "u_fog_density"), fog);
    glUniform1f(uniform(p, "u_walkable_deg"), float(settings.walkable_deg));
    cover.apply(p);
    // Key-colour pictures end at the view disc, which the visible set always covers: the
    // terrain is then one surface from the camera outwards (coarse chunks overhanging the disc
    // could show a far ridge with key colour below it, which is no crack).
    glUniform1f(uniform(p, "u_clip_m"), key ? float(view_distance_m) : 0.0f);
    const GLint u_origin_rel = uniform(p, "u_origin_rel"),
                u_origin_mod = uniform(p, "u_origin_mod"), u_morph = uniform(p, "u_morph"),
                u_pin = uniform(p, "u_pin"), u_overlay = uniform(p, "u_overlay"),
                u_lod_colour = uniform(p, "u_lod_colour");
    const int passes = settings.wireframe ? 2 : 1;
    for (int pass = 0; pass < passes; ++pass) {
      if (pass == 1) {
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glEnable(GL_POLYGON_OFFSET_LINE);
        glPolygonOffset(-1.0f, -1.0f);
      }
      glUniform1i(u_overlay, pass == 1 ? 9 : int(settings.overlay));
      for (const VisibleChunk& v : visible) {
        const auto it = chunks_.find(v.key);
        if (it == chunks_.end()) continue;
        const GpuChunk& g = it->second;
        const glm::vec3 origin_rel(float(g.origin_x - ref.x), float(g.origin_y - ref.y),
                                   float(g.origin_z - ref.z));
        const glm::vec3 lo = origin_rel - cam_offset + g.bbox_min;
        const glm::vec3 hi = origin_rel - cam_offset + g.bbox_max;
        if (!key && outside_frustum(view_proj, lo, hi)) {
          if (pass == 0) ++stats.chunks_culled;
          continue;
        }
        int pin = 0;
        for (int e = 0; e < 4; ++e) {
          const ChunkKey n{v.key.cx + kStep[e][0], v.key.cz + kStep[e][1], v.key.level};
          if (!covered_by_same_or_coarser(n)) pin |= 1 << e;
        }
        const double end = std::ldexp(lod0_m_, v.key.level);
        glUniform3fv(u_origin_rel, 1, glm::value_ptr(origin_rel));
        glUniform2f(u_origin_mod, float(std::fmod(std::fmod(g.origin_x, 512.0) + 512.0, 512.0)),
                    float(std::fmod(std::fmod(g.origin_z, 512.0) + 512.0, 512.0)));
        glUniform2f(u_morph, float(end * 0.7), float(end));
        glUniform1i(u_pin, pin);
        const glm::vec3 lc = lod_colour(v.key.level);
        glUniform3fv(u_lod_colour, 1, glm::value_ptr(lc));
        GLsizei counts[5];
        const void* offsets[5];
        counts[0] = GLsizei(interior_count_);
        offsets[0] = reinterpret_cast<const void*>(interior_offset_);
        std::size_t indices = interior_count_;
        for (int e = 0; e < 4; ++e) {
          const int d = std::clamp(v.stitch[std::size_t(e)], 0, int(edge_pieces_.size()) - 1);
          const auto [offset, count] = edge_pieces_[std::size_t(d)][std::size_t(e)];
          counts[e + 1] = GLsizei(count);
          offsets[e + 1] = reinterpret_cast<const void*>(offset);
          indices += count;
        }
        glBindVertexArray(g.vao.id());
        glMultiDrawElements(GL_TRIANGLES, counts, GL_UNSIGNED_INT, offsets, 5);
        if (pass == 0) {
          ++stats.chunks_drawn;
          stats.triangles += indices / 3;
        }
      }
      if (pass == 1) {
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glDisable(GL_POLYGON_OFFSET_LINE);
      }
    }
  }

  if (settings.scatter && !key) {
    draw_scatter(view_proj, ref, camera, visible, settings, view_distance_m, cover, stats);
  }
  glBindVertexArray(0);
  glUseProgram(0);
  return stats;
}

void WorldRenderer::draw_sea(const Camera& camera, int width, int height,
                             const DrawSettings& settings, double view_distance_m,
                             const BlockCover& cover) {
  const FrameView fv = frame_view(camera, width, height, view_distance_m);
  const glm::mat4& view_proj = fv.view_proj;
  const glm::vec3& sun = fv.sun;
  const glm::vec3& fog_colour = fv.fog_colour;
  const bool key = settings.key_colour;
  const float fog = (settings.fog && !key) ? float(fog_density(view_distance_m)) : 0.0f;
  if (settings.water && !key) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    glUseProgram(water_program_);
    glUniformMatrix4fv(uniform(water_program_, "u_view_proj"), 1, GL_FALSE,
                       glm::value_ptr(view_proj));
    glUniform1f(uniform(water_program_, "u_radius"), float(view_distance_m));
    (void)fv.far_m;
    glUniform1f(uniform(water_program_, "u_height_rel"), float(sea_level_m_ - camera.y_m));
    glUniform3fv(uniform(water_program_, "u_sun"), 1, glm::value_ptr(sun));
    glUniform3fv(uniform(water_program_, "u_fog_colour"), 1, glm::value_ptr(fog_colour));
    glUniform1f(uniform(water_program_, "u_fog_density"), fog);
    glUniform3fv(uniform(water_program_, "u_cam_offset"), 1, glm::value_ptr(fv.cam_offset));
    cover.apply(water_program_);
    glBindVertexArray(water_vao_.id());
    glDrawArrays(GL_TRIANGLES, 0, water_vertices_);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }
  glBindVertexArray(0);
  glUseProgram(0);
}

void WorldRenderer::draw_scatter(const glm::mat4& view_proj, const glm::dvec3& ref,
                                 const Camera& camera, std::span<const VisibleChunk> visible,
                                 const DrawSettings& settings, double view_distance_m,
                                 const BlockCover& cover, DrawStats& stats) {
  const GLuint p = scatter_program_;
  glUseProgram(p);
  glUniformMatrix4fv(uniform(p, "u_view_proj"), 1, GL_FALSE, glm::value_ptr(view_proj));
  const glm::vec3 cam_offset(float(camera.x_m - ref.x), float(camera.y_m - ref.y),
                             float(camera.z_m - ref.z));
  glUniform3fv(uniform(p, "u_cam_offset"), 1, glm::value_ptr(cam_offset));
  glUniform1f(uniform(p, "u_grow"), float(settings.grow));
  glUniform1f(uniform(p, "u_sea"), sea_level_m_);
  const glm::vec3 sun = glm::normalize(glm::vec3(0.45f, 0.6f, 0.35f));
  glUniform3fv(uniform(p, "u_sun"), 1, glm::value_ptr(sun));
  glUniform3f(uniform(p, "u_fog_colour"), 0.70f, 0.78f, 0.86f);
  glUniform1f(uniform(p, "u_fog_density"),
              settings.fog ? float(fog_density(view_distance_m)) : 0.0f);
  glUniform1f(uniform(p, "u_reach"), float(settings.scatter_distance_m));
  cover.apply(p);
  const GLint u_origin_rel = uniform(p, "u_origin_rel");
  glBindVertexArray(scatter_vao_.id());
  for (int a = 0; a < 5; ++a) glEnableVertexAttribArray(GLuint(a));
  glVertexAttribDivisor(3, 1);
  glVertexAttribDivisor(4, 1);
  const double reach = settings.scatter_distance_m;
  for (int mesh = 0; mesh < 8; ++mesh) {
    const int kind = mesh % 4;
    const bool far = mesh >= 4;
    const KindMesh& km = kinds_[std::size_t(mesh)];
    glBindBuffer(GL_ARRAY_BUFFER, km.vbo.id());
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 36, nullptr);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 36, reinterpret_cast<void*>(12));
    glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, 36, reinterpret_cast<void*>(24));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, km.ibo.id());
    for (const VisibleChunk& v : visible) {
      if (v.key.level != 0) continue;
      const auto it = chunks_.find(v.key);
      if (it == chunks_.end() || it->second.ranges.empty()) continue;
      const GpuChunk& g = it->second;
      const glm::vec3 origin_rel(float(g.origin_x - ref.x), float(g.origin_y - ref.y),
                                 float(g.origin_z - ref.z));
      const glm::vec3 rel0 = origin_rel - cam_offset;
      if (outside_frustum(view_proj, rel0 + g.bbox_min, rel0 + g.bbox_max + glm::vec3(0, 20, 0))) {
        continue;
      }
      glUniform3fv(u_origin_rel, 1, glm::value_ptr(origin_rel));
      glBindBuffer(GL_ARRAY_BUFFER, g.instances.id());
      const double half_tile = generator_.chunk_size_m(0) / kScatterTiles * 0.75;
      for (const InstanceRange& r : g.ranges) {
        if (r.kind != kind) continue;
        const double dx = rel0.x + r.cx, dz = rel0.z + r.cz;
        const double d = std::sqrt(dx * dx + dz * dz) - half_tile;
        if (d > reach || (d > settings.scatter_near_m) != far) continue;
        const std::size_t base = std::size_t(r.first) * kInstanceFloats * 4;
        glVertexAttribPointer(3, 3, GL_FLOAT, GL_FALSE, kInstanceFloats * 4,
                              reinterpret_cast<void*>(base));
        glVertexAttribPointer(4, 3, GL_FLOAT, GL_FALSE, kInstanceFloats * 4,
                              reinterpret_cast<void*>(base + 12));
        glDrawElementsInstanced(GL_TRIANGLES, km.index_count, GL_UNSIGNED_INT, nullptr,
                                GLsizei(r.count));
        stats.instances += r.count;
      }
    }
  }
  glBindVertexArray(0);
}

}  // namespace terrane::view
