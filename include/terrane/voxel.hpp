// terrane voxel: block worlds (module `voxel`; depends on core, noise, graph, mesh and surface).
// Sections, in order: the block palette, the padded block volume of one chunk and its mesher
// (exposed-face culling and greedy merging with 64-bit column masks after the binary greedy
// meshing idea of cgerikj/binary-greedy-meshing, per-vertex ambient occlusion, an opaque and a
// translucent pass, 8-byte packed quads); exports (.vox, GLB); block worlds (the preset's voxel
// section, BlockWorldGenerator: chunks as a pure function of (preset, key)). Streaming block
// chunks is BlockStreamer in the world module (world.hpp).
//
// Threading: everything is reentrant; a BlockWorldGenerator is immutable after construction and
// may generate from any number of threads at once (each with its own BlockScratch).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "terrane/edit.hpp"
#include "terrane/graph.hpp"
#include "terrane/surface.hpp"

namespace terrane {

// How a block type lets faces through.
enum class BlockKind : std::uint8_t {
  air,          // never has faces; never hides one
  opaque,       // stone, dirt: hides every face against it
  transparent,  // glass, leaves: hides nothing except (with cull_same) faces of its own type
  liquid,       // water: as transparent; a separate kind for renderers (depth, waves)
};

struct BlockType {
  std::string name;
  BlockKind kind = BlockKind::opaque;
  // A face between two blocks of this type is not drawn (water against water, glass against
  // glass); without it both faces are (leaves showing their insides).
  bool cull_same = true;
  std::array<std::uint8_t, 3> colour{128, 128, 128};
};

// Block types by id; id 0 is always air. [Limit: 1..65536 types; entry 0 of kind air]
struct BlockPalette {
  std::vector<BlockType> types;
  // Throws Error(invalid_argument) naming the entry when id 0 is not air or a name is empty or
  // repeated.
  void validate() const;
};

// The blocks of one chunk of size^3 plus a one-block border on every side (the neighbours'
// blocks the faces on the chunk's border depend on), x fastest, then z, then y:
// blocks[(y * P + z) * P + x] with P = size + 2, for x, y, z in [0, P). Interior block (i, j, k)
// of the chunk is at (i + 1, j + 1, k + 1).
//
// Optionally the volume also carries its column masks along y (binary greedy meshing: a chunk
// generator knows each block's kind as it writes it, so it can set these bits for free, and the
// mesher then never scans the ids): opaque_columns[z * P + x] has bit y set where block
// (x, y, z) is opaque, translucent_columns[z * P + x] where it is transparent or liquid (kinds
// from the palette passed to build_block_mesh); bits y >= P are zero. Both hold P * P masks, or
// both are empty. compute_block_columns fills them from the ids. Masks that disagree with the
// ids are a caller bug: build_block_mesh trusts them, reads only the ids of the blocks with a
// drawn face (and of translucent neighbours), and throws only where one of those contradicts
// the masks.
struct BlockVolume {
  int size = 0;  // [Limit: 1..62: the padded side fits a 64-bit column mask]
  std::vector<std::uint16_t> blocks;
  std::vector<std::uint64_t> opaque_columns;       // P * P masks, or empty (see above)
  std::vector<std::uint64_t> translucent_columns;  // P * P masks, or empty

  int padded() const { return size + 2; }
  std::uint16_t at(int x, int y, int z) const {
    return blocks[(std::size_t(y) * std::size_t(padded()) + std::size_t(z)) *
                      std::size_t(padded()) +
                  std::size_t(x)];
  }
  // Throws Error(invalid_argument) for a size outside 1..62 or a block count other than P^3.
  // (build_block_mesh also checks the column mask counts.)
  void validate() const;
};

inline constexpr int kMaxBlockVolumeSize = 62;

// Sets volume.opaque_columns and volume.translucent_columns from its ids and the palette's
// kinds. Throws Error(invalid_argument) as BlockVolume::validate does, or naming the first id
// outside the palette (the volume is then unchanged). O(P^3) id reads, SSE2 where available
// (about 100 us median for the P = 64 terrain chunk of bench_voxel on one core of a loaded
// 2-core EPYC VM); reentrant.
void compute_block_columns(BlockVolume& volume, const BlockPalette& palette);

// A box of blocks in world block coordinates (exports, tests), x fastest, then z, then y:
// blocks[(y * size_z + z) * size_x + x] is the block at world block (x0 + x, y0 + y, z0 + z).
struct BlockRegion {
  std::int64_t x0 = 0, y0 = 0, z0 = 0;
  int size_x = 0, size_y = 0, size_z = 0;
  std::vector<std::uint16_t> blocks;

