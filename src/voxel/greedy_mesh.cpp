// Greedy block meshing with 64-bit masks: the binary greedy meshing idea of
// cgerikj/binary-greedy-meshing, reimplemented. The input is two sets of masks per class of
// blocks (opaque, translucent): columns along y (bit y of [z][x]) and rows along x (bit x of
// [y][z]); one is the other transposed. For each face direction and slice, the face masks of
// the slice's rows come from one AND-NOT of a mask with its neighbour in front (x and z faces
// from neighbouring columns, y faces from neighbouring rows), so no per-block work is done
// for hidden blocks. The same neighbour masks, shifted, give the per-vertex ambient occlusion
// of every face of a row at once, bit-sliced (M. Lysenko, "Ambient occlusion for Minecraft-like
// worlds", 0fps.net, 2013: side1, side2, corner). Faces are merged per slice with bit scans,
// reading the block id of each face to merge only equal ids and equal occlusion patterns.
#include <algorithm>
#include <bit>
#include <string>

#include "block_columns.hpp"
#include "terrane/core.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

using voxel_detail::kCullSameBit;
using voxel_detail::kInvalidBlock;

// How faces between two translucent blocks are decided.
enum class SameRule : std::uint8_t {
  draw,   // no translucent type has cull_same: every such face is drawn
  hide,   // one translucent type, with cull_same: none is drawn
  check,  // compare the two ids (several translucent types)
};

struct Input {
  int p = 0;
  std::uint64_t interior = 0;  // bits 1..p-2
  const std::uint16_t* blocks = nullptr;
  const std::uint8_t* info = nullptr;  // build_block_table
  std::size_t types = 0;
  const BlockPalette* palette = nullptr;
  // Per class: masks[0] bit y of [x * P + z] (x faces), masks[1] bit x of [y * P + z] (y
  // faces), masks[2] bit y of [z * P + x] (z faces): slice-major, so that the rows of a slice
  // are contiguous (a strided walk through a column array thrashes the L1 sets).
  const std::uint64_t* opaque[3] = {};
  const std::uint64_t* translucent[3] = {};
  SameRule same = SameRule::draw;
};

[[noreturn]] void throw_mask_mismatch(const Input& in, bool opaque, std::uint16_t id, int x, int y,
                                      int z) {
  throw Error(
      ErrorCategory::invalid_argument,
      std::string("block volume: ") + (opaque ? "opaque_columns say" : "translucent_columns say") +
          " block (" + std::to_string(x - 1) + ", " + std::to_string(y - 1) + ", " +
          std::to_string(z - 1) + ") is " + (opaque ? "opaque" : "translucent") + ", but its id " +
          std::to_string(id) + " ('" + in.palette->types[id].name + "') is not");
}

// Occlusion of the faces of one row, bit-sliced: ao[2g] and ao[2g + 1] are the low and high
// bits of the value at generic corner g = (row side, bit side): 0 = (-, -), 1 = (-, +),
// 2 = (+, -), 3 = (+, +). a, c, e: the opaque masks of rows r - 1, r, r + 1 of the layer in
// front; bit b - 1 of a mask reaches bit b by << 1.
inline void row_occlusion(std::uint64_t a, std::uint64_t c, std::uint64_t e, std::uint64_t* ao) {
  const auto corner = [](std::uint64_t s1, std::uint64_t s2, std::uint64_t d, std::uint64_t* o) {
    const std::uint64_t both = s1 & s2, odd = s1 ^ s2;
    o[0] = (odd ^ d) | both;  // low bit of s1 + s2 + d, or of 3
    o[1] = both | (d & odd);  // high bit
  };
  corner(a, c << 1, a << 1, ao + 0);
  corner(a, c >> 1, a >> 1, ao + 2);
  corner(e, c << 1, e << 1, ao + 4);
  corner(e, c >> 1, e >> 1, ao + 6);
}

// The 8-bit generic pattern (2 bits per generic corner) of bit b.
inline unsigned pattern_at(const std::uint64_t* ao, int b) {
  unsigned pat = 0;
  for (int i = 0; i < 8; ++i) pat |= unsigned((ao[i] >> b) & 1u) << i;
  return pat;
}

// Bits of a row whose pattern equals pat.
inline std::uint64_t same_pattern(const std::uint64_t* ao, unsigned pat) {
  std::uint64_t diff = 0;
  for (int i = 0; i < 8; ++i) diff |= ao[i] ^ (std::uint64_t{0} - ((pat >> i) & 1u));
  return ~diff;
}

// The packed quad without occlusion (PackedQuad::make, inlined here).
inline std::uint64_t quad_bits(int x, int y, int z, int w, int h, BlockFace face,
                               std::uint16_t block) {
  return std::uint64_t(x) | std::uint64_t(y) << 6 | std::uint64_t(z) << 12 |
         std::uint64_t(w - 1) << 18 | std::uint64_t(h - 1) << 24 | std::uint64_t(face) << 30 |
         std::uint64_t(block) << 33;
}

