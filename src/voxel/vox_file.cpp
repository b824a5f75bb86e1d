// MagicaVoxel .vox writer (version 200), written from the format's published description
// (ephtracy/voxel-model: MagicaVoxel-file-format-vox.txt, MagicaVoxel-file-format-vox-
// extension.txt): RIFF-style chunks (id, content bytes, children bytes, all little-endian
// int32), models as SIZE + XYZI pairs, a scene graph of transform / group / shape nodes whose
// DICT values are strings (a translation is "x y z"), and a 256-entry RGBA palette whose entry
// i is colour index i + 1. Also validate_block_region, shared by the exports.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/io.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

constexpr int kVoxModelSide = 256;
constexpr std::uint64_t kMaxVoxFileBytes = std::uint64_t(std::numeric_limits<std::int32_t>::max());

std::uint32_t fourcc(const char (&id)[5]) {
  return std::uint32_t(std::uint8_t(id[0])) | std::uint32_t(std::uint8_t(id[1])) << 8 |
         std::uint32_t(std::uint8_t(id[2])) << 16 | std::uint32_t(std::uint8_t(id[3])) << 24;
}

// Little-endian writer into a buffer sized beforehand.
struct Writer {
  std::vector<std::byte>& out;
  void u8(std::uint8_t v) { out.push_back(std::byte(v)); }
  void i32(std::int64_t v) {
    const auto u = std::uint32_t(std::int32_t(v));
    for (int k = 0; k < 4; ++k) out.push_back(std::byte((u >> (8 * k)) & 0xFFu));
  }
  void id(const char (&s)[5]) { i32(std::int64_t(fourcc(s))); }
  void chunk(const char (&s)[5], std::uint64_t content, std::uint64_t children) {
    id(s);
    i32(std::int64_t(content));
    i32(std::int64_t(children));
  }
  void string(const std::string& s) {
    i32(std::int64_t(s.size()));
    for (char c : s) u8(std::uint8_t(c));
  }
};

// A DICT of zero or one pair.
std::uint64_t dict_bytes(const std::string* key, const std::string* value) {
  return key == nullptr ? 4 : 4 + 4 + key->size() + 4 + value->size();
}
void write_dict(Writer& w, const std::string* key, const std::string* value) {
  w.i32(key == nullptr ? 0 : 1);
  if (key != nullptr) {
    w.string(*key);
    w.string(*value);
  }
}

struct Model {
  int tile[3];  // tile index along vox X, Y, Z
  int size[3];  // model size along vox X, Y, Z
  std::uint64_t voxels = 0;
  std::string translation;  // "_t" value
};

std::string join3(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::string s = std::to_string(a);
  s += ' ';
  s += std::to_string(b);
  s += ' ';
  s += std::to_string(c);
  return s;
}

// The sizes part of validate_block_region (write_vox checks its model count in between).
std::uint64_t check_region_sizes(const BlockRegion& region, std::string_view what) {
  const int sizes[3] = {region.size_x, region.size_y, region.size_z};
  const char* names[3] = {"size_x", "size_y", "size_z"};
  for (int a = 0; a < 3; ++a) {
    if (sizes[a] < 1 || sizes[a] > kMaxBlockRegionSide) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string(what) + ": " + names[a] + " " + std::to_string(sizes[a]) +
                      " is outside 1.." + std::to_string(kMaxBlockRegionSide));
    }
  }
  // Each side is at most 2^20, so the product fits 64 bits.
  const std::uint64_t count =
      std::uint64_t(sizes[0]) * std::uint64_t(sizes[1]) * std::uint64_t(sizes[2]);
  if (count > kMaxBlockRegionBlocks) {
    throw Error(ErrorCategory::limit, std::string(what) + ": " + std::to_string(sizes[0]) + " x " +
                                          std::to_string(sizes[1]) + " x " +
                                          std::to_string(sizes[2]) + " = " + std::to_string(count) +
                                          " blocks, more than the limit of " +
                                          std::to_string(kMaxBlockRegionBlocks));
  }
  return count;
}

}  // namespace

void validate_block_region(const BlockRegion& region, std::string_view what) {
  const std::uint64_t count = check_region_sizes(region, what);
  const int sizes[3] = {region.size_x, region.size_y, region.size_z};
  if (region.blocks.size() != count) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + ": " + std::to_string(region.blocks.size()) +
                    " block ids for a region of " + std::to_string(sizes[0]) + " x " +
                    std::to_string(sizes[1]) + " x " + std::to_string(sizes[2]) + " (expected " +
                    std::to_string(count) + ")");
  }
}