  std::size_t block_count() const {
    return std::size_t(size_x) * std::size_t(size_y) * std::size_t(size_z);
  }
  std::uint16_t at(int x, int y, int z) const {
    return blocks[(std::size_t(y) * std::size_t(size_z) + std::size_t(z)) * std::size_t(size_x) +
                  std::size_t(x)];
  }
};

// Face directions of a quad, also bits 30..32 of a packed quad.
enum class BlockFace : std::uint8_t {
  pos_x = 0,
  neg_x = 1,
  pos_y = 2,
  neg_y = 3,
  pos_z = 4,
  neg_z = 5
};

// A packed quad, 8 bytes (for vertex pulling: a renderer expands each quad to 4 corners):
//   bits  0..5   x   bits  6..11  y   bits 12..17  z    the quad's minimum interior block
//   bits 18..23  w - 1   bits 24..29  h - 1   extent in blocks along the face's two axes
//   bits 30..32  face (BlockFace)              bits 33..48  block id
//   bits 49..56  ambient occlusion: 2 bits per corner, the number of occluding blocks (0 = open,
//                3 = fully occluded) at corners (u, v), (u + w, v), (u + w, v + h), (u, v + h)
//                in that order (corner c at bits 49 + 2c)
//   bits 57..63  zero
// The face's axes: for x faces (u, v) = (z, y), for y faces (x, z), for z faces (x, y). The quad
// covers blocks u..u+w-1, v..v+h-1 of the slice; it lies on the block's face toward `face`.
struct PackedQuad {
  std::uint64_t bits = 0;