// Generic corner patterns to the quad's corner order (u, v), (u + w, v), (u + w, v + h),
// (u, v + h): for y faces the bits run along u (table 0), for x and z faces along v (table 1).
struct OcclusionTables {
  std::uint8_t t[2][256];
  constexpr OcclusionTables() : t{} {
    constexpr int kCorner[2][4] = {{0, 1, 3, 2}, {0, 2, 3, 1}};
    for (int k = 0; k < 2; ++k) {
      for (unsigned pat = 0; pat < 256; ++pat) {
        unsigned packed = 0;
        for (int c = 0; c < 4; ++c) packed |= ((pat >> (2 * kCorner[k][c])) & 3u) << (2 * c);
        t[k][pat] = std::uint8_t(packed);
      }
    }
  }
};
constexpr OcclusionTables kOcclusionTables;
constexpr const std::uint8_t (&kPackedOcclusion)[2][256] = kOcclusionTables.t;

// Meshes the faces toward one direction (Axis, Negative) of one class of blocks.
//   Axis 0 (x faces): slices x, rows z (u), bits y (v).
//   Axis 1 (y faces): slices y, rows z (v), bits x (u): the ids of a row are contiguous, so
//     their equalities along the row and with the previous row are SSE2 compares.
//   Axis 2 (z faces): slices z, rows x (u), bits y (v).
template <int Axis, bool Negative, bool Occlusion>
void mesh_direction(const Input& in, bool opaque_pass, std::vector<PackedQuad>& out,
                    std::size_t& faces) {
  const int p = in.p;
  const std::size_t P = std::size_t(p);
  // Strides of (slice, row, bit) in the ids; masks are [slice * P + row].
  const std::size_t id_slice = Axis == 0 ? 1 : Axis == 1 ? P * P : P;
  const std::size_t id_row = Axis == 2 ? 1 : P;
  const std::size_t id_bit = Axis == 1 ? 1 : P * P;
  const std::uint64_t* opaque = in.opaque[Axis];
  const std::uint64_t* translucent = in.translucent[Axis];
  const std::uint64_t* own = opaque_pass ? opaque : translucent;
  const BlockFace face = BlockFace(Axis * 2 + (Negative ? 1 : 0));
  const std::uint32_t last = std::uint32_t(in.types);
  const std::uint64_t interior = in.interior;

  std::uint64_t rows[64];
  std::uint64_t ao[Occlusion ? 64 : 1][8];
  std::uint64_t left[Axis == 1 ? 64 : 1], up[Axis == 1 ? 64 : 1];  // id equalities, y faces
  for (int s = 1; s + 1 < p; ++s) {
    const int front = Negative ? s - 1 : s + 1;
    const std::uint64_t* cur = own + std::size_t(s) * P;
    const std::uint64_t* ahead = opaque + std::size_t(front) * P;
    const std::uint16_t* ids = in.blocks + std::size_t(s) * id_slice;
    // Faces between two translucent blocks: hidden when both are one type with cull_same
    // (SameRule::hide here, SameRule::check below).
    const std::uint64_t* beyond = translucent + std::size_t(front) * P;
    const std::uint64_t hide = !opaque_pass && in.same == SameRule::hide ? ~std::uint64_t{0} : 0;
    std::uint64_t busy = 0;  // rows with faces
    for (int r = 1; r + 1 < p; ++r) {
      rows[r] = cur[r] & ~ahead[r] & ~(beyond[r] & hide) & interior;
      busy |= std::uint64_t(rows[r] != 0) << r;
    }
    if (busy == 0) continue;
    if (!opaque_pass && in.same == SameRule::check) {
      for (std::uint64_t todo = busy; todo != 0; todo &= todo - 1) {
        const int r = std::countr_zero(todo);
        std::uint64_t both = rows[r] & beyond[r];
        const std::uint16_t* a = ids + std::size_t(r) * id_row;
        const std::uint16_t* b =
            in.blocks + std::size_t(front) * id_slice + std::size_t(r) * id_row;
        while (both != 0) {
          const int k = std::countr_zero(both);
          both &= both - 1;
          const std::uint16_t ia = a[std::size_t(k) * id_bit];
          if (ia == b[std::size_t(k) * id_bit] &&
              (in.info[std::min(std::uint32_t(ia), last)] & kCullSameBit) != 0) {
            rows[r] &= ~(std::uint64_t{1} << k);
          }
        }
      }
    }
    std::uint64_t known = 0;  // rows whose `left` and `up` are computed
    if constexpr (Occlusion) {
      for (std::uint64_t todo = busy; todo != 0; todo &= todo - 1) {
        const int r = std::countr_zero(todo);
        row_occlusion(ahead[r - 1], ahead[r], ahead[r + 1], ao[r]);
      }
    }

    for (; busy != 0; busy &= busy - 1) {
      const int r = std::countr_zero(busy);
      const std::uint16_t* row_ids = ids + std::size_t(r) * id_row;
      while (rows[r] != 0) {
        const int b = std::countr_zero(rows[r]);
        const std::uint16_t id = row_ids[std::size_t(b) * id_bit];
        const std::uint8_t info = in.info[std::min(std::uint32_t(id), last)];
        if (info == kInvalidBlock || (opaque_pass ? (info & 3u) != 1u : (info & 3u) < 2u)) {
          int x = 0, y = 0, z = 0;
          (Axis == 0 ? x : Axis == 1 ? y : z) = s;
          (Axis == 2 ? x : z) = r;
          (Axis == 1 ? x : y) = b;
          if (info == kInvalidBlock) {
            voxel_detail::throw_block_outside_palette(id, x, y, z, in.types);
          }
          throw_mask_mismatch(in, opaque_pass, id, x, y, z);
        }
        unsigned pat = 0;
        bool along_bits = true, along_rows = true;
        std::uint64_t candidates = rows[r];
        if constexpr (Occlusion) {
          pat = pattern_at(ao[r], b);
          along_bits = ((pat ^ (pat >> 2)) & 0x33u) == 0;  // g0 = g1 and g2 = g3
          along_rows = ((pat ^ (pat >> 4)) & 0x0Fu) == 0;  // g0 = g2 and g1 = g3
          if (along_bits) candidates &= same_pattern(ao[r], pat);
        }
        if constexpr (Axis == 1) {
          if ((known >> r & 1u) == 0) {
            left[r] = voxel_detail::equal_to_previous(row_ids, p);
            up[r] = voxel_detail::equal_ids(row_ids, row_ids - P, p);
            known |= std::uint64_t{1} << r;
          }
        }
        // The run along the bits: equal pattern (above) and equal ids.
        int len = 1;
        if (along_bits) {
          if constexpr (Axis == 1) {
            len += std::countr_one((candidates & left[r]) >> (b + 1));
          } else {
            const int most = std::countr_one(candidates >> b);
            while (len < most && row_ids[std::size_t(b + len) * id_bit] == id) ++len;
          }
        }
        const std::uint64_t run = (len >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << len) - 1))
                                  << b;
        rows[r] &= ~run;
        // The following rows holding the same run (of the same ids and pattern).
        int ext = 1;
        if (along_rows) {
          for (int r2 = r + 1; r2 + 1 < p; ++r2) {
            std::uint64_t m = rows[r2];
            if ((m & run) != run) break;
            if constexpr (Occlusion) {
              if ((same_pattern(ao[r2], pat) & run) != run) break;
            }
            const std::uint16_t* ids2 = ids + std::size_t(r2) * id_row;
            if constexpr (Axis == 1) {
              if ((known >> r2 & 1u) == 0) {
                left[r2] = voxel_detail::equal_to_previous(ids2, p);
                up[r2] = voxel_detail::equal_ids(ids2, ids2 - P, p);
                known |= std::uint64_t{1} << r2;
              }
              if ((up[r2] & run) != run) break;
            } else {
              bool equal = true;
              for (int k = 0; k < len && equal; ++k) {
                equal = ids2[std::size_t(b + k) * id_bit] == id;
              }
              if (!equal) break;
            }
            rows[r2] = m & ~run;
            ++ext;
          }
        }
        faces += std::size_t(len) * std::size_t(ext);

        int x, y, z, w, h;
        if constexpr (Axis == 0) {
          x = s, z = r, y = b, w = ext, h = len;
        } else if constexpr (Axis == 1) {
          y = s, z = r, x = b, w = len, h = ext;
        } else {
          z = s, x = r, y = b, w = ext, h = len;
        }
        std::uint64_t bits = quad_bits(x - 1, y - 1, z - 1, w, h, face, id);
        if constexpr (Occlusion)
          bits |= std::uint64_t(kPackedOcclusion[Axis == 1 ? 0 : 1][pat]) << 49;
        out.push_back(PackedQuad{bits});
      }
    }
  }
}

