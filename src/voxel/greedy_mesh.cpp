// Greedy block meshing with 64-bit column masks (the binary greedy meshing idea of
// cgerikj/binary-greedy-meshing, reimplemented): per axis, one bit per block along each column
// of the padded volume; the faces toward +axis of a class of blocks are its column masks and
// not the blocking masks shifted by one; each face bit is scattered into the 2D plane of its
// slice (one plane per block type), and each plane is merged greedily with bit scans: the
// lowest run of a row, extended over the following rows that hold the whole run.
#include <algorithm>
#include <bit>
#include <cstring>

#include "terrane/core.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

// Column index layout per axis: axis 0 (x): [y][z]; axis 1 (y): [z][x]; axis 2 (z): [y][x];
// bit = the coordinate along the axis. Plane layout: row v, bit u, with (u, v) = (z, y) for x
// faces, (x, z) for y faces, (x, y) for z faces (see PackedQuad).
struct Layout {
  int p = 0;
  std::size_t cols = 0;  // p * p columns per axis
  std::size_t col(int axis, int x, int y, int z) const {
    switch (axis) {
      case 0:
        return std::size_t(y) * std::size_t(p) + std::size_t(z);
      case 1:
        return std::size_t(z) * std::size_t(p) + std::size_t(x);
      default:
        return std::size_t(y) * std::size_t(p) + std::size_t(x);
    }
  }
};

void set_bits(std::uint64_t* columns, const Layout& l, int x, int y, int z) {
  columns[0 * l.cols + l.col(0, x, y, z)] |= std::uint64_t{1} << x;
  columns[1 * l.cols + l.col(1, x, y, z)] |= std::uint64_t{1} << y;
  columns[2 * l.cols + l.col(2, x, y, z)] |= std::uint64_t{1} << z;
}

// Greedy merge of one plane (rows 0..p-1, bits 0..p-1), emitting quads and clearing the plane.
template <class Emit>
void merge_plane(std::uint64_t* rows, int p, Emit&& emit) {
  for (int v = 0; v < p; ++v) {
    while (rows[v] != 0) {
      const int u = std::countr_zero(rows[v]);
      const int w = std::countr_one(rows[v] >> u);
      const std::uint64_t run = (w >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << w) - 1)) << u;
      rows[v] &= ~run;
      int h = 1;
      while (v + h < p && (rows[v + h] & run) == run) {
        rows[v + h] &= ~run;
        ++h;
      }
      emit(u, v, w, h);
    }
  }
}

}  // namespace