  int x() const { return int(bits & 63u); }
  int y() const { return int((bits >> 6) & 63u); }
  int z() const { return int((bits >> 12) & 63u); }
  int w() const { return int((bits >> 18) & 63u) + 1; }
  int h() const { return int((bits >> 24) & 63u) + 1; }
  BlockFace face() const { return BlockFace((bits >> 30) & 7u); }
  std::uint16_t block() const { return std::uint16_t((bits >> 33) & 0xFFFFu); }
  // Occluding blocks (0..3) at corner c (0..3, order above).
  int occlusion(int c) const { return int((bits >> (49 + 2 * c)) & 3u); }
  static PackedQuad make(int x, int y, int z, int w, int h, BlockFace face, std::uint16_t block);
};

struct BlockMesh {
  std::vector<PackedQuad> opaque;       // faces of opaque blocks
  std::vector<PackedQuad> translucent;  // faces of transparent and liquid blocks
  std::size_t exposed_faces = 0;        // block faces the quads cover (before merging)
};

struct BlockMeshOptions {
  // Per-vertex ambient occlusion in bits 49..56 of each quad (see build_block_mesh); false =
  // those bits zero and faces merged by block type alone (fewer quads).
  bool ambient_occlusion = true;
};

// Working memory of build_block_mesh (six P * P mask arrays, 192 KiB for P = 64, and a table
// of one byte per palette entry): owned by the caller, reused from chunk to chunk, one per
// thread. Its contents between calls mean nothing.
struct BlockMeshScratch {
  std::vector<std::uint64_t> masks;      // opaque / translucent, columns (bit y) and rows (bit x)
  std::vector<std::uint8_t> block_info;  // block id -> kind and cull_same
};

// Greedy block meshing. A face of block A toward neighbour B is drawn when A is not air and
//   A opaque:                     B is not opaque;
//   A transparent or liquid:      B is neither opaque nor (with A's cull_same) of A's type.
// Only the interior blocks get faces; the border only hides them (and occludes, below).
//
// Ambient occlusion (options.ambient_occlusion): each corner of a face gets the classic
// per-vertex value from the three blocks around that corner in the layer in front of the face
// (side1 and side2 sharing an edge with the face's neighbour, and the diagonal one): 3 when
// both sides are opaque, else side1 + side2 + diagonal. Only opaque blocks occlude, for the
// faces of translucent blocks too (a water surface darkens against the shore). The one-block
// border is all the corners need, so a face on the chunk's border gets exactly the values that
// meshing one big volume would give it.
//
// Merging: faces of one direction and slice become rectangles of one block id (greedy: the
// lowest run along one axis of the slice, then as many following rows as hold the same run).
// With ambient occlusion, faces merge only when their four corner values are identical, and
// only along an axis their pattern is constant along (corners 0 = 1 and 3 = 2 for u, 0 = 3 and
// 1 = 2 for v). Neighbouring faces share the values at their shared corners, so the first
// condition implies the second; either way a merged quad renders exactly as its faces would
// with the values interpolated across each (uniform, e.g. all 0, or one face wide across its
// gradient), whichever diagonal a renderer splits it along. A face whose pattern varies along
// both axes stays a 1 x 1 quad. On steep terrain that is a large share of the faces (41% on
// the 62^3 benchmark chunk, slopes up to 1.1, where occlusion raises the quads per face from
// 0.29 to 0.59; 0.34 on hills with slopes up to 0.5, 0.25 with their water).
// A renderer can have the same AO without these constraints: mesh without it and compute the
// corner values per fragment from the volume's opaque column masks, as BlockStreamer's
// BlockAo::occupancy and terrane-view do (world.hpp).
//
// Input: without column masks in `volume` every id is read and one outside the palette is
// Error(invalid_argument) naming it; with masks (see BlockVolume) only the ids of drawn faces
// and of translucent neighbours are read, and one of those outside the palette or of another
// kind than its mask says is Error(invalid_argument). Mask counts other than 0 or P * P (or
// only one of the two given) are Error(invalid_argument). Deterministic (the same quads in the
// same order for the same input, whatever the scratch held); O(P^3 / 64) mask operations plus
// O(faces) id reads (O(P^3) id reads more without masks). bench_voxel, 62^3 terrain chunk, one
// core of a loaded 2-core EPYC VM (medians, noisy): about 110 us with masks, opaque, no
// occlusion; 210-270 us with occlusion and water. Reuses `out`'s capacity. scratch: nullptr =
// buffers for this call only. Reentrant.
void build_block_mesh(const BlockVolume& volume, const BlockPalette& palette, BlockMesh& out,
                      BlockMeshScratch* scratch = nullptr, const BlockMeshOptions& options = {});

// ---------------------------------------------------------------------------------------------
// Exports (issue 14): MagicaVoxel .vox and GLB with vertex colours.

struct Mesh;  // terrane/mesh.hpp

// Throws Error(invalid_argument, "<what>: ...") naming the value and the allowed range when a
// size is outside 1..kMaxBlockRegionSide or blocks does not hold size_x * size_y * size_z ids,
// Error(limit) when the block count exceeds kMaxBlockRegionBlocks. Block ids are not checked
// here (the exports check them while reading the blocks, naming the block).
void validate_block_region(const BlockRegion& region, std::string_view what = "block region");
inline constexpr int kMaxBlockRegionSide = 1 << 20;
inline constexpr std::uint64_t kMaxBlockRegionBlocks = std::uint64_t{1} << 36;

// MagicaVoxel .vox, version 200 (the format of ephtracy/voxel-model, MagicaVoxel-file-format-
// vox.txt and -vox-extension.txt): VOX / MAIN { SIZE, XYZI per model; the scene graph nTRN (root,
// id 0) -> nGRP (id 1) -> per model m an nTRN (id 2 + 2m, translation _t) -> nSHP (id 3 + 2m);
// LAYR 0; RGBA }.
//
// Axes. MagicaVoxel is Z-up and right-handed, like terrane (Y-up). Block (x, y, z) of the region
// (region-local, 0-based) is the scene voxel
//   X = x - floor(size_x / 2),   Y = (size_z - 1 - z) - floor(size_z / 2),   Z = y
// i.e. vox +X = terrane +x, vox +Y = terrane -z, vox +Z (up) = terrane +y: a rotation of -90
// degrees about x, not a mirror (mapping z to +Y would flip the world). The scene is centred on
// the vertical axis (MagicaVoxel's world editor spans about -1000..999) with the region's
// bottom at Z = 0; the region's world origin (x0, y0, z0) is not stored.
//
// Models: the scene is cut into tiles of 256^3 scene voxels (MagicaVoxel's largest model),
// tile (i, j, k) covering X, Y, Z in [256 i, 256 i + 256) etc. of the uncentred scene; tiles
// without a block are skipped (an all-air region still writes tile 0, with no voxels). A model
// of size (sx, sy, sz) placed at translation t has voxel (a, b, c) at t + (a, b, c) -
// floor((sx, sy, sz) / 2) (MagicaVoxel's centred models).
//
// Colours: the non-air block types present, in id order, get colour indices 1..255 (index c of
// XYZI is the c-th RGBA entry, i.e. palette index c; the RGBA chunk's 256th entry is index 0,
// unused); alpha 255; unused entries are opaque black. Transparent and liquid blocks are
// ordinary voxels of their colour (no MATL).
//
// Limits, checked before the output is allocated: validate_block_region and palette.validate();
// a block id outside the palette is Error(invalid_argument) naming the block; more than 255
// non-air types present, more than kMaxVoxModels tiles, or a file over 2^31 - 1 bytes (the
// chunk sizes are int32) are Error(limit) with the figures. Written atomically. Single-threaded;
// O(blocks); the file is built in memory (4 bytes per non-air block).
void write_vox(const std::filesystem::path& path, const BlockRegion& region,
               const BlockPalette& palette);
inline constexpr int kMaxVoxModels = 16384;

// The COLOR_0 of block meshes: colour = linear(palette sRGB colour) * factor[occlusion] with
// factor 1, 0.8, 0.65, 0.5 for 0..3 occluding blocks (PackedQuad::occlusion); alpha 1 for
// opaque blocks, these for translucent ones (BlockType has no alpha).
inline constexpr double kBlockAoFactor[4] = {1.0, 0.8, 0.65, 0.5};
inline constexpr double kBlockLiquidAlpha = 0.6;
inline constexpr double kBlockTransparentAlpha = 0.5;

// Where a volume's quads go in a mesh: interior block (0, 0, 0) of the volume is block
// `offset_*` of the mesh, whose block (0, 0, 0) has its minimum corner at the mesh's local
// origin; blocks are block_size_m metres.
struct BlockQuadFrame {
  int offset_x = 0, offset_y = 0, offset_z = 0;
  double block_size_m = 1.0;  // [Units: m] [Limit: > 0, finite]
};

// Appends two triangles per quad to `mesh` (4 vertices: positions in metres relative to the
// mesh origin, flat outward normals, uv_local = the face's (u, v) of PackedQuad in blocks from
// the mesh's block (0, 0, 0), colours as described at kBlockAoFactor) and their indices to
// `indices` (vertex numbers of `mesh`); the caller then calls set_indices and update_bbox.
// Triangles wind counter-clockwise seen from outside; a quad is split along the diagonal whose
// two corners' occlusions sum lower (c1-c3 when o0 + o2 > o1 + o3, else c0-c2), which keeps AO
// gradients symmetric. Ids outside the palette are Error(invalid_argument).
void append_block_quads(std::span<const PackedQuad> quads, const BlockPalette& palette,
                        const BlockQuadFrame& frame, Mesh& mesh,
                        std::vector<std::uint32_t>& indices);

// The meshes of a region: tiles of at most kMaxBlockVolumeSize^3 blocks meshed with
// build_block_mesh (each padded with the region's neighbouring blocks; outside the region is
// air), expanded with append_block_quads. `opaque` gets BlockMesh::opaque, `translucent` the
// transparent and liquid faces; both have origin = (x0, y0, z0) * block_size_m (positions are
// relative to it, so float precision holds far from the world origin). Either may end up
// without triangles. Throws as validate_block_region, palette.validate(), for a block size that
// is not finite and > 0, and for a block id outside the palette (naming the block). Returns the
// number of quads.
std::size_t build_block_region_meshes(const BlockRegion& region, const BlockPalette& palette,
                                      double block_size_m, Mesh& opaque, Mesh& translucent);

// GLB of a region (write_glb): node "blocks" (opaque faces, GlbMaterial::matte) and, when there
// are any, node "blocks_translucent" (GlbMaterial::matte_blend), each translated to the region's
// origin in metres, with COLOR_0 (about 184 bytes per quad). The size is checked
// (glb_size_bound against kMaxGlbBytes, Error(limit)) after meshing into packed quads (8 bytes
// each) and before the triangles are built. A region without a visible face is
// Error(invalid_argument) (a GLB needs a triangle). Written atomically. Single-threaded.
void write_block_glb(const std::filesystem::path& path, const BlockRegion& region,
                     const BlockPalette& palette, double block_size_m = 1.0);

// ---------------------------------------------------------------------------------------------
// Block worlds: the preset's "voxel" section, a density over (x, y, z), material rules, trees,
// and block chunks as a pure function of (preset, key).
//
// A block world is a lattice of cubic blocks of side block_size_m; world block (bx, by, bz)
// covers [bx, bx + 1) * block_size_m etc. Chunk (cx, cy, cz) holds the blocks
// [c * chunk_size, (c + 1) * chunk_size) on each axis.
//
// The density d(x, y, z) (solid where d > 0) is the voxel section's density graph, a volume graph
// (compile_volume) that reads the 2D terrain's height as input "height_m" (the preset's graph at
// (x, z), metres), or height_m - y without one. It is evaluated on a coarse lattice of
// density_step blocks aligned to the world (lattice point (i, j, k) at world block
// (i, j, k) * step) at block centres, and trilinearly interpolated to the block centres in float
// with a fixed operation order (as Minecraft does with its 4 x 8 x 4 cells), so every block's
// density depends only on its world position: chunks agree at their borders by construction.
//
// Materials, per block from its density and column: air where d <= 0, water instead where the
// block's centre lies below sea level (ice for the top water block where the column is colder
// than ice_below_c); a solid block within surface_band_m of the 2D surface is the column biome's
// top block when the block above is not solid, its soil block when one of the soil_depth blocks
// above is not solid; stone otherwise (cave floors deeper than the band included), and
// an ore where an ore rule's noise exceeds its threshold inside stone. Floating blocks: a solid
// block whose six neighbours are all non-solid becomes air (remove_floating), so noise leaves no
// single blocks in the air. Trees grow on top blocks of their species' biomes on a jittered grid
// (one candidate per spacing^2 cell, kept with `probability`), each a pure function of its cell;
// the generator places every tree whose extent meets the chunk, so a tree crossing a border is
// identical in both chunks.
//
// Lakes above sea level (lakes, on by default): the 2D heights of fixed windows (one per lake
// tile of lake_tile blocks, grown by lake_margin) are flooded with compute_flow_routing's
// Priority-Flood; a column's level is the highest of the windows containing it, so it is a pure
// function of the column. Lake columns hold water from the 2D surface up to the level (ice on top
// where cold), the bed under them and the columns beside them are solid up to the water's rows,
// whatever the density says, so no water block faces air sideways or below. Lake beds under
// water are soil; no trees stand in or beside a lake. docs/PRESETS.md, "voxel".

// Top and soil blocks of one biome (names of the surface section's biomes and of blocks).
struct VoxelTopRule {
  std::string biome;
  std::string top;
  std::string soil;
};

// Ore veins: `block` replaces stone where the noise (3D, on the density lattice) exceeds
// threshold, between min_y and max_y (world block rows).
struct VoxelOreRule {
  std::string block;
  NoiseParams noise;
  double threshold = 0.7;  // [Limit: [-1, 1]]
  std::int64_t min_y = -1000000, max_y = 1000000;
};

// A tree species: a trunk of height_min..height_max blocks and a crown of leaves (a sphere of
// crown_radius blocks around the trunk's top, less its corners).
struct VoxelTree {
  std::string name;
  std::vector<std::string> biomes;  // biomes it grows in (surface section names)
  std::string trunk = "log";
  std::string leaves = "leaves";
  int height_min = 4, height_max = 6;  // [Limit: 1..32, min <= max]
  int crown_radius = 2;                // [Limit: 0..8]
  int spacing = 8;                     // candidate grid cell [Units: blocks] [Limit: 2..64]
  double probability = 0.5;            // a candidate becomes a tree [Limit: [0, 1]]
};

struct VoxelParams {
  int chunk_size = 32;        // blocks per chunk side [Limit: 8, 16 or 32]
  double block_size_m = 1.0;  // [Units: m] [Limit: (0, 100]]
  int density_step = 4;       // lattice step of the density [Units: blocks] [Limit: 1, 2, 4, 8;
                              // <= chunk_size]
  // Vertical range the streamer and exports cover [Units: world block rows] (the generator
  // itself is defined for every chunk).
  std::int64_t min_y = -64, max_y = 192;
  bool has_density = false;  // the section has a density graph (else d = height_m - y)
  Graph density;             // inputs: "height_m"
  BlockPalette palette;
  std::string stone = "stone", water = "water", ice = "ice";
  std::string default_top = "grass", default_soil = "dirt";
  int soil_depth = 3;         // [Limit: 0..16]
  double ice_below_c = -1.0;  // [Units: °C] [Limit: [-100, 100]]
  bool remove_floating = true;
  // Top and soil blocks only down to this depth below the 2D surface: deeper cave floors are
  // stone [Units: m] [Limit: [0, 1e4]].
  double surface_band_m = 12.0;
  // Lakes above sea level (block_lakes.hpp): the 2D heights of windows of lake_tile +
  // 2 * lake_margin blocks, one per lake tile, are flooded (Priority-Flood; the window's border
  // and the sea drain); hollows at least min_lake_depth_m deep hold water, and a column takes the
  // highest level of the windows that contain it. A lake wider than a window drains at the
  // window's border (it is lower, or missing, in that window).
  bool lakes = true;
  int lake_tile = 512;            // [Units: blocks] [Limit: 16..4096]
  int lake_margin = 128;          // [Units: blocks] [Limit: 8..lake_tile]
  double min_lake_depth_m = 1.0;  // [Units: m] [Limit: [0, 1e4]]
  std::vector<VoxelTopRule> tops;
  std::vector<VoxelOreRule> ores;
  std::vector<VoxelTree> trees;

