// Block exports: MagicaVoxel .vox read back by an independent reader written here from the
// format's description (ephtracy/voxel-model, MagicaVoxel-file-format-vox.txt and
// -vox-extension.txt), and block GLBs parsed here (header, JSON, BIN) and checked face by face
// against a brute-force list of the exposed block faces.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/mesh.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Vec3 = std::array<std::int64_t, 3>;
using Rgba = std::array<std::uint8_t, 4>;

class VoxelFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("terrane_voxel_export_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t file_count() const {
    return std::size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

BlockPalette test_palette() {
  BlockPalette p;
  p.types = {{"air", BlockKind::air, true, {0, 0, 0}},
             {"stone", BlockKind::opaque, true, {120, 121, 122}},
             {"dirt", BlockKind::opaque, true, {134, 96, 67}},
             {"grass", BlockKind::opaque, true, {90, 160, 60}},
             {"water", BlockKind::liquid, true, {40, 90, 200}},
             {"glass", BlockKind::transparent, true, {200, 230, 240}},
             {"leaves", BlockKind::transparent, false, {50, 120, 40}}};
  return p;
}

std::uint64_t mix(std::uint64_t x) {  // SplitMix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A region filled by `f(x, y, z)`.
template <class F>
BlockRegion make_region(Vec3 origin, int sx, int sy, int sz, F&& f) {
  BlockRegion r;
  r.x0 = origin[0], r.y0 = origin[1], r.z0 = origin[2];
  r.size_x = sx, r.size_y = sy, r.size_z = sz;
  r.blocks.resize(r.block_count());
  for (int y = 0; y < sy; ++y) {
    for (int z = 0; z < sz; ++z) {
      for (int x = 0; x < sx; ++x) {
        r.blocks[(std::size_t(y) * std::size_t(sz) + std::size_t(z)) * std::size_t(sx) +
                 std::size_t(x)] = std::uint16_t(f(x, y, z));
      }
    }
  }
  return r;
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// ---------------------------------------------------------------------------------------------
// An independent .vox reader.

struct Cursor {
  const std::vector<std::uint8_t>& b;
  std::size_t at, end;
  std::int32_t i32() {
    if (at + 4 > end) throw std::runtime_error("vox: truncated int32");
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= std::uint32_t(b[at + std::size_t(k)]) << (8 * k);
    at += 4;
    return std::int32_t(v);
  }
  std::string id() {
    if (at + 4 > end) throw std::runtime_error("vox: truncated id");
    std::string s(reinterpret_cast<const char*>(&b[at]), 4);
    at += 4;
    return s;
  }
  std::string str() {
    const std::int32_t n = i32();
    if (n < 0 || at + std::size_t(n) > end) throw std::runtime_error("vox: bad string");
    std::string s(reinterpret_cast<const char*>(&b[at]), std::size_t(n));
    at += std::size_t(n);
    return s;
  }
  std::map<std::string, std::string> dict() {
    const std::int32_t n = i32();
    std::map<std::string, std::string> d;
    for (std::int32_t k = 0; k < n; ++k) {
      std::string key = str();
      d[key] = str();
    }
    return d;
  }
};

struct VoxNode {
  std::string type;           // nTRN, nGRP, nSHP
  std::vector<int> children;  // nTRN: one; nGRP: many; nSHP: model ids
  Vec3 translation{0, 0, 0};
};

struct VoxFile {
  int version = 0;
  std::vector<std::array<int, 3>> sizes;
  std::vector<std::vector<Rgba>> voxels;  // x, y, z, colour index per voxel
  std::array<Rgba, 256> rgba{};           // file entry e = colour index e + 1
  bool has_rgba = false;
  std::map<int, VoxNode> nodes;
  std::map<Vec3, Rgba> scene;  // scene position -> colour
};

VoxFile read_vox(const fs::path& path) {
  const std::vector<std::uint8_t> b = read_bytes(path);
  VoxFile f;
  Cursor c{b, 0, b.size()};
  if (c.id() != "VOX ") throw std::runtime_error("vox: no 'VOX ' magic");
  f.version = c.i32();
  if (c.id() != "MAIN") throw std::runtime_error("vox: no MAIN chunk");
  const std::int32_t main_content = c.i32(), main_children = c.i32();
  if (main_content != 0 || main_children < 0 || c.at + std::size_t(main_children) != b.size()) {
    throw std::runtime_error("vox: MAIN sizes do not match the file");
  }
  while (c.at < b.size()) {
    const std::string id = c.id();
    const std::int32_t n = c.i32(), m = c.i32();
    if (n < 0 || m != 0 || c.at + std::size_t(n) > b.size()) {
      throw std::runtime_error("vox: bad chunk sizes in " + id);
    }
    Cursor k{b, c.at, c.at + std::size_t(n)};
    if (id == "SIZE") {
      f.sizes.push_back({k.i32(), k.i32(), k.i32()});
    } else if (id == "XYZI") {
      if (f.voxels.size() + 1 != f.sizes.size()) throw std::runtime_error("vox: XYZI w/o SIZE");
      const std::int32_t count = k.i32();
      if (std::size_t(n) != 4 + 4 * std::size_t(count)) throw std::runtime_error("vox: XYZI");
      std::vector<Rgba> v(static_cast<std::size_t>(count));
      for (Rgba& e : v) {
        for (std::size_t q = 0; q < 4; ++q) e[q] = b[k.at++];
      }
      f.voxels.push_back(std::move(v));
    } else if (id == "RGBA") {
      if (n != 1024) throw std::runtime_error("vox: RGBA size");
      for (Rgba& e : f.rgba) {
        for (std::size_t q = 0; q < 4; ++q) e[q] = b[k.at++];
      }
      f.has_rgba = true;
    } else if (id == "nTRN") {
      const int node = k.i32();
      k.dict();
      VoxNode t{"nTRN", {k.i32()}, {0, 0, 0}};
      if (k.i32() != -1) throw std::runtime_error("vox: nTRN reserved id is not -1");
      k.i32();  // layer
      const std::int32_t frames = k.i32();
      if (frames < 1) throw std::runtime_error("vox: nTRN without frames");
      for (std::int32_t fr = 0; fr < frames; ++fr) {
        const auto d = k.dict();
        if (d.count("_r") != 0) throw std::runtime_error("vox: unexpected rotation");
        if (fr == 0 && d.count("_t") != 0) {
          std::istringstream in(d.at("_t"));
          in >> t.translation[0] >> t.translation[1] >> t.translation[2];
          if (!in) throw std::runtime_error("vox: bad _t '" + d.at("_t") + "'");
        }
      }
      f.nodes[node] = t;
    } else if (id == "nGRP") {
      const int node = k.i32();
      k.dict();
      VoxNode g{"nGRP", {}, {0, 0, 0}};
      const std::int32_t count = k.i32();
      for (std::int32_t q = 0; q < count; ++q) g.children.push_back(k.i32());
      f.nodes[node] = g;
    } else if (id == "nSHP") {
      const int node = k.i32();
      k.dict();
      VoxNode s{"nSHP", {}, {0, 0, 0}};
      const std::int32_t count = k.i32();
      for (std::int32_t q = 0; q < count; ++q) {
        s.children.push_back(k.i32());
        k.dict();
      }
      f.nodes[node] = s;
    } else {
      k.at = k.end;  // LAYR and others: skipped
    }
    if (k.at != k.end) throw std::runtime_error("vox: chunk " + id + " not fully read");
    c.at += std::size_t(n);
  }
  // The scene: from transform node 0, translations add up; a model of size s at translation t
  // has voxel v at t + v - floor(s / 2).
  if (!f.has_rgba) throw std::runtime_error("vox: no RGBA");
  const auto visit = [&](auto&& self, int id, Vec3 t, int depth) -> void {
    if (depth > 64 || f.nodes.count(id) == 0) throw std::runtime_error("vox: bad scene graph");
    const VoxNode& n = f.nodes.at(id);
    if (n.type == "nTRN") {
      for (int a = 0; a < 3; ++a) t[std::size_t(a)] += n.translation[std::size_t(a)];
      self(self, n.children.at(0), t, depth + 1);
    } else if (n.type == "nGRP") {
      for (int child : n.children) self(self, child, t, depth + 1);
    } else {
      for (int model : n.children) {
        const auto& size = f.sizes.at(std::size_t(model));
        for (const Rgba& v : f.voxels.at(std::size_t(model))) {
          if (v[0] >= size[0] || v[1] >= size[1] || v[2] >= size[2] || v[3] == 0) {
            throw std::runtime_error("vox: voxel outside its model or of colour 0");
          }
          Vec3 p;
          for (std::size_t a = 0; a < 3; ++a) p[a] = t[a] + v[a] - size[a] / 2;
          if (!f.scene.emplace(p, f.rgba[v[3] - 1]).second) {
            throw std::runtime_error("vox: two voxels at one position");
          }
        }
      }
    }
  };
  if (!f.nodes.empty()) {
    visit(visit, 0, {0, 0, 0}, 0);
  } else if (f.sizes.size() == 1) {
    visit(visit, -1, {0, 0, 0}, 0);  // not written by terrane
  }
  return f;
}

// The scene terrane's write_vox documents: block (x, y, z) of the region at
// (x - floor(sx / 2), (sz - 1 - z) - floor(sz / 2), y).
Vec3 scene_of(const BlockRegion& r, int x, int y, int z) {
  return {x - r.size_x / 2, (r.size_z - 1 - z) - r.size_z / 2, y};
}

std::map<Vec3, Rgba> expected_scene(const BlockRegion& r, const BlockPalette& p) {
  std::map<Vec3, Rgba> s;
  for (int y = 0; y < r.size_y; ++y) {
    for (int z = 0; z < r.size_z; ++z) {
      for (int x = 0; x < r.size_x; ++x) {
        const BlockType& t = p.types[r.at(x, y, z)];
        if (t.kind == BlockKind::air) continue;
        s[scene_of(r, x, y, z)] = {t.colour[0], t.colour[1], t.colour[2], 255};
      }
    }
  }
  return s;
}

void expect_scene_equal(const std::map<Vec3, Rgba>& got, const std::map<Vec3, Rgba>& want) {
  ASSERT_EQ(got.size(), want.size());
  auto g = got.begin();
  for (auto w = want.begin(); w != want.end(); ++w, ++g) {
    ASSERT_EQ(g->first, w->first);
    ASSERT_EQ(g->second, w->second)
        << "at scene " << w->first[0] << " " << w->first[1] << " " << w->first[2];
  }
}

TEST_F(VoxelFiles, VoxSmallRegionReadsBackExactly) {
  const BlockPalette pal = test_palette();
  const BlockRegion r = make_region({-3, 10, 1000000}, 7, 5, 6, [](int x, int y, int z) {
    return mix(std::uint64_t(x * 131 + y * 17 + z * 7919)) % 7;
  });
  const fs::path path = dir_ / "small.vox";
  write_vox(path, r, pal);
  const VoxFile f = read_vox(path);
  EXPECT_EQ(f.version, 200);
  ASSERT_EQ(f.sizes.size(), 1u);
  EXPECT_EQ(f.sizes[0], (std::array<int, 3>{7, 6, 5}));  // (x, z, y)
  expect_scene_equal(f.scene, expected_scene(r, pal));
  EXPECT_EQ(file_count(), 1u);  // no temporary left
}

TEST_F(VoxelFiles, VoxHandednessIsARotationNotAMirror) {
  const BlockPalette pal = test_palette();
  // Origin block stone, +x dirt, +y grass, +z water.
  const BlockRegion r = make_region({0, 0, 0}, 2, 2, 2, [](int x, int y, int z) {
    return x + y + z != 1 && !(x == 0 && y == 0 && z == 0) ? 0
           : x == 1                                        ? 2
           : y == 1                                        ? 3
           : z == 1                                        ? 4
                                                           : 1;
  });
  write_vox(dir_ / "axes.vox", r, pal);
  const VoxFile f = read_vox(dir_ / "axes.vox");
  std::map<int, Vec3> at;  // by red channel, which differs per type
  for (const auto& [pos, colour] : f.scene) at[colour[0]] = pos;
  ASSERT_EQ(at.size(), 4u);
  const Vec3 o = at[120], ex = at[134], ey = at[90], ez = at[40];
  const Vec3 dx{ex[0] - o[0], ex[1] - o[1], ex[2] - o[2]};
  const Vec3 dy{ey[0] - o[0], ey[1] - o[1], ey[2] - o[2]};
  const Vec3 dz{ez[0] - o[0], ez[1] - o[1], ez[2] - o[2]};
  EXPECT_EQ(dy, (Vec3{0, 0, 1})) << "terrane up is MagicaVoxel's +Z";
  EXPECT_EQ(dx, (Vec3{1, 0, 0}));
  // Right-handed in both: x cross y = z in terrane must hold for the mapped axes.
  const Vec3 cross{dx[1] * dy[2] - dx[2] * dy[1], dx[2] * dy[0] - dx[0] * dy[2],
                   dx[0] * dy[1] - dx[1] * dy[0]};
  EXPECT_EQ(cross, dz);
}

TEST_F(VoxelFiles, VoxLargeRegionIsTiledInto256Models) {
  const BlockPalette pal = test_palette();
  // Sparse blocks everywhere except x >= 256, z <= 3 (scene tile (1, 1, 0), skipped).
  const BlockRegion r = make_region({100, -64, -5000}, 300, 20, 260, [](int x, int y, int z) {
    if (x >= 256 && z <= 3) return std::uint64_t{0};
    const std::uint64_t h = mix(std::uint64_t(x) << 40 | std::uint64_t(y) << 20 | std::uint64_t(z));
    return h % 50 == 0 ? 1 + (h >> 8) % 6 : 0;
  });
  write_vox(dir_ / "big.vox", r, pal);
  const VoxFile f = read_vox(dir_ / "big.vox");
  ASSERT_EQ(f.sizes.size(), 3u);
  std::multiset<std::array<int, 3>> sizes(f.sizes.begin(), f.sizes.end());
  EXPECT_EQ(sizes,
            (std::multiset<std::array<int, 3>>{{256, 256, 20}, {44, 256, 20}, {256, 4, 20}}));
  const auto want = expected_scene(r, pal);
  EXPECT_GT(want.size(), 25000u);
  expect_scene_equal(f.scene, want);
}

TEST_F(VoxelFiles, VoxHolds255BlockTypesAndRefuses256) {
  BlockPalette pal;
  pal.types.push_back({"air", BlockKind::air, true, {0, 0, 0}});
  for (int k = 1; k <= 256; ++k) {
    std::string name(1, 't');
    name += std::to_string(k);
    pal.types.push_back({name,
                         k % 3 == 0 ? BlockKind::liquid : BlockKind::opaque,
                         true,
                         {std::uint8_t(k), std::uint8_t(255 - k % 256), std::uint8_t(k * 7)}});
  }
  // Ids 2..256 (255 types), one block each.
  BlockRegion r = make_region({0, 0, 0}, 16, 2, 16, [](int x, int y, int z) {
    const int k = y * 256 + z * 16 + x;
    return k < 255 ? k + 2 : 0;
  });
  write_vox(dir_ / "255.vox", r, pal);
  const VoxFile f = read_vox(dir_ / "255.vox");
  expect_scene_equal(f.scene, expected_scene(r, pal));
  std::set<Rgba> colours;
  for (const auto& [p, c] : f.scene) colours.insert(c);
  EXPECT_EQ(colours.size(), 255u);

  r.blocks[r.blocks.size() - 1] = 1;  // the 256th type
  try {
    write_vox(dir_ / "256.vox", r, pal);
    FAIL() << "expected Error(limit)";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::limit);
    EXPECT_NE(std::string(e.what()).find("256 non-air block types are present; a .vox palette "
                                         "holds 1..255 colours"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "256.vox"));
}

TEST_F(VoxelFiles, VoxAllAirWritesOneEmptyModel) {
  const BlockRegion r = make_region({0, 0, 0}, 3, 4, 5, [](int, int, int) { return 0; });
  write_vox(dir_ / "air.vox", r, test_palette());
  const VoxFile f = read_vox(dir_ / "air.vox");
  ASSERT_EQ(f.sizes.size(), 1u);
  EXPECT_EQ(f.sizes[0], (std::array<int, 3>{3, 5, 4}));
  EXPECT_TRUE(f.scene.empty());
}

template <class F>
void expect_error(F&& f, ErrorCategory category, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << text << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), category) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST_F(VoxelFiles, VoxBadInputIsRefusedWithPreciseMessages) {
  const BlockPalette pal = test_palette();
  const fs::path path = dir_ / "bad.vox";
  BlockRegion r = make_region({5, 6, 7}, 4, 4, 4, [](int, int, int) { return 1; });
  BlockRegion zero = r;
  zero.size_y = 0;
  expect_error([&] { write_vox(path, zero, pal); }, ErrorCategory::invalid_argument,
               "size_y 0 is outside 1..1048576");
  BlockRegion negative = r;
  negative.size_x = -2;
  expect_error([&] { write_vox(path, negative, pal); }, ErrorCategory::invalid_argument,
               "size_x -2 is outside 1..1048576");
  BlockRegion short_blocks = r;
  short_blocks.blocks.pop_back();
  expect_error([&] { write_vox(path, short_blocks, pal); }, ErrorCategory::invalid_argument,
               "63 block ids for a region of 4 x 4 x 4 (expected 64)");
  BlockRegion bad_id = r;
  bad_id.blocks[(std::size_t(2) * 4 + 3) * 4 + 1] = 9;  // (1, 2, 3)
  expect_error([&] { write_vox(path, bad_id, pal); }, ErrorCategory::invalid_argument,
               "block id 9 at world block (6, 8, 10) is outside the palette of 7 types (ids 0..6)");
  // Too many models: refused from the sizes alone, before the blocks are looked at (a region
  // that large would not fit in memory here).
  BlockRegion huge;
  huge.size_x = 1 << 20;
  huge.size_y = 1;
  huge.size_z = 256 * 4 + 1;
  expect_error([&] { write_vox(path, huge, pal); }, ErrorCategory::limit,
               "needs 20480 models of 256^3 (4096 x 1 x 5), more than the limit of 16384");
  BlockRegion vast;
  vast.size_x = vast.size_y = vast.size_z = 1 << 20;
  expect_error([&] { write_vox(path, vast, pal); }, ErrorCategory::limit,
               "blocks, more than the limit of 68719476736");
  BlockPalette no_air = pal;
  no_air.types[0].kind = BlockKind::opaque;
  expect_error([&] { write_vox(path, r, no_air); }, ErrorCategory::invalid_argument,
               "entry 0 ('air') must be air");
  EXPECT_EQ(file_count(), 0u);
}

// ---------------------------------------------------------------------------------------------
// GLB

struct Glb {
  json doc;
  std::vector<std::uint8_t> bin;
};

Glb read_glb(const fs::path& path) {
  const std::vector<std::uint8_t> b = read_bytes(path);
  const auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, &b.at(at + 3) - 3, 4);
    return v;
  };
  EXPECT_EQ(u32(0), 0x46546C67u);  // glTF
  EXPECT_EQ(u32(4), 2u);
  EXPECT_EQ(u32(8), b.size());
  const std::uint32_t json_len = u32(12);
  EXPECT_EQ(u32(16), 0x4E4F534Au);  // JSON
  EXPECT_EQ(json_len % 4, 0u);
  Glb g;
  g.doc = json::parse(std::string(reinterpret_cast<const char*>(&b[20]), json_len));
  const std::size_t bin_at = 20 + json_len;
  const std::uint32_t bin_len = u32(bin_at);
  EXPECT_EQ(u32(bin_at + 4), 0x004E4942u);  // BIN
  EXPECT_EQ(bin_at + 8 + bin_len, b.size());
  g.bin.assign(b.begin() + std::ptrdiff_t(bin_at + 8), b.end());
  EXPECT_EQ(g.doc["buffers"][0]["byteLength"].get<std::size_t>(), bin_len);
  return g;
}

