// Draws a BlockStreamer's chunks (terrane-view --blocks): one buffer of packed quads per chunk
// from `ready` events (freed on `evicted`), uploaded within a time budget per frame, drawn by
// vertex pulling with per-vertex ambient occlusion, an opaque pass and then the translucent
// blocks; and the cover mask with which the height-field world leaves out what the blocks draw
// (its far LOD beyond the block view; see block_renderer.cpp for the seam).
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <unordered_map>
#include <vector>

#include "camera.hpp"
#include "gl_util.hpp"
#include "terrane/world.hpp"

namespace terrane::view {

struct DrawSettings;

struct BlockUploadStats {
  std::size_t uploaded = 0;  // chunks uploaded this frame
  std::size_t pending = 0;   // ready chunks still waiting
  double ms = 0.0;
};

struct BlockDrawStats {
  std::size_t chunks_drawn = 0, chunks_culled = 0;
  std::size_t quads = 0;  // opaque + translucent quads drawn
};

// What the block chunks on the GPU cover, for the programs of the height-field world (the
// u_block_* uniforms and block_covered() of shaders.hpp). Texture unit kBlockMaskUnit.
struct BlockCover {
  bool on = false;
  GLuint texture = 0;
  glm::vec2 origin_rel{0.0f};  // x, z of texel (0, 0)'s corner - reference point [m]
  float chunk_m = 32.0f;
  float base_y_m = 0.0f;  // bottom of bit 0's chunk row [m]
  float inner_m = 0.0f;   // the ground is covered within this horizontal distance [m]
  float outer_m = 0.0f;   // scatter within this one (the block view distance) [m]
  float margin_m = 0.0f;  // the chunks at a point's height +- this must all be there [m]

  // Sets the uniforms of `program` (bound by the caller) and binds the mask texture.
  void apply(GLuint program) const;
};
inline constexpr int kBlockMaskUnit = 3;
// The chunk's occupancy (BlockAo::occupancy), bound per chunk.
inline constexpr int kBlockOccupancyUnit = 4;
inline constexpr int kBlockMaskSide = 64;  // chunk columns per side of the cover mask
inline constexpr int kBlockMaskRows = 32;  // chunk rows (bits of a texel)

class BlockRenderer {
 public:
  // Needs a current GL 3.3 context. view_distance_m: the streamer's view distance (blocks are
  // drawn to it; the height field takes over from it minus one chunk).
  // ao: the BlockStreamer's BlockStreamerParams::ambient_occlusion (how its meshes carry AO).
  BlockRenderer(const BlockWorldGenerator& generator, double view_distance_m, BlockAo ao);
  ~BlockRenderer();
  BlockRenderer(const BlockRenderer&) = delete;
  BlockRenderer& operator=(const BlockRenderer&) = delete;

  // Records ready and evicted events (call after every update() / poll()).
  void take_events(std::span<const BlockChunkEvent> events);
  // Uploads ready chunks, nearest to the camera first, until budget_ms has passed (at least one
  // a call); budget_ms < 0 uploads them all.
  BlockUploadStats upload(const Camera& camera, double budget_ms);
  // The cover mask around the camera from the chunks on the GPU (off when !enabled).
  const BlockCover& update_cover(const Camera& camera, bool enabled);
  // Opaque blocks into the bound framebuffer (depth-tested and written).
  BlockDrawStats draw_opaque(const FrameView& view, const DrawSettings& settings, float fog);
  // Transparent blocks (leaves, glass, ice; depth written), then liquids (blended over them,
  // no depth writes), chunks back to front. Call after everything opaque.
  BlockDrawStats draw_translucent(const FrameView& view, const DrawSettings& settings, float fog);

  std::size_t gpu_bytes() const { return gpu_bytes_; }
  std::size_t chunks_on_gpu() const { return chunks_.size(); }
  std::size_t pending() const { return ready_.size(); }

 private:
  struct GpuChunk {
    GlBuffer vbo;         // opaque quads, then transparent, then liquid ones (8 bytes each)
    GlTexture occupancy;  // RG32UI, P x P: the chunk's padded opaque column masks
    std::uint32_t opaque = 0, transparent = 0, liquid = 0;
    double origin_x = 0.0, origin_y = 0.0, origin_z = 0.0;  // minimum corner [m]
    std::size_t bytes = 0;
  };
  struct KeyHash {
    std::size_t operator()(const BlockChunkKey& k) const { return std::size_t(terrane::hash(k)); }
  };
  enum class Pass { opaque, transparent, liquid };

  void upload_chunk(const BlockChunkKey& key, const BlockChunkResident& chunk);
  void draw_pass(const FrameView& view, const DrawSettings& settings, float fog, Pass pass,
                 BlockDrawStats& stats);

  BlockAo ao_ = BlockAo::occupancy;
  int chunk_size_ = 32;
  double block_m_ = 1.0, chunk_m_ = 32.0;
  double view_distance_m_ = 0.0;
  std::vector<std::uint8_t> liquid_;  // block id -> 1 for liquid kinds
  std::unordered_map<BlockChunkKey, GpuChunk, KeyHash> chunks_;
  std::unordered_map<BlockChunkKey, const BlockChunkResident*, KeyHash> ready_;
  std::vector<std::uint64_t> staging_;
  std::size_t gpu_bytes_ = 0;
  bool cover_dirty_ = true;
  std::int64_t cover_col_x_ = 0, cover_col_z_ = 0, cover_row_ = 0;
  std::vector<std::uint32_t> cover_bits_;
  BlockCover cover_;
  std::vector<std::pair<double, const GpuChunk*>> order_;

  GLuint program_ = 0;
  GLuint palette_ = 0, mask_ = 0;
  GlVertexArray vao_;
};

}  // namespace terrane::view