  // Schema table: the scalar keys of the voxel section.
  static std::span<const Field<VoxelParams>> fields();
  // Ranges, the palette, and that every block and biome name exists (biomes from `surface`).
  // Messages name `path` + the JSON field. Throws Error(invalid_argument).
  void validate(const SurfaceParams& surface, std::string_view path = "voxel") const;
};

// The default section: a palette (air, stone, dirt, grass, sand, snow, gravel, water, ice, log,
// leaves, coal_ore, iron_ore, glass), top rules for default_surface()'s biomes, a coal and an
// iron rule, oaks for forest and grassland and a spruce for tundra and snow, the default density
// graph (overhangs from a 3D-warped fbm, cheese caverns, spaghetti tunnels: voxel_params.cpp and
// docs/PRESETS.md) and the vertical range of the world's heights (64 m below, 32 m above).
VoxelParams default_voxel(const WorldSettings& world);

// A block chunk's key [Limit: |c| * chunk_size * block_size_m <= 1e9 m].
struct BlockChunkKey {
  std::int64_t cx = 0, cy = 0, cz = 0;
  friend bool operator==(const BlockChunkKey&, const BlockChunkKey&) = default;
};
std::uint64_t hash(const BlockChunkKey& key);

// Compact storage of one chunk's interior blocks (size^3, the BlockVolume order without the
// padding): one value when the chunk is uniform (all air, all stone), else a local palette of
// the ids present and bit-packed indices (1, 2, 4, 8 or 16 bits each), zstd-compressed.
struct BlockChunk {
  BlockChunkKey key;
  int size = 0;
  bool uniform = true;
  std::uint16_t value = 0;           // the block of a uniform chunk
  std::vector<std::uint16_t> local;  // ids present (non-uniform)
  int bits = 0;                      // bits per packed index
  std::vector<std::uint8_t> packed;  // zstd frame of the packed indices