// Accessor `a` as doubles (normalized integers scaled to 0..1), `comps` per element.
std::vector<double> accessor(const Glb& g, std::size_t a, int* comps = nullptr) {
  const json& acc = g.doc["accessors"][a];
  const json& view = g.doc["bufferViews"][acc["bufferView"].get<std::size_t>()];
  const std::size_t offset = view["byteOffset"].get<std::size_t>();
  const std::size_t count = acc["count"].get<std::size_t>();
  const std::string type = acc["type"];
  const int n = type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : 4;
  if (comps != nullptr) *comps = n;
  const int ct = acc["componentType"];
  const bool normalized = acc.value("normalized", false);
  std::vector<double> out(count * std::size_t(n));
  const std::uint8_t* p = g.bin.data() + offset;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (ct == 5126) {
      float f;
      std::memcpy(&f, p + 4 * k, 4);
      out[k] = f;
    } else if (ct == 5123) {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * k, 2);
      out[k] = normalized ? v / 65535.0 : v;
    } else if (ct == 5125) {
      std::uint32_t v;
      std::memcpy(&v, p + 4 * k, 4);
      out[k] = v;
    } else {
      ADD_FAILURE() << "unexpected component type " << ct;
    }
  }
  return out;
}

// A block face: block position (region-local) and BlockFace.
using FaceKey = std::array<int, 4>;

