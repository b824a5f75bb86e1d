// terrane voxel: block worlds (module `voxel`; depends on core). This first part holds the
// block palette, the padded block volume of one chunk and its mesher: exposed-face culling and
// greedy merging with 64-bit column masks (after the binary greedy meshing idea of
// cgerikj/binary-greedy-meshing), an opaque and a translucent (transparent and liquid) pass,
// and packed quads of 8 bytes. Density graphs, materials, block chunks in the streamer and the
// exports (issue 14) build on it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

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
  std::uint8_t colour[3] = {128, 128, 128};
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
struct BlockVolume {
  int size = 0;  // [Limit: 1..62: the padded side fits a 64-bit column mask]
  std::vector<std::uint16_t> blocks;

  int padded() const { return size + 2; }
  std::uint16_t at(int x, int y, int z) const {
    return blocks[(std::size_t(y) * std::size_t(padded()) + std::size_t(z)) *
                      std::size_t(padded()) +
                  std::size_t(x)];
  }
  // Throws Error(invalid_argument) for a size outside 1..62 or a block count other than P^3.
  void validate() const;
};

inline constexpr int kMaxBlockVolumeSize = 62;

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
//   bits 49..63  zero (reserved for ambient occlusion)
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
  static PackedQuad make(int x, int y, int z, int w, int h, BlockFace face, std::uint16_t block);
};

struct BlockMesh {
  std::vector<PackedQuad> opaque;       // faces of opaque blocks
  std::vector<PackedQuad> translucent;  // faces of transparent and liquid blocks
  std::size_t exposed_faces = 0;        // block faces the quads cover (before merging)
};

// Working memory of build_block_mesh (column masks and slice planes, about 100 KiB plus 32 KiB
// per block type present): owned by the caller, reused from chunk to chunk, one per thread.
struct BlockMeshScratch {
  std::vector<std::uint64_t> columns;  // [axis][c1][c2] masks of the blocks of one class
  std::vector<std::uint64_t> blocking;
  std::vector<std::uint64_t> faces;
  std::vector<std::uint64_t> planes;  // [slot][slice][row], all zero between uses
  std::vector<std::int32_t> slot_of;  // block id -> plane slot, -1 when unused
  std::vector<std::uint8_t> kind;     // block id -> BlockKind
  std::vector<std::uint16_t> slot_block;
};

// Greedy block meshing. A face of block A toward neighbour B is drawn when A is not air and
//   A opaque:                     B is not opaque;
//   A transparent or liquid:      B is neither opaque nor (with A's cull_same) of A's type.
// Faces are then merged into rectangles of one block type per slice and direction (greedy:
// widest run along u first, then as many rows along v as have that run). Only the interior
// blocks get faces; the border only hides them. Ids outside the palette are
// Error(invalid_argument). Deterministic; O(P^3 / 64) mask operations plus O(faces). Reuses `out`'s
// capacity. scratch: nullptr = buffers for this call only.
void build_block_mesh(const BlockVolume& volume, const BlockPalette& palette, BlockMesh& out,
                      BlockMeshScratch* scratch = nullptr);

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

}  // namespace terrane