  std::size_t bytes() const;  // heap + object bytes held
  // Decodes the interior into `out` (size^3 ids, x fastest, then z, then y).
  void decode(std::vector<std::uint16_t>& out) const;
};

// Working memory of BlockWorldGenerator::generate (one per thread; contents unspecified).
struct BlockScratch {
  std::vector<float> lattice, inputs, ore;
  std::vector<float> density;  // per block of the extended box
  std::vector<std::uint8_t> solid;
  std::vector<std::uint16_t> raw;
  // Column data of the last chunk columns (heights, top and soil blocks, temperature, trees),
  // recomputed identically when evicted: a cache of a pure function.
  struct Column;
  std::vector<std::shared_ptr<const Column>> columns;
};

// Everything generate() produces for one chunk.
struct BlockChunkData {
  BlockChunkKey key;
  BlockVolume volume;  // padded, with opaque/translucent column masks
  BlockChunk chunk;    // compact interior
};

class BlockWorldGenerator {
 public:
  // Compiles the preset's 2D graph, the climate sources and the density graph (a copy of the
  // sections is kept). Throws Error for invalid sections.
  BlockWorldGenerator(const GraphSource& terrain, const SurfaceParams& surface,
                      const VoxelParams& voxel);
  ~BlockWorldGenerator();