struct FaceInfo {
  std::uint16_t block;
  bool translucent;
};

// The faces build_block_mesh draws, by brute force (outside the region is air).
std::map<FaceKey, FaceInfo> brute_force_faces(const BlockRegion& r, const BlockPalette& p) {
  std::map<FaceKey, FaceInfo> faces;
  static const int dirs[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                 {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  for (int y = 0; y < r.size_y; ++y) {
    for (int z = 0; z < r.size_z; ++z) {
      for (int x = 0; x < r.size_x; ++x) {
        const std::uint16_t a = r.at(x, y, z);
        const BlockType& ta = p.types[a];
        if (ta.kind == BlockKind::air) continue;
        for (int f = 0; f < 6; ++f) {
          const int nx = x + dirs[f][0], ny = y + dirs[f][1], nz = z + dirs[f][2];
          const bool inside =
              nx >= 0 && ny >= 0 && nz >= 0 && nx < r.size_x && ny < r.size_y && nz < r.size_z;
          const std::uint16_t b = inside ? r.at(nx, ny, nz) : 0;
          const BlockKind kb = p.types[b].kind;
          const bool drawn = ta.kind == BlockKind::opaque
                                 ? kb != BlockKind::opaque
                                 : kb != BlockKind::opaque && !(ta.cull_same && b == a);
          if (drawn) faces[{x, y, z, f}] = {a, ta.kind != BlockKind::opaque};
        }
      }
    }
  }
  return faces;
}

double linear(std::uint8_t v) {
  const double c = v / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// The occlusion count (0..3) whose factor turns `base` into `c`, or -1.
int occlusion_of(const std::array<double, 3>& c, const std::array<double, 3>& base) {
  for (int o = 0; o < 4; ++o) {
    bool ok = true;
    for (std::size_t ch = 0; ch < 3; ++ch) {
      ok = ok && std::abs(c[ch] - base[ch] * kBlockAoFactor[o]) <= 1.0 / 65535.0;
    }
    if (ok) return o;
  }
  return -1;
}

struct GlbCheck {
  std::map<FaceKey, FaceInfo> faces;  // found
  double area_m2 = 0.0;
  std::size_t quads = 0;
  std::size_t occluded_corners = 0;
};

// Reads node `node` of `g` and rebuilds its block faces from its triangle pairs, checking each
// pair is one axis-aligned rectangle split along a diagonal, counter-clockwise seen from
// outside, with colours of one block type darkened by a valid AO factor and the brighter
// diagonal chosen.
void check_node(const Glb& g, std::size_t node, const BlockRegion& r, const BlockPalette& pal,
                double bs, const std::map<FaceKey, FaceInfo>& want, GlbCheck& out) {
  const json& n = g.doc["nodes"][node];
  const json& prim = g.doc["meshes"][n["mesh"].get<std::size_t>()]["primitives"][0];
  const json& attr = prim["attributes"];
  ASSERT_TRUE(attr.contains("COLOR_0"));
  ASSERT_TRUE(prim.contains("material"));
  const std::vector<double> pos = accessor(g, attr["POSITION"]);
  const std::vector<double> nor = accessor(g, attr["NORMAL"]);
  int colour_comps = 0;
  const std::vector<double> col = accessor(g, attr["COLOR_0"], &colour_comps);
  ASSERT_EQ(colour_comps, 4);
  const std::vector<double> idx = accessor(g, prim["indices"]);
  ASSERT_EQ(idx.size() % 6, 0u);
  for (std::size_t q = 0; q < idx.size(); q += 6) {
    ++out.quads;
    std::map<std::array<double, 3>, std::size_t> corners;  // position (blocks) -> vertex
    std::array<std::array<double, 3>, 6> p;
    for (std::size_t k = 0; k < 6; ++k) {
      const std::size_t v = std::size_t(idx[q + k]);
      for (std::size_t a = 0; a < 3; ++a) p[k][a] = pos[3 * v + a] / bs;
      corners[p[k]] = v;
    }
    ASSERT_EQ(corners.size(), 4u);
    // The normal axis: constant over the corners.
    int na = -1;
    for (int a = 0; a < 3; ++a) {
      bool same = true;
      for (const auto& [c, v] : corners) same = same && c[std::size_t(a)] == p[0][std::size_t(a)];
      if (same) na = a;
    }
    ASSERT_GE(na, 0);
    const std::size_t v0 = corners.begin()->second;
    const double sign = nor[3 * v0 + std::size_t(na)];
    ASSERT_TRUE(sign == 1.0 || sign == -1.0);
    for (const auto& [c, v] : corners) {
      for (std::size_t a = 0; a < 3; ++a) {
        ASSERT_EQ(nor[3 * v + a], a == std::size_t(na) ? sign : 0.0);
      }
    }
    const int ua = na == 0 ? 2 : 0, va = na == 1 ? 2 : 1;
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = 1e300, hi[a] = -1e300;
      for (const auto& [c, v] : corners) {
        lo[a] = std::min(lo[a], c[std::size_t(a)]);
        hi[a] = std::max(hi[a], c[std::size_t(a)]);
      }
    }
    const double w = hi[ua] - lo[ua], h = hi[va] - lo[va];
    ASSERT_GT(w, 0.0);
    ASSERT_GT(h, 0.0);
    for (const auto& [c, v] : corners) {
      ASSERT_TRUE(c[std::size_t(ua)] == lo[ua] || c[std::size_t(ua)] == hi[ua]);
      ASSERT_TRUE(c[std::size_t(va)] == lo[va] || c[std::size_t(va)] == hi[va]);
    }
    // Both triangles: counter-clockwise seen from outside (geometric normal along the normal),
    // half the rectangle each, sharing a diagonal.
    for (std::size_t t = 0; t < 2; ++t) {
      const auto& a = p[3 * t];
      const auto& b = p[3 * t + 1];
      const auto& c = p[3 * t + 2];
      const std::array<double, 3> e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const std::array<double, 3> e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      const std::array<double, 3> cr{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                     e1[0] * e2[1] - e1[1] * e2[0]};
      ASSERT_EQ(cr[std::size_t(na)] * sign, w * h) << "winding or area of a triangle";
      out.area_m2 += 0.5 * w * h * bs * bs;
    }
    std::set<std::array<double, 3>> t0(p.begin(), p.begin() + 3), t1(p.begin() + 3, p.end());
    std::vector<std::array<double, 3>> shared;
    for (const auto& c : t0) {
      if (t1.count(c) != 0) shared.push_back(c);
    }
    ASSERT_EQ(shared.size(), 2u);
    ASSERT_NE(shared[0][std::size_t(ua)], shared[1][std::size_t(ua)]);  // opposite corners
    ASSERT_NE(shared[0][std::size_t(va)], shared[1][std::size_t(va)]);
    // The unit faces covered.
    const int plane = int(p[0][std::size_t(na)]);
    const int face = 2 * na + (sign > 0 ? 0 : 1);
    std::uint16_t block = 0;
    bool first = true;
    for (int u = int(lo[ua]); u < int(hi[ua]); ++u) {
      for (int v = int(lo[va]); v < int(hi[va]); ++v) {
        FaceKey key{0, 0, 0, face};
        key[std::size_t(na)] = sign > 0 ? plane - 1 : plane;
        key[std::size_t(ua)] = u;
        key[std::size_t(va)] = v;
        const auto it = want.find(key);
        ASSERT_NE(it, want.end()) << "a face that is not exposed: " << key[0] << " " << key[1]
                                  << " " << key[2] << " face " << face;
        ASSERT_TRUE(out.faces.emplace(key, it->second).second) << "a face covered twice";
        if (first) block = it->second.block;
        ASSERT_EQ(it->second.block, block) << "a quad over two block types";
        first = false;
      }
    }
    // Colours: the type's linear colour times an AO factor; alpha by kind; brighter diagonal.
    const BlockType& type = pal.types[block];
    const std::array<double, 3> base{linear(type.colour[0]), linear(type.colour[1]),
                                     linear(type.colour[2])};
    const double alpha = type.kind == BlockKind::liquid        ? kBlockLiquidAlpha
                         : type.kind == BlockKind::transparent ? kBlockTransparentAlpha
                                                               : 1.0;
    std::map<std::array<double, 3>, int> occ;
    for (const auto& [c, v] : corners) {
      const std::array<double, 3> rgb{col[4 * v], col[4 * v + 1], col[4 * v + 2]};
      const int o = occlusion_of(rgb, base);
      ASSERT_GE(o, 0) << "colour is not the block's colour darkened by an AO factor";
      ASSERT_NEAR(col[4 * v + 3], alpha, 1.0 / 65535.0);
      occ[c] = o;
      if (o > 0) ++out.occluded_corners;
    }
    int diagonal = 0, other = 0;
    for (const auto& [c, o] : occ)
      (std::find(shared.begin(), shared.end(), c) != shared.end() ? diagonal : other) += o;
    ASSERT_LE(diagonal, other) << "the quad is split along its darker diagonal";
  }
  (void)r;
}

TEST_F(VoxelFiles, BlockGlbCoversExactlyTheExposedFaces) {
  const BlockPalette pal = test_palette();
  // Terrain-like: a hashed height with dirt and grass, water in the low parts, scattered glass
  // and leaves; 70 x 14 x 65 spans 2 x 1 x 2 mesher tiles.
  const BlockRegion r = make_region({-1000003, 7, 250001}, 70, 14, 65, [](int x, int y, int z) {
    const std::uint64_t h = mix(std::uint64_t(x / 3) * 1000 + std::uint64_t(z / 4));
    const int ground = 3 + int(h % 8);
    const std::uint64_t k = mix(std::uint64_t(x) << 32 | std::uint64_t(y) << 16 | std::uint64_t(z));
    if (y < ground - 2) return k % 9 == 0 ? 0 : 1;  // stone with caves
    if (y < ground) return 2;
    if (y == ground) return 3;
    if (y <= 6) return 4;  // water
    if (k % 37 == 0) return 5;
    if (k % 41 == 0) return 6;
    return 0;
  });
  const double bs = 0.5;
  const fs::path path = dir_ / "blocks.glb";
  write_block_glb(path, r, pal, bs);
  EXPECT_EQ(file_count(), 1u);
  const Glb g = read_glb(path);
  ASSERT_EQ(g.doc["nodes"].size(), 2u);
  EXPECT_EQ(g.doc["nodes"][0]["name"], "blocks");
  EXPECT_EQ(g.doc["nodes"][1]["name"], "blocks_translucent");
  for (std::size_t n = 0; n < 2; ++n) {
    const json& t = g.doc["nodes"][n]["translation"];
    EXPECT_EQ(t[0].get<double>(), -1000003 * bs);
    EXPECT_EQ(t[1].get<double>(), 7 * bs);
    EXPECT_EQ(t[2].get<double>(), 250001 * bs);
  }
  ASSERT_EQ(g.doc["materials"].size(), 2u);
  EXPECT_FALSE(g.doc["materials"][0].contains("alphaMode"));
  EXPECT_EQ(g.doc["materials"][1]["alphaMode"], "BLEND");

  const std::map<FaceKey, FaceInfo> want = brute_force_faces(r, pal);
  std::map<FaceKey, FaceInfo> opaque_want, translucent_want;
  for (const auto& [k, f] : want) (f.translucent ? translucent_want : opaque_want).emplace(k, f);
  ASSERT_GT(opaque_want.size(), 5000u);
  ASSERT_GT(translucent_want.size(), 1000u);
  GlbCheck opaque, translucent;
  check_node(g, 0, r, pal, bs, opaque_want, opaque);
  check_node(g, 1, r, pal, bs, translucent_want, translucent);
  EXPECT_EQ(opaque.faces.size(), opaque_want.size()) << "every exposed opaque face is covered";
  EXPECT_EQ(translucent.faces.size(), translucent_want.size());
  EXPECT_DOUBLE_EQ(opaque.area_m2, double(opaque_want.size()) * bs * bs);
  EXPECT_DOUBLE_EQ(translucent.area_m2, double(translucent_want.size()) * bs * bs);
  EXPECT_LT(opaque.quads, opaque_want.size() * 3 / 4) << "greedy merging should merge faces";
  // The mesher's ambient occlusion (on by default) reaches the colours.
  EXPECT_GT(opaque.occluded_corners, opaque.quads / 4);

  // build_block_region_meshes gives the same meshes.
  Mesh mo, mt;
  const std::size_t quads = build_block_region_meshes(r, pal, bs, mo, mt);
  EXPECT_EQ(quads, opaque.quads + translucent.quads);
  EXPECT_EQ(mo.origin_x_m, -1000003 * bs);
  EXPECT_NO_THROW(mo.validate());
  EXPECT_NO_THROW(mt.validate());
  EXPECT_EQ(mo.colours.size(), 4 * mo.vertex_count());

  if (const char* keep = std::getenv("TERRANE_VOXEL_EXPORT_DIR")) {  // for the glTF validator
    write_block_glb(fs::path(keep) / "blocks.glb", r, pal, bs);
    write_vox(fs::path(keep) / "blocks.vox", r, pal);
    std::printf("blocks.glb: %ju bytes, %zu quads\n", std::uintmax_t(fs::file_size(path)), quads);
  }
}

TEST(BlockQuads, OcclusionDarkensCornersAndPicksTheBrighterDiagonal) {
  const BlockPalette pal = test_palette();
  for (int f = 0; f < 6; ++f) {
    for (const std::uint64_t ao : {0x00ull, 0x03ull, 0x0Cull, 0x33ull, 0xCCull, 0xE4ull}) {
      PackedQuad q = PackedQuad::make(1, 2, 3, 2, 3, BlockFace(f), 3);
      q.bits |= ao << 49;
      Mesh m;
      std::vector<std::uint32_t> idx;
      append_block_quads({&q, 1}, pal, {10, 20, 30, 2.0}, m, idx);
      ASSERT_EQ(m.vertex_count(), 4u);
      ASSERT_EQ(idx.size(), 6u);
      for (int c = 0; c < 4; ++c) {
        const double expect = linear(90) * kBlockAoFactor[q.occlusion(c)];
        EXPECT_NEAR(m.colours[4 * std::size_t(c)] / 65535.0, expect, 0.6 / 65535.0);
        EXPECT_EQ(m.colours[4 * std::size_t(c) + 3], 65535);
      }
      // Diagonal: the corners shared by both triangles.
      std::set<std::uint32_t> t0(idx.begin(), idx.begin() + 3), t1(idx.begin() + 3, idx.end());
      std::set<std::uint32_t> shared;
      for (auto v : t0) {
        if (t1.count(v) != 0) shared.insert(v);
      }
      const bool flipped = q.occlusion(0) + q.occlusion(2) > q.occlusion(1) + q.occlusion(3);
      EXPECT_EQ(shared, (flipped ? std::set<std::uint32_t>{1, 3} : std::set<std::uint32_t>{0, 2}))
          << "face " << f << " ao " << ao;
      // Winding: geometric normal along the stored normal.
      for (std::size_t t = 0; t < 2; ++t) {
        const float* a = &m.positions[3 * idx[3 * t]];
        const float* b = &m.positions[3 * idx[3 * t + 1]];
        const float* c = &m.positions[3 * idx[3 * t + 2]];
        const float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        const float dot = cr[0] * m.normals[0] + cr[1] * m.normals[1] + cr[2] * m.normals[2];
        EXPECT_FLOAT_EQ(dot, 2.0f * 3.0f * 4.0f) << "face " << f;  // w * h * bs^2
      }
      // Position: the face plane of block (11, 22, 33) toward the face, in 2 m blocks.
      const int axis = f / 2;
      const float plane = float((axis == 0 ? 11 : axis == 1 ? 22 : 33) + (f % 2 == 0 ? 1 : 0)) * 2;
      for (std::size_t v = 0; v < 4; ++v) EXPECT_EQ(m.positions[3 * v + std::size_t(axis)], plane);
    }
  }
}

TEST_F(VoxelFiles, BlockGlbBadInputIsRefused) {
  const BlockPalette pal = test_palette();
  const fs::path path = dir_ / "bad.glb";
  const BlockRegion r = make_region({0, 0, 0}, 3, 3, 3, [](int, int, int) { return 1; });
  expect_error([&] { write_block_glb(path, r, pal, 0.0); }, ErrorCategory::invalid_argument,
               "block size 0.000000 m must be finite and > 0");
  expect_error([&] { write_block_glb(path, r, pal, std::nan("")); },
               ErrorCategory::invalid_argument, "must be finite and > 0");
  const BlockRegion air = make_region({0, 0, 0}, 3, 3, 3, [](int, int, int) { return 0; });
  expect_error([&] { write_block_glb(path, air, pal); }, ErrorCategory::invalid_argument,
               "the block region of 3 x 3 x 3 has no visible block face");
  BlockRegion bad = r;
  bad.blocks[13] = 200;  // (1, 1, 1)
  expect_error([&] { write_block_glb(path, bad, pal); }, ErrorCategory::invalid_argument,
               "block id 200 at world block (1, 1, 1) is outside the palette of 7 types");
  BlockRegion empty = r;
  empty.size_z = 0;
  expect_error([&] { write_block_glb(path, empty, pal); }, ErrorCategory::invalid_argument,
               "size_z 0 is outside 1..1048576");
  EXPECT_EQ(file_count(), 0u);
}

TEST_F(VoxelFiles, WriteGlbColoursAndMaterialsOnlyWhenAsked) {
  Mesh m;
  m.positions = {0, 0, 0, 1, 0, 0, 0, 0, 1};
  m.normals = {0, 1, 0, 0, 1, 0, 0, 1, 0};
  m.uv_local = {0, 0, 1, 0, 0, 1};
  const std::uint32_t tri[] = {0, 2, 1};
  set_indices(m, tri);
  update_bbox(m);
  const GlbNode plain{"plain", &m};
  write_glb(dir_ / "plain.glb", {&plain, 1});
  const Glb a = read_glb(dir_ / "plain.glb");
  EXPECT_FALSE(a.doc["meshes"][0]["primitives"][0]["attributes"].contains("COLOR_0"));
  EXPECT_FALSE(a.doc["meshes"][0]["primitives"][0].contains("material"));
  EXPECT_FALSE(a.doc.contains("materials"));

  m.colours = {65535, 0, 0, 65535, 0, 65535, 0, 65535, 0, 0, 65535, 32768};
  const GlbNode nodes[] = {{"c1", &m, GlbMaterial::matte_blend},
                           {"c2", &m, GlbMaterial::matte_blend}};
  write_glb(dir_ / "colour.glb", nodes);
  const Glb b = read_glb(dir_ / "colour.glb");
  const json& attr = b.doc["meshes"][1]["primitives"][0]["attributes"];
  const json& acc = b.doc["accessors"][attr["COLOR_0"].get<std::size_t>()];
  EXPECT_EQ(acc["componentType"], 5123);
  EXPECT_EQ(acc["normalized"], true);
  EXPECT_EQ(acc["type"], "VEC4");
  EXPECT_EQ(accessor(b, attr["COLOR_0"])[11], 32768 / 65535.0);
  ASSERT_EQ(b.doc["materials"].size(), 1u);  // shared
  EXPECT_EQ(b.doc["meshes"][1]["primitives"][0]["material"], 0);
  EXPECT_EQ(b.doc["materials"][0]["alphaMode"], "BLEND");
  const GlbMeshSize s{3, 3, true};
  EXPECT_LE(fs::file_size(dir_ / "colour.glb"), glb_size_bound(std::vector<GlbMeshSize>{s, s}));

  m.colours.pop_back();
  expect_error(
      [&] {
        write_glb(dir_ / "bad.glb", {&plain, 1});
      },
      ErrorCategory::invalid_argument, "has 11 colour values for 3 vertices (expected 0 or 12)");
}

}  // namespace
}  // namespace terrane