void write_vox(const std::filesystem::path& path, const BlockRegion& region,
               const BlockPalette& palette) {
  const std::string who = path.string();
  palette.validate();
  const std::string what = who + ": block region";
  check_region_sizes(region, what);

  // Scene axes: vox (X, Y, Z) = (x, size_z - 1 - z, y) before centring (see the header).
  const int scene[3] = {region.size_x, region.size_z, region.size_y};
  int tiles[3];
  for (int a = 0; a < 3; ++a) tiles[a] = (scene[a] + kVoxModelSide - 1) / kVoxModelSide;
  const std::uint64_t tile_count =
      std::uint64_t(tiles[0]) * std::uint64_t(tiles[1]) * std::uint64_t(tiles[2]);
  if (tile_count > std::uint64_t(kMaxVoxModels)) {
    throw Error(ErrorCategory::limit,
                who + ": a region of " + std::to_string(region.size_x) + " x " +
                    std::to_string(region.size_y) + " x " + std::to_string(region.size_z) +
                    " blocks needs " + std::to_string(tile_count) + " models of 256^3 (" +
                    std::to_string(tiles[0]) + " x " + std::to_string(tiles[2]) + " x " +
                    std::to_string(tiles[1]) + "), more than the limit of " +
                    std::to_string(kMaxVoxModels) + "; export a smaller region");
  }
  validate_block_region(region, what);

  // One pass: ids, types present, non-air blocks per tile.
  const std::size_t types = palette.types.size();
  std::vector<std::uint64_t> per_tile(std::size_t(tile_count), 0);
  std::vector<std::uint8_t> present(types, 0);
  for (int y = 0; y < region.size_y; ++y) {
    for (int z = 0; z < region.size_z; ++z) {
      const std::uint16_t* row =
          region.blocks.data() + (std::size_t(y) * std::size_t(region.size_z) + std::size_t(z)) *
                                     std::size_t(region.size_x);
      const std::size_t tile_yz = (std::size_t(y / kVoxModelSide) * std::size_t(tiles[1]) +
                                   std::size_t((region.size_z - 1 - z) / kVoxModelSide)) *
                                  std::size_t(tiles[0]);
      for (int x = 0; x < region.size_x; ++x) {
        const std::uint16_t id = row[x];
        if (id >= types) {
          throw Error(ErrorCategory::invalid_argument,
                      who + ": block id " + std::to_string(id) + " at world block (" +
                          std::to_string(region.x0 + x) + ", " + std::to_string(region.y0 + y) +
                          ", " + std::to_string(region.z0 + z) + ") is outside the palette of " +
                          std::to_string(types) + " types (ids 0.." + std::to_string(types - 1) +
                          ")");
        }
        if (palette.types[id].kind == BlockKind::air) continue;
        present[id] = 1;
        ++per_tile[tile_yz + std::size_t(x / kVoxModelSide)];
      }
    }
  }
  std::vector<std::uint8_t> colour_index(types, 0);
  std::vector<std::uint16_t> by_index;  // colour index - 1 -> block id
  for (std::size_t id = 0; id < types; ++id) {
    if (present[id] == 0) continue;
    by_index.push_back(std::uint16_t(id));
    if (by_index.size() <= 255) colour_index[id] = std::uint8_t(by_index.size());
  }
  if (by_index.size() > 255) {
    throw Error(ErrorCategory::limit,
                who + ": " + std::to_string(by_index.size()) +
                    " non-air block types are present; a .vox palette holds 1..255 colours");
  }

  // Models (non-empty tiles; tile 0 when all are empty) and the exact file size.
  const std::int64_t centre[3] = {scene[0] / 2, scene[1] / 2, 0};
  std::vector<Model> models;
  for (int k = 0; k < tiles[2]; ++k) {
    for (int j = 0; j < tiles[1]; ++j) {
      for (int i = 0; i < tiles[0]; ++i) {
        const std::uint64_t n = per_tile[(std::size_t(k) * std::size_t(tiles[1]) + std::size_t(j)) *
                                             std::size_t(tiles[0]) +
                                         std::size_t(i)];
        if (n == 0 && !(i == 0 && j == 0 && k == 0 && by_index.empty())) continue;
        Model m{{i, j, k}, {}, n, {}};
        std::int64_t t[3];
        for (int a = 0; a < 3; ++a) {
          const int lo = m.tile[a] * kVoxModelSide;
          m.size[a] = std::min(kVoxModelSide, scene[a] - lo);
          // Centre of the model in the centred scene; |t| < 2^21, so int32 holds it.
          t[a] = std::int64_t(lo) - centre[a] + m.size[a] / 2;
        }
        m.translation = join3(t[0], t[1], t[2]);
        models.push_back(std::move(m));
      }
    }
  }
  const std::string key_t = "_t";
  std::uint64_t children = 0;
  for (const Model& m : models) {
    children += 12 + 12;                // SIZE
    children += 12 + 4 + 4 * m.voxels;  // XYZI
  }
  // Root nTRN: id, dict, child, reserved, layer, frame count, frame dict.
  children += 12 + 4 + dict_bytes(nullptr, nullptr) + 4 * 4 + dict_bytes(nullptr, nullptr);
  children += 12 + 4 + dict_bytes(nullptr, nullptr) + 4 + 4 * models.size();  // nGRP
  for (const Model& m : models) {
    children += 12 + 4 + dict_bytes(nullptr, nullptr) + 4 * 4 + dict_bytes(&key_t, &m.translation);
    children += 12 + 4 + dict_bytes(nullptr, nullptr) + 4 + 4 + dict_bytes(nullptr, nullptr);
  }
  children += 12 + 4 + dict_bytes(nullptr, nullptr) + 4;  // LAYR
  children += 12 + 4 * 256;                               // RGBA
  const std::uint64_t file_bytes = 8 + 12 + children;
  if (file_bytes > kMaxVoxFileBytes) {
    throw Error(ErrorCategory::limit,
                who + ": the .vox file would be " + std::to_string(file_bytes) + " bytes (" +
                    std::to_string(file_bytes - 8 - 12 - 12 - 1024) +
                    " of models and scene), more than the format's 2147483647 (its chunk sizes "
                    "are int32); export a smaller region");
  }

  std::vector<std::byte> bytes;
  bytes.reserve(std::size_t(file_bytes));
  Writer w{bytes};
  w.id("VOX ");
  w.i32(200);
  w.chunk("MAIN", 0, children);
  for (const Model& m : models) {
    w.chunk("SIZE", 12, 0);
    for (int a = 0; a < 3; ++a) w.i32(m.size[a]);
    w.chunk("XYZI", 4 + 4 * m.voxels, 0);
    w.i32(std::int64_t(m.voxels));
    // Vox Z = y, vox Y = size_z - 1 - z, vox X = x: y outermost and x innermost read the region
    // in storage order within each row.
    const int lo[3] = {m.tile[0] * kVoxModelSide, m.tile[1] * kVoxModelSide,
                       m.tile[2] * kVoxModelSide};
    for (int c = 0; c < m.size[2]; ++c) {
      const int y = lo[2] + c;
      for (int b = 0; b < m.size[1]; ++b) {
        const int z = region.size_z - 1 - (lo[1] + b);
        const std::uint16_t* row =
            region.blocks.data() + (std::size_t(y) * std::size_t(region.size_z) + std::size_t(z)) *
                                       std::size_t(region.size_x);
        for (int a = 0; a < m.size[0]; ++a) {
          const std::uint8_t index = colour_index[row[lo[0] + a]];
          if (index == 0) continue;
          w.u8(std::uint8_t(a));
          w.u8(std::uint8_t(b));
          w.u8(std::uint8_t(c));
          w.u8(index);
        }
      }
    }
  }
  // Scene graph.
  w.chunk("nTRN", 4 + dict_bytes(nullptr, nullptr) + 4 * 4 + dict_bytes(nullptr, nullptr), 0);
  w.i32(0);                         // node id
  write_dict(w, nullptr, nullptr);  // attributes
  w.i32(1);                         // child: the group
  w.i32(-1);                        // reserved
  w.i32(-1);                        // layer (the root belongs to none)
  w.i32(1);                         // frames
  write_dict(w, nullptr, nullptr);
  w.chunk("nGRP", 4 + dict_bytes(nullptr, nullptr) + 4 + 4 * models.size(), 0);
  w.i32(1);
  write_dict(w, nullptr, nullptr);
  w.i32(std::int64_t(models.size()));
  for (std::size_t m = 0; m < models.size(); ++m) w.i32(std::int64_t(2 + 2 * m));
  for (std::size_t m = 0; m < models.size(); ++m) {
    w.chunk("nTRN",
            4 + dict_bytes(nullptr, nullptr) + 4 * 4 + dict_bytes(&key_t, &models[m].translation),
            0);
    w.i32(std::int64_t(2 + 2 * m));
    write_dict(w, nullptr, nullptr);
    w.i32(std::int64_t(3 + 2 * m));
    w.i32(-1);
    w.i32(0);  // layer 0
    w.i32(1);
    write_dict(w, &key_t, &models[m].translation);
    w.chunk("nSHP", 4 + dict_bytes(nullptr, nullptr) + 4 + 4 + dict_bytes(nullptr, nullptr), 0);
    w.i32(std::int64_t(3 + 2 * m));
    write_dict(w, nullptr, nullptr);
    w.i32(1);                // models
    w.i32(std::int64_t(m));  // model id: its SIZE / XYZI pair's position
    write_dict(w, nullptr, nullptr);
  }
  w.chunk("LAYR", 4 + dict_bytes(nullptr, nullptr) + 4, 0);
  w.i32(0);
  write_dict(w, nullptr, nullptr);
  w.i32(-1);
  // Palette: entry e is colour index e + 1.
  w.chunk("RGBA", 4 * 256, 0);
  for (int e = 0; e < 256; ++e) {
    if (std::size_t(e) < by_index.size()) {
      const BlockType& t = palette.types[by_index[std::size_t(e)]];
      w.u8(t.colour[0]);
      w.u8(t.colour[1]);
      w.u8(t.colour[2]);
    } else {
      w.u8(0);
      w.u8(0);
      w.u8(0);
    }
    w.u8(255);
  }
  if (bytes.size() != file_bytes) {
    throw Error(ErrorCategory::internal, who + ": .vox writer size mismatch (" +
                                             std::to_string(bytes.size()) + " vs " +
                                             std::to_string(file_bytes) + ")");
  }
  write_file_atomic(path, bytes);
}

}  // namespace terrane