void build_block_mesh(const BlockVolume& volume, const BlockPalette& palette, BlockMesh& out,
                      BlockMeshScratch* scratch) {
  volume.validate();
  BlockMeshScratch local;
  BlockMeshScratch& s = scratch != nullptr ? *scratch : local;
  const int p = volume.padded();
  const Layout layout{p, std::size_t(p) * std::size_t(p)};
  const std::size_t types = palette.types.size();
  out.opaque.clear();
  out.translucent.clear();
  out.exposed_faces = 0;

  // Column masks of the opaque blocks, one pass over the volume (x fastest): the x mask of a
  // row is built in a register, the y and z masks are ORed in per block. Translucent types are
  // only noted here.
  s.kind.resize(types);
  for (std::size_t t = 0; t < types; ++t) s.kind[t] = std::uint8_t(palette.types[t].kind);
  s.columns.assign(3 * layout.cols, 0);
  std::uint64_t* col_x = s.columns.data();
  std::uint64_t* col_y = col_x + layout.cols;
  std::uint64_t* col_z = col_y + layout.cols;
  const std::uint16_t* blocks = volume.blocks.data();
  const std::uint8_t* kind = s.kind.data();
  std::uint32_t max_id = 0, translucent_seen = 0;
  for (int y = 0; y < p; ++y) {
    for (int z = 0; z < p; ++z) {
      const std::uint16_t* row =
          blocks + (std::size_t(y) * std::size_t(p) + std::size_t(z)) * std::size_t(p);
      std::uint64_t* cy = col_y + std::size_t(z) * std::size_t(p);  // [z][x]
      std::uint64_t* cz = col_z + std::size_t(y) * std::size_t(p);  // [y][x]
      // Opaque flags of the row first (the table lookups), then loops without a carried
      // dependency that the compiler vectorises.
      std::uint64_t flag[64];
      for (int x = 0; x < p; ++x) {
        const std::uint32_t id = row[x];
        max_id = std::max(max_id, id);
        const std::uint32_t k = id < types ? kind[id] : 0u;
        flag[x] = k == std::uint32_t(BlockKind::opaque) ? 1u : 0u;
        translucent_seen |= std::uint32_t(k >= std::uint32_t(BlockKind::transparent));
      }
      std::uint64_t m[4] = {0, 0, 0, 0};
      for (int x = 0; x < p; ++x) {
        cy[x] |= flag[x] << y;
        cz[x] |= flag[x] << z;
        m[x & 3] |= flag[x] << x;
      }
      col_x[std::size_t(y) * std::size_t(p) + std::size_t(z)] = m[0] | m[1] | m[2] | m[3];
    }
  }
  if (max_id >= types) {
    for (int y = 0; y < p; ++y) {
      for (int z = 0; z < p; ++z) {
        for (int x = 0; x < p; ++x) {
          const std::uint16_t id = volume.at(x, y, z);
          if (id >= types) {
            throw Error(ErrorCategory::invalid_argument,
                        "block volume: block id " + std::to_string(id) + " at (" +
                            std::to_string(x - 1) + ", " + std::to_string(y - 1) + ", " +
                            std::to_string(z - 1) + ") is outside the palette of " +
                            std::to_string(types) + " types");
          }
        }
      }
    }
  }
  if (s.slot_of.size() < types) s.slot_of.assign(types, -1);
  std::vector<std::uint16_t> translucent_types;
  if (translucent_seen != 0) {
    for (const std::uint16_t id : volume.blocks) {
      if (kind[id] >= std::uint8_t(BlockKind::transparent) && s.slot_of[id] == -1) {
        s.slot_of[id] = -2;  // seen
        translucent_types.push_back(id);
      }
    }
    for (std::uint16_t id : translucent_types) s.slot_of[id] = -1;
  }

  // Bits 1..p-2 (p <= 64, so the shift is at most 63).
  const std::uint64_t interior = ((std::uint64_t{1} << (p - 1)) - 1) & ~std::uint64_t{1};
  const std::size_t plane_words = std::size_t(p) * std::size_t(p);  // [slice][row]

  // Meshes one class: `solid` its column masks, `blocking` the masks that hide its faces;
  // `block_of` gives the block id of a face's cell (one id for a translucent class).
  auto mesh_class = [&](const std::uint64_t* solid, const std::uint64_t* blocking,
                        std::vector<PackedQuad>& quads, std::uint16_t single_block) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int sign = 0; sign < 2; ++sign) {
        const BlockFace face = BlockFace(axis * 2 + sign);
        std::vector<std::uint16_t>& slot_block = s.slot_block;
        slot_block.clear();
        // Scatter the face bits into per-type slice planes.
        for (std::size_t c = 0; c < layout.cols; ++c) {
          const std::uint64_t col = solid[axis * layout.cols + c];
          if (col == 0) continue;
          const std::uint64_t block = blocking[axis * layout.cols + c];
          std::uint64_t f = col & ~(sign == 0 ? block >> 1 : block << 1) & interior;
          const int c1 = int(c / std::size_t(p)), c2 = int(c % std::size_t(p));
          // Only interior blocks have faces: the border columns only hide.
          if (f == 0 || c1 == 0 || c2 == 0 || c1 == p - 1 || c2 == p - 1) continue;
          out.exposed_faces += std::size_t(std::popcount(f));
          while (f != 0) {
            const int k = std::countr_zero(f);
            f &= f - 1;
            int x, y, z, u, v;
            switch (axis) {
              case 0:
                x = k, y = c1, z = c2, u = z, v = y;
                break;
              case 1:
                z = c1, x = c2, y = k, u = x, v = z;
                break;
              default:
                y = c1, x = c2, z = k, u = x, v = y;
                break;
            }
            const std::uint16_t id = single_block != 0 ? single_block : volume.at(x, y, z);
            std::int32_t slot = s.slot_of[id];
            if (slot < 0) {
              slot = std::int32_t(slot_block.size());
              s.slot_of[id] = slot;
              slot_block.push_back(id);
              if (s.planes.size() < slot_block.size() * plane_words) {
                s.planes.resize(slot_block.size() * plane_words, 0);
              }
            }
            s.planes[std::size_t(slot) * plane_words + std::size_t(k) * std::size_t(p) +
                     std::size_t(v)] |= std::uint64_t{1} << u;
          }
        }
        // Merge every plane (which leaves it zero) and emit interior coordinates.
        for (std::size_t slot = 0; slot < slot_block.size(); ++slot) {
          const std::uint16_t id = slot_block[slot];
          s.slot_of[id] = -1;
          for (int k = 1; k + 1 < p; ++k) {
            std::uint64_t* rows =
                s.planes.data() + slot * plane_words + std::size_t(k) * std::size_t(p);
            merge_plane(rows, p, [&](int u, int v, int w, int h) {
              int x, y, z;
              switch (axis) {
                case 0:
                  x = k, y = v, z = u;
                  break;
                case 1:
                  x = u, y = k, z = v;
                  break;
                default:
                  x = u, y = v, z = k;
                  break;
              }
              quads.push_back(PackedQuad::make(x - 1, y - 1, z - 1, w, h, face, id));
            });
          }
        }
      }
    }
  };

  mesh_class(s.columns.data(), s.columns.data(), out.opaque, 0);

  // Translucent types: each against the opaque blocks (and itself with cull_same).
  if (!translucent_types.empty()) {
    std::vector<std::uint64_t> own(3 * layout.cols);
    for (std::uint16_t id : translucent_types) {
      std::fill(own.begin(), own.end(), 0);
      for (int y = 0; y < p; ++y) {
        for (int z = 0; z < p; ++z) {
          for (int x = 0; x < p; ++x) {
            if (volume.at(x, y, z) == id) set_bits(own.data(), layout, x, y, z);
          }
        }
      }
      s.blocking.assign(s.columns.begin(), s.columns.end());
      if (palette.types[id].cull_same) {
        for (std::size_t k = 0; k < s.blocking.size(); ++k) s.blocking[k] |= own[k];
      }
      mesh_class(own.data(), s.blocking.data(), out.translucent, id);
    }
  }
}

}  // namespace terrane