template <bool Occlusion>
void mesh_class(const Input& in, bool opaque_pass, std::vector<PackedQuad>& out,
                std::size_t& faces) {
  mesh_direction<0, false, Occlusion>(in, opaque_pass, out, faces);
  mesh_direction<0, true, Occlusion>(in, opaque_pass, out, faces);
  mesh_direction<1, false, Occlusion>(in, opaque_pass, out, faces);
  mesh_direction<1, true, Occlusion>(in, opaque_pass, out, faces);
  mesh_direction<2, false, Occlusion>(in, opaque_pass, out, faces);
  mesh_direction<2, true, Occlusion>(in, opaque_pass, out, faces);
}

void check_mask_count(const std::vector<std::uint64_t>& masks, const char* name,
                      const BlockVolume& volume) {
  const std::size_t want = std::size_t(volume.padded()) * std::size_t(volume.padded());
  if (!masks.empty() && masks.size() != want) {
    throw Error(ErrorCategory::invalid_argument,
                "block volume: " + std::to_string(masks.size()) + " " + name + " for size " +
                    std::to_string(volume.size) +
                    "; it needs 0 or (size + 2)^2 = " + std::to_string(want));
  }
}

}  // namespace

void build_block_mesh(const BlockVolume& volume, const BlockPalette& palette, BlockMesh& out,
                      BlockMeshScratch* scratch, const BlockMeshOptions& options) {
  volume.validate();
  check_mask_count(volume.opaque_columns, "opaque_columns", volume);
  check_mask_count(volume.translucent_columns, "translucent_columns", volume);
  if (volume.opaque_columns.empty() != volume.translucent_columns.empty()) {
    throw Error(ErrorCategory::invalid_argument,
                std::string("block volume: ") +
                    (volume.opaque_columns.empty() ? "translucent_columns" : "opaque_columns") +
                    " given without " +
                    (volume.opaque_columns.empty() ? "opaque_columns" : "translucent_columns") +
                    " (give both, e.g. from compute_block_columns, or neither)");
  }
  BlockMeshScratch local;
  BlockMeshScratch& s = scratch != nullptr ? *scratch : local;
  out.opaque.clear();
  out.translucent.clear();
  out.exposed_faces = 0;

  const int p = volume.padded();
  const std::size_t words = std::size_t(p) * std::size_t(p);
  voxel_detail::build_block_table(palette, s.block_info);
  s.masks.resize(6 * words);
  std::uint64_t* opaque_cols = s.masks.data();
  std::uint64_t* opaque_rows = opaque_cols + words;
  std::uint64_t* opaque_xcols = opaque_rows + words;
  std::uint64_t* translucent_cols = opaque_xcols + words;
  std::uint64_t* translucent_rows = translucent_cols + words;
  std::uint64_t* translucent_xcols = translucent_rows + words;

  Input in;
  in.p = p;
  in.interior = ((std::uint64_t{1} << (p - 1)) - 1) & ~std::uint64_t{1};  // p <= 64
  in.blocks = volume.blocks.data();
  in.info = s.block_info.data();
  in.types = palette.types.size();
  in.palette = &palette;
  const std::uint64_t* op_cols = opaque_cols;
  const std::uint64_t* tr_cols = translucent_cols;
  bool any_translucent = false;
  if (!volume.opaque_columns.empty()) {
    op_cols = volume.opaque_columns.data();
    tr_cols = volume.translucent_columns.data();
    voxel_detail::columns_to_rows(op_cols, p, opaque_rows);
    std::uint64_t any = 0;
    for (const std::uint64_t m : volume.translucent_columns) any |= m;
    any_translucent = any != 0;
    if (any_translucent) voxel_detail::columns_to_rows(tr_cols, p, translucent_rows);
  } else {
    any_translucent =
        voxel_detail::scan_block_rows(volume, in.info, in.types, opaque_rows, translucent_rows);
    voxel_detail::rows_to_columns(opaque_rows, p, opaque_cols);
    if (any_translucent) voxel_detail::rows_to_columns(translucent_rows, p, translucent_cols);
  }
  voxel_detail::transpose_words(op_cols, p, opaque_xcols);
  if (any_translucent) voxel_detail::transpose_words(tr_cols, p, translucent_xcols);
  in.opaque[0] = opaque_xcols;
  in.opaque[1] = opaque_rows;
  in.opaque[2] = op_cols;
  in.translucent[0] = translucent_xcols;
  in.translucent[1] = translucent_rows;
  in.translucent[2] = tr_cols;

  const bool ao = options.ambient_occlusion;
  if (ao) {
    mesh_class<true>(in, true, out.opaque, out.exposed_faces);
  } else {
    mesh_class<false>(in, true, out.opaque, out.exposed_faces);
  }
  if (!any_translucent) return;

  std::size_t translucent_types = 0, culling = 0;
  for (const BlockType& t : palette.types) {
    if (t.kind == BlockKind::transparent || t.kind == BlockKind::liquid) {
      ++translucent_types;
      culling += t.cull_same ? 1 : 0;
    }
  }
  in.same = culling == 0             ? SameRule::draw
            : translucent_types == 1 ? SameRule::hide
                                     : SameRule::check;
  if (ao) {
    mesh_class<true>(in, false, out.translucent, out.exposed_faces);
  } else {
    mesh_class<false>(in, false, out.translucent, out.exposed_faces);
  }
}

}  // namespace terrane
