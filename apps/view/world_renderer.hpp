// Draws a Streamer's world as a game would: the shared stitch index pieces uploaded once,
// one vertex buffer per chunk from `ready` events (freed on `evicted`), CDLOD geomorph in the
// vertex shader, sky, fog, sea, and the scatter as instanced meshes per species kind.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "block_renderer.hpp"
#include "camera.hpp"
#include "gl_util.hpp"
#include "terrane/preset.hpp"
#include "terrane/world.hpp"

namespace terrane::view {

enum class Overlay { none = 0, lod = 1, chunk_borders = 2, slope = 3, layer_ids = 4, biomes = 5 };
inline constexpr int kOverlayCount = 6;
inline constexpr const char* kOverlayNames[kOverlayCount] = {"none",  "lod",    "borders",
                                                             "slope", "layers", "biomes"};

struct DrawSettings {
  bool terrain = true, water = true, scatter = true, sky = true, fog = true;
  bool blocks = true;     // the block world, when the session streams one (--blocks)
  bool nav = true;        // the navmesh overlay, when the session streams a navmesh (--nav)
  bool nav_crowd = true;  // its crowd agents
  int nav_agent = 0;      // whose navmesh the overlay shows (-1: every agent's) and paths use
  bool wireframe = false;
  Overlay overlay = Overlay::none;
  double walkable_deg = 45.0;  // slope overlay: the agent's walkable limit
  double grow = 1.0;           // growth animation, 0..1
  double scatter_distance_m = 1000.0;
  double scatter_near_m = 250.0;  // detailed meshes within this distance, low-poly beyond
  // Key-colour mode (crack tests): clear to pure magenta, no sky, fog, water or scatter, and the
  // terrain clipped to the view disc.
  bool key_colour = false;
};

struct UploadStats {
  std::size_t uploaded = 0;  // chunks uploaded this frame
  std::size_t forced = 0;    // of which visible ones uploaded beyond the time budget
  std::size_t pending = 0;   // ready chunks still waiting for an upload
  double ms = 0.0;
};

struct DrawStats {
  std::size_t chunks_drawn = 0, chunks_culled = 0, triangles = 0, instances = 0;
};

// Species kinds with their own mesh; a species' kind comes from its name (see kind_of).
enum class ScatterKind { conifer = 0, broadleaf = 1, bush = 2, boulder = 3 };
ScatterKind kind_of(const std::string& species_name, int index);

class WorldRenderer {
 public:
  // `preset` gives the splat layer colours, species names and sea level; `generator` the chunk
  // layout and the stitch table. Needs a current GL 3.3 context.
  WorldRenderer(const Preset& preset, const ChunkGenerator& generator, double lod0_distance_m);
  ~WorldRenderer();
  WorldRenderer(const WorldRenderer&) = delete;
  WorldRenderer& operator=(const WorldRenderer&) = delete;

  // Records ready and evicted events (call after every update() / poll()).
  void take_events(std::span<const ChunkEvent> events);
  // Uploads the visible chunks that have no buffers yet (always: a visible chunk is never left
  // out), then other ready chunks until `budget_ms` has passed.
  UploadStats upload(std::span<const VisibleChunk> visible, double budget_ms);
  // Clears and draws sky, terrain and scatter, leaving out what `cover` says the block world
  // draws; then draw_sea() after the other opaque things (the block world's).
  DrawStats draw(const Camera& camera, int width, int height, std::span<const VisibleChunk> visible,
                 const DrawSettings& settings, double view_distance_m,
                 const BlockCover& cover = {});
  void draw_sea(const Camera& camera, int width, int height, const DrawSettings& settings,
                double view_distance_m, const BlockCover& cover = {});

  std::size_t gpu_bytes() const { return gpu_bytes_; }
  // Exponential fog density for a view distance: 78% fog at the view's edge, where the fragment
  // shaders also fade the rest away.
  static double fog_density(double view_distance_m) { return 1.5 / view_distance_m; }
  std::size_t chunks_on_gpu() const { return chunks_.size(); }

 private:
  struct InstanceRange {
    int kind = 0;
    std::uint32_t first = 0, count = 0;
    float cx = 0.0f, cz = 0.0f;  // centre of the tile, relative to the chunk origin
  };
  struct GpuChunk {
    GlBuffer vbo;
    GlVertexArray vao;
    GlBuffer instances;
    std::vector<InstanceRange> ranges;
    std::size_t bytes = 0;
    double origin_x = 0.0, origin_y = 0.0, origin_z = 0.0;
    glm::vec3 bbox_min{0.0f}, bbox_max{0.0f};
  };
  struct KeyHash {
    std::size_t operator()(const ChunkKey& k) const { return std::size_t(terrane::hash(k)); }
  };
  struct KindMesh {
    GlBuffer vbo, ibo;
    GLsizei index_count = 0;
  };

  void upload_chunk(const ChunkKey& key, const ChunkData& data);
  void draw_scatter(const glm::mat4& view_proj, const glm::dvec3& ref, const Camera& camera,
                    std::span<const VisibleChunk> visible, const DrawSettings& settings,
                    double view_distance_m, const BlockCover& cover, DrawStats& stats);

  const ChunkGenerator& generator_;
  int cells_ = 0;
  double lod0_m_ = 0.0;
  float sea_level_m_ = 0.0f;
  std::vector<std::array<float, 3>> layer_colours_;
  std::vector<std::array<std::uint8_t, 3>> biome_colours_;
  std::vector<int> species_kind_;
  std::unordered_map<ChunkKey, GpuChunk, KeyHash> chunks_;
  std::unordered_map<ChunkKey, const ChunkData*, KeyHash> ready_;
  std::deque<ChunkKey> ready_order_;
  std::size_t gpu_bytes_ = 0;
  std::vector<float> staging_;
  std::vector<float> instance_staging_;

  GlBuffer indices_;
  std::size_t interior_offset_ = 0, interior_count_ = 0;
  // [edge][coarser_by]: byte offset and count in indices_
  std::vector<std::array<std::pair<std::size_t, std::size_t>, 4>> edge_pieces_;
  GLuint terrain_program_ = 0, sky_program_ = 0, water_program_ = 0, scatter_program_ = 0;
  GlVertexArray empty_vao_, water_vao_, scatter_vao_;
  GlBuffer water_vbo_;
  GLsizei water_vertices_ = 0;
  std::array<KindMesh, 8> kinds_;  // [lod * 4 + kind]: lod 0 near, 1 far
};

}  // namespace terrane::view