  const VoxelParams& params() const;
  const BlockPalette& palette() const;
  int chunk_size() const;
  // Block ids of the material names.
  std::uint16_t block_id(std::string_view name) const;
  // Findings of the construction's density probe (8 x 8 columns 512 m apart, 64 rows over
  // min_y..max_y): "voxel.density: every probe is solid ..." or "... empty ..." when the density
  // makes (almost surely) every chunk one block. The CLI prints them as warnings.
  const std::vector<std::string>& warnings() const;

  // The chunk's blocks with a one-block padding (the neighbours' blocks, computed by the same
  // function), column masks for the mesher, and the compact interior. Deterministic: the bytes
  // depend only on (preset, key, edits), never on the thread, SIMD target or order of calls.
  // `edits` (nullptr or empty: the procedural world, the same bytes) are height edits on the
  // world's lattice: their deltas, interpolated bilinearly to the block columns' centres and to
  // the density lattice's columns, are added to the 2D heights that the density, materials,
  // trees and lakes read. Lakes are not local: an edit changes the lake levels over the lake
  // windows that contain it (voxel.lake_tile + 2 * voxel.lake_margin blocks), and so the chunks
  // there. Throws Error(invalid_argument) for a key beyond the coordinate limit or edits of
  // another cell size, Error(cancelled).
  // `blocks` (nullptr or empty: none) are block overrides (edit.hpp), applied last, over the
  // generated blocks of the chunk and its padding: kDugBlock becomes what fills empty space
  // there (the sea's or a lake's water, else air). They must have the world's block size, chunk
  // size and palette size (else Error(invalid_argument)).
  void generate(const BlockChunkKey& key, BlockChunkData& out, BlockScratch* scratch = nullptr,
                const ExecContext& ctx = {}, const HeightEditSnapshot* edits = nullptr,
                const BlockEditSnapshot* blocks = nullptr) const;
  // The blocks of a world box (x fastest, then z, then y), generated chunk by chunk. Throws
  // Error(limit) over 2^28 blocks.
  void generate_region(std::int64_t x0, std::int64_t y0, std::int64_t z0, int size_x, int size_y,
                       int size_z, BlockRegion& out, const ExecContext& ctx = {},
                       const HeightEditSnapshot* edits = nullptr,
                       const BlockEditSnapshot* blocks = nullptr) const;

  // Whether chunk (key) has the same blocks under the layers (heights_a, blocks_a) as under
  // (heights_b, blocks_b) because it reads the same parts of them: the same height edit tiles
  // (those under its columns, the density lattice's, the trees' and, with lakes, every lake
  // window containing it) and the same block override values inside its padded box (the
  // override chunks there, its own and its 26 neighbours', compared as objects and, where the
  // objects differ, by the values the padded box reads). Layers are copy-on-write, so a tile or
  // chunk a stroke did not change is the same object. False means it may differ. nullptr: no
  // layer. What BlockStreamer::set_edits regenerates by.
  bool reads_same_edits(const BlockChunkKey& key, const HeightEditSnapshot* heights_a,
                        const BlockEditSnapshot* blocks_a, const HeightEditSnapshot* heights_b,
                        const BlockEditSnapshot* blocks_b) const;
  // Throws Error(invalid_argument) for height edits of another cell size than the world's, or
  // block overrides of another block size, chunk size or palette size (generate's check).
  void check_edits(const HeightEditSnapshot* edits, const BlockEditSnapshot* blocks) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrane
