// terrane voxel: block worlds (module `voxel`; depends on core). This first part holds the
// block palette, the padded block volume of one chunk and its mesher: exposed-face culling and
// greedy merging with 64-bit column masks (after the binary greedy meshing idea of
// cgerikj/binary-greedy-meshing), an opaque and a translucent (transparent and liquid) pass,
// and packed quads of 8 bytes. Density graphs, materials, block chunks in the streamer and the
// exports (issue 14) build on it.
#pragma once

#include <cstdint>
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

}  // namespace terrane
