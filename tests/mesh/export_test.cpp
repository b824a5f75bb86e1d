// Export meshes: map tiles, simplification with locked borders, GLB (read back with tinygltf),
// OBJ, manifests, and their bad input.
#include <gtest/gtest.h>
#include <meshoptimizer.h>
#include <tiny_gltf.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mesh_test_util.hpp"

namespace terrane {
namespace {

using namespace mesh_test;
namespace fs = std::filesystem;

class MeshFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("terrane_mesh_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t file_count() const {
    return std::size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

Field2D test_map(int side, double spacing = 1.0) {
  const GridSpec g{.width = side, .height = side, .spacing_m = spacing, .origin_x_m = -512.0,
                   .origin_z_m = 256.0};
  return noise_field(g);
}

// Lattice vertex (i, j) of a region mesh (before any optimisation).
std::size_t lattice_index(const Mesh& m, const MeshRegion& r, int i, int j) {
  (void)m;
  const int step = 1 << r.lod;
  return std::size_t(j / step) * std::size_t(r.cells_x / step + 1) + std::size_t(i / step);
}

TEST(RegionMesh, TilesEqualTheUntiledMeshBitForBit) {
  const Field2D map = test_map(65);
  for (const int lod : {0, 1, 2}) {
    const TilePlan plan = plan_tiles(map.grid, 4, lod);
    Mesh whole, tile;
    const MeshRegion all{.cells_x = 64, .cells_z = 64, .lod = lod};
    build_region_mesh(map, all, whole);
    ASSERT_NO_THROW(whole.validate());
    for (int tz = 0; tz < 4; ++tz) {
      for (int tx = 0; tx < 4; ++tx) {
        const MeshRegion r = plan.region(tx, tz);
        build_region_mesh(map, r, tile);
        EXPECT_EQ(tile.origin_x_m, map.grid.x_m(r.i0));
        for (int j = 0; j <= r.cells_z; j += 1 << lod) {
          for (int i = 0; i <= r.cells_x; i += 1 << lod) {
            const std::size_t vt = lattice_index(tile, r, i, j);
            const std::size_t vw = lattice_index(whole, all, r.i0 + i, r.j0 + j);
            ASSERT_EQ(world_pos(tile, vt), world_pos(whole, vw));
            for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(tile.normals[3 * vt + c], whole.normals[3 * vw + c]);
            for (std::size_t c = 0; c < 2; ++c) ASSERT_EQ(tile.uv_world[2 * vt + c], whole.uv_world[2 * vw + c]);
          }
        }
      }
    }
  }
}

// Border segments of all tiles along the internal tile lines equal the untiled full-resolution
// mesh's edges along the same lines, also after simplification with locked borders.
TEST(RegionMesh, SimplifiedTilesJoinExactlyAlongTileBorders) {
  const Field2D map = test_map(129);
  const TilePlan plan = plan_tiles(map.grid, 4, 0);
  Mesh whole;
  build_region_mesh(map, {.cells_x = 128, .cells_z = 128}, whole);
  std::vector<Mesh> tiles(16);
  std::size_t before = 0, after = 0;
  for (int tz = 0; tz < 4; ++tz) {
    for (int tx = 0; tx < 4; ++tx) {
      Mesh raw;
      build_region_mesh(map, plan.region(tx, tz), raw);
      const SimplifyReport rep = simplify_mesh(raw, {.max_error_m = 0.5}, tiles[std::size_t(tz * 4 + tx)]);
      ASSERT_NO_THROW(tiles[std::size_t(tz * 4 + tx)].validate());
      before += rep.triangles_before;
      after += rep.triangles_after;
      EXPECT_LE(rep.error_m, 0.5 * 1.0001);
    }
  }
  EXPECT_LT(after, before / 2) << "simplification should remove most triangles of smooth noise";
  for (int axis : {0, 2}) {
    for (int line = 1; line < 4; ++line) {
      const double value = axis == 0 ? map.grid.x_m(line * 32) : map.grid.z_m(line * 32);
      std::vector<Segment> expected = border_segments(whole, axis, value);
      EXPECT_TRUE(expected.empty());  // interior lines of the whole mesh are not open edges
      // The whole mesh's edges along the line: consecutive lattice vertices on it.
      for (int t = 0; t < 128; ++t) {
        const int i0 = axis == 0 ? line * 32 : t, j0 = axis == 0 ? t : line * 32;
        const int i1 = axis == 0 ? i0 : t + 1, j1 = axis == 0 ? t + 1 : j0;
        expected.push_back({world_pos(whole, std::size_t(j0) * 129 + std::size_t(i0)),
                            world_pos(whole, std::size_t(j1) * 129 + std::size_t(i1))});
      }
      std::vector<Segment> low, high;  // tiles before and after the line
      for (int k = 0; k < 4; ++k) {
        const Mesh& a = tiles[std::size_t(axis == 0 ? k * 4 + line - 1 : (line - 1) * 4 + k)];
        const Mesh& b = tiles[std::size_t(axis == 0 ? k * 4 + line : line * 4 + k)];
        for (const Segment& s : border_segments(a, axis, value)) low.push_back(s);
        for (const Segment& s : border_segments(b, axis, value)) high.push_back(s);
      }
      std::sort(expected.begin(), expected.end());
      std::sort(low.begin(), low.end());
      std::sort(high.begin(), high.end());
      EXPECT_EQ(low, expected) << "axis " << axis << " line " << line;
      EXPECT_EQ(high, expected) << "axis " << axis << " line " << line;
    }
  }
}

TEST(RegionMesh, OptimizeKeepsTheSurface) {
  const Field2D map = test_map(33);
  Mesh m;
  build_region_mesh(map, {.cells_x = 32, .cells_z = 32}, m);
  std::set<std::array<P3, 3>> before, after;
  const auto tris = [](const Mesh& x, std::set<std::array<P3, 3>>& out) {
    for (std::size_t k = 0; k < x.index_count(); k += 3) {
      std::array<P3, 3> t{world_pos(x, x.index(k)), world_pos(x, x.index(k + 1)),
                          world_pos(x, x.index(k + 2))};
      std::rotate(t.begin(), std::min_element(t.begin(), t.end()), t.end());  // keep winding
      out.insert(t);
    }
  };
  tris(m, before);
  optimize_mesh(m);
  tris(m, after);
  EXPECT_EQ(before, after);
  EXPECT_EQ(m.vertex_count(), 33u * 33u);
}

// MeshOrder::vertex_cache is the lattice mesh reordered: the same vertices with the same
// attribute bits, the same triangles with the same winding, the same bounding box.
TEST(RegionMesh, VertexCacheOrderIsTheLatticeMeshReordered) {
  const Field2D map = test_map(301);
  const std::vector<MeshRegion> regions = {
      {.i0 = 3, .j0 = 5, .cells_x = 200, .cells_z = 120},  // strips of 7 and a narrower last
      {.i0 = 0, .j0 = 0, .cells_x = 300, .cells_z = 300},  // the map's borders, 32-bit indices
      {.i0 = 8, .j0 = 4, .cells_x = 56, .cells_z = 28},    // whole strips only
      {.i0 = 7, .j0 = 9, .cells_x = 6, .cells_z = 40},     // one strip
      {.i0 = 0, .j0 = 1, .cells_x = 1, .cells_z = 9},
      {.i0 = 2, .j0 = 0, .cells_x = 30, .cells_z = 1},
      {.i0 = 0, .j0 = 0, .cells_x = 256, .cells_z = 64, .lod = 2},
  };
  for (const MeshRegion& lattice_region : regions) {
    MeshRegion cache_region = lattice_region;
    cache_region.order = MeshOrder::vertex_cache;
    Mesh lattice, cached;
    build_region_mesh(map, lattice_region, lattice);
    build_region_mesh(map, cache_region, cached);
    ASSERT_NO_THROW(cached.validate());
    SCOPED_TRACE(std::to_string(lattice_region.cells_x) + " x " +
                 std::to_string(lattice_region.cells_z) + " cells, lod " +
                 std::to_string(lattice_region.lod));
    ASSERT_EQ(cached.vertex_count(), lattice.vertex_count());
    EXPECT_EQ(cached.uses_32bit_indices(), lattice.uses_32bit_indices());
    EXPECT_EQ(cached.surface_index_count, lattice.surface_index_count);
    EXPECT_EQ(cached.origin_x_m, lattice.origin_x_m);
    EXPECT_EQ(cached.origin_z_m, lattice.origin_z_m);
    EXPECT_EQ(cached.bbox_min, lattice.bbox_min);
    EXPECT_EQ(cached.bbox_max, lattice.bbox_max);
    // Every vertex once, with all its attributes bit for bit.
    std::map<std::array<float, 3>, std::size_t> by_position;
    for (std::size_t v = 0; v < lattice.vertex_count(); ++v) {
      by_position[{lattice.positions[3 * v], lattice.positions[3 * v + 1],
                   lattice.positions[3 * v + 2]}] = v;
    }
    std::vector<std::size_t> to_lattice(cached.vertex_count());
    std::set<std::size_t> seen;
    for (std::size_t v = 0; v < cached.vertex_count(); ++v) {
      const auto it = by_position.find(
          {cached.positions[3 * v], cached.positions[3 * v + 1], cached.positions[3 * v + 2]});
      ASSERT_NE(it, by_position.end()) << "vertex " << v;
      const std::size_t u = it->second;
      to_lattice[v] = u;
      seen.insert(u);
      for (std::size_t c = 0; c < 3; ++c) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(cached.normals[3 * v + c]),
                  std::bit_cast<std::uint32_t>(lattice.normals[3 * u + c]));
      }
      for (std::size_t c = 0; c < 2; ++c) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(cached.uv_local[2 * v + c]),
                  std::bit_cast<std::uint32_t>(lattice.uv_local[2 * u + c]));
        ASSERT_EQ(std::bit_cast<std::uint32_t>(cached.uv_world[2 * v + c]),
                  std::bit_cast<std::uint32_t>(lattice.uv_world[2 * u + c]));
      }
    }
    EXPECT_EQ(seen.size(), lattice.vertex_count());
    // The same triangles, winding kept (each rotated to start at its smallest lattice index).
    const auto triangles = [](const Mesh& m, const auto& id) {
      std::vector<std::array<std::size_t, 3>> out;
      for (std::size_t k = 0; k < m.index_count(); k += 3) {
        std::array<std::size_t, 3> t{id(m.index(k)), id(m.index(k + 1)), id(m.index(k + 2))};
        std::rotate(t.begin(), std::min_element(t.begin(), t.end()), t.end());
        out.push_back(t);
      }
      std::sort(out.begin(), out.end());
      return out;
    };
    EXPECT_EQ(triangles(cached, [&](std::uint32_t v) { return to_lattice[v]; }),
              triangles(lattice, [](std::uint32_t v) { return std::size_t(v); }));
  }
}

// What the order is for: a post-transform cache (16-entry FIFO, meshoptimizer's model) misses
// no more often than after meshopt_optimizeVertexCache (Forsyth), and vertex fetch overfetches
// no more than after meshopt_optimizeVertexFetch. Measured: 0.574-0.581 misses per triangle
// against Forsyth's 0.625; overfetch 1.0000-1.0003, the same as meshoptimizer's.
TEST(RegionMesh, VertexCacheOrderIsAsGoodAsMeshoptimizer) {
  const Field2D map = test_map(301);
  for (const MeshRegion lattice_region :
       {MeshRegion{.cells_x = 300, .cells_z = 300},
        MeshRegion{.i0 = 5, .j0 = 3, .cells_x = 100, .cells_z = 200},
        MeshRegion{.cells_x = 256, .cells_z = 256, .lod = 1}}) {
    MeshRegion cache_region = lattice_region;
    cache_region.order = MeshOrder::vertex_cache;
    Mesh forsyth, cached;
    build_region_mesh(map, lattice_region, forsyth);
    optimize_mesh(forsyth);
    build_region_mesh(map, cache_region, cached);
    const auto analyse = [](const Mesh& m) {
      std::vector<std::uint32_t> idx(m.index_count());
      for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = m.index(k);
      const meshopt_VertexCacheStatistics cache =
          meshopt_analyzeVertexCache(idx.data(), idx.size(), m.vertex_count(), 16, 0, 0);
      const meshopt_VertexFetchStatistics fetch =
          meshopt_analyzeVertexFetch(idx.data(), idx.size(), m.vertex_count(), 12);
      return std::pair{cache.acmr, fetch.overfetch};
    };
    const auto [acmr_forsyth, overfetch_forsyth] = analyse(forsyth);
    const auto [acmr, overfetch] = analyse(cached);
    SCOPED_TRACE(std::to_string(lattice_region.cells_x) + " x " +
                 std::to_string(lattice_region.cells_z) + " cells");
    EXPECT_LE(acmr, acmr_forsyth);
    EXPECT_LE(overfetch, overfetch_forsyth);
  }
}

TEST_F(MeshFiles, GlbRoundTripThroughTinygltf) {
  const Field2D map = test_map(301);
  Mesh small, big;
  build_region_mesh(map, {.i0 = 10, .j0 = 20, .cells_x = 64, .cells_z = 32}, small);
  build_region_mesh(map, {.cells_x = 300, .cells_z = 300}, big);
  ASSERT_FALSE(small.uses_32bit_indices());
  ASSERT_TRUE(big.uses_32bit_indices());
  const GlbNode nodes[] = {{"small", &small}, {"big", &big}};
  const fs::path path = dir_ / "terrain.glb";
  write_glb(path, nodes);
  EXPECT_EQ(file_count(), 1u);  // no temporary left behind

  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&model, &err, &warn, path.string())) << err;
  EXPECT_TRUE(warn.empty()) << warn;
  EXPECT_EQ(model.asset.version, "2.0");
  ASSERT_EQ(model.nodes.size(), 2u);
  ASSERT_EQ(model.meshes.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const Mesh& m = *nodes[k].mesh;
    const tinygltf::Node& node = model.nodes[k];
    EXPECT_EQ(node.name, nodes[k].name);
    ASSERT_EQ(node.translation.size(), 3u);
    EXPECT_EQ(node.translation[0], m.origin_x_m);
    EXPECT_EQ(node.translation[2], m.origin_z_m);
    const tinygltf::Primitive& prim = model.meshes[std::size_t(node.mesh)].primitives.at(0);
    EXPECT_EQ(prim.mode, TINYGLTF_MODE_TRIANGLES);
    const auto bytes = [&](int accessor, std::size_t elem) {
      const tinygltf::Accessor& a = model.accessors[std::size_t(accessor)];
      const tinygltf::BufferView& v = model.bufferViews[std::size_t(a.bufferView)];
      EXPECT_EQ(v.byteOffset % 4, 0u);
      EXPECT_EQ(v.byteLength, a.count * elem);
      return std::vector<unsigned char>(
          model.buffers[0].data.begin() + std::ptrdiff_t(v.byteOffset + a.byteOffset),
          model.buffers[0].data.begin() + std::ptrdiff_t(v.byteOffset + a.byteOffset + a.count * elem));
    };
    const auto same = [](const std::vector<unsigned char>& b, const void* p, std::size_t n) {
      return b.size() == n && std::memcmp(b.data(), p, n) == 0;
    };
    const int pos = prim.attributes.at("POSITION");
    EXPECT_TRUE(same(bytes(pos, 12), m.positions.data(), m.positions.size() * 4));
    const tinygltf::Accessor& pa = model.accessors[std::size_t(pos)];
    ASSERT_EQ(pa.minValues.size(), 3u);
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_EQ(pa.minValues[c], double(m.bbox_min[c]));
      EXPECT_EQ(pa.maxValues[c], double(m.bbox_max[c]));
    }
    EXPECT_TRUE(same(bytes(prim.attributes.at("NORMAL"), 12), m.normals.data(), m.normals.size() * 4));
    EXPECT_TRUE(same(bytes(prim.attributes.at("TEXCOORD_0"), 8), m.uv_local.data(), m.uv_local.size() * 4));
    const tinygltf::Accessor& ia = model.accessors[std::size_t(prim.indices)];
    if (m.uses_32bit_indices()) {
      EXPECT_EQ(ia.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
      EXPECT_TRUE(same(bytes(prim.indices, 4), m.indices32.data(), m.indices32.size() * 4));
    } else {
      EXPECT_EQ(ia.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
      EXPECT_TRUE(same(bytes(prim.indices, 2), m.indices16.data(), m.indices16.size() * 2));
    }
  }
}

TEST_F(MeshFiles, GlbOver4GiBIsRefusedBeforeWriting) {
  const fs::path path = dir_ / "huge.glb";
  // A 16385^2 map at full resolution: 268 M vertices, 32 bytes each.
  const GlbMeshSize huge{16385ull * 16385ull, 16384ull * 16384ull * 6ull};
  EXPECT_GT(glb_size_bound({&huge, 1}), kMaxGlbBytes);
  try {
    check_glb_size(path, {&huge, 1});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::limit);
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path.string() + ": the GLB would need about ", 0), 0u) << msg;
    EXPECT_NE(msg.find("4 GiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--tiles N"), std::string::npos) << msg;
  }
  const GlbMeshSize fits{4097ull * 4097ull, 4096ull * 4096ull * 6ull};
  EXPECT_NO_THROW(check_glb_size(path, {&fits, 1}));
  EXPECT_EQ(file_count(), 0u);
  // The bound is exact for the binary part: a small file's size is within the JSON allowance.
  const Field2D map = test_map(17);
  Mesh m;
  build_region_mesh(map, {.cells_x = 16, .cells_z = 16}, m);
  const GlbNode node{"t", &m};
  write_glb(dir_ / "t.glb", {&node, 1});
  const GlbMeshSize s{m.vertex_count(), m.index_count()};
  EXPECT_LE(fs::file_size(dir_ / "t.glb"), glb_size_bound({&s, 1}));
  EXPECT_GT(fs::file_size(dir_ / "t.glb") + 5 * 1024, glb_size_bound({&s, 1}));
}

TEST_F(MeshFiles, ObjHasWorldPositionsUvsNormalsAndFaces) {
  const Field2D map = test_map(9);
  Mesh m;
  build_region_mesh(map, {.cells_x = 8, .cells_z = 8}, m);
  write_obj(dir_ / "t.obj", m, "tile");
  std::ifstream in(dir_ / "t.obj");
  std::string line;
  std::size_t v = 0, vt = 0, vn = 0, f = 0;
  double ox = NAN, oy = NAN, oz = NAN;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (tag == "#" && line.rfind("# origin_m ", 0) == 0) {
      std::string word;
      s >> word >> ox >> oy >> oz;
    } else if (tag == "v") {
      double x, y, z;
      s >> x >> y >> z;
      EXPECT_EQ((P3{ox + x, oy + y, oz + z}), world_pos(m, v));
      ++v;
    } else if (tag == "vt") {
      ++vt;
    } else if (tag == "vn") {
      ++vn;
    } else if (tag == "f") {
      std::string corner;
      for (int c = 0; c < 3; ++c) {
        s >> corner;
        const std::size_t idx = std::stoul(corner.substr(0, corner.find('/')));
        EXPECT_EQ(idx, std::size_t(m.index(3 * f + std::size_t(c))) + 1);
        EXPECT_EQ(corner, std::to_string(idx) + "/" + std::to_string(idx) + "/" + std::to_string(idx));
      }
      ++f;
    }
  }
  EXPECT_EQ(v, 81u);
  EXPECT_EQ(vt, 81u);
  EXPECT_EQ(vn, 81u);
  EXPECT_EQ(f, 128u);
}

// The OBJ text is formatted in blocks of 65,536 lines on several workers: a mesh of several
// blocks per section gives the same bytes on 1, 2 and 5 threads, and every line is there once,
// in order (the sections' block borders neither drop nor repeat a line).
TEST_F(MeshFiles, ObjIsTheSameBytesOnAnyThreadCount) {
  const Field2D map = test_map(301);
  Mesh m;
  build_region_mesh(map, {.cells_x = 300, .cells_z = 300, .order = MeshOrder::vertex_cache}, m);
  ASSERT_GT(m.vertex_count(), 65536u);          // two blocks of v, vt and vn lines
  ASSERT_GT(m.index_count() / 3, 2u * 65536u);  // three blocks of f lines
  const ObjOrigin origin{-512.0, 0.0, 256.0};
  std::vector<std::string> texts;
  for (const int threads : {1, 2, 5}) {
    const fs::path path = dir_ / ("t" + std::to_string(threads) + ".obj");
    write_obj(path, m, "tile", origin, ExecContext{.threads = threads});
    std::ifstream in(path, std::ios::binary);
    texts.push_back(std::string(std::istreambuf_iterator<char>(in), {}));
  }
  EXPECT_EQ(texts[1], texts[0]);
  EXPECT_EQ(texts[2], texts[0]);
  std::istringstream in(texts[2]);
  std::string line;
  const std::size_t nv = m.vertex_count(), nt = m.index_count() / 3;
  std::size_t k = 0;  // data lines read: v, then vt, then vn, then f
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 'o') continue;
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (k < nv) {
      ASSERT_EQ(tag, "v") << "line " << k;
      double x, y, z;
      s >> x >> y >> z;
      ASSERT_EQ((P3{origin.x_m + x, origin.y_m + y, origin.z_m + z}), world_pos(m, k));
    } else if (k < 3 * nv) {
      ASSERT_EQ(tag, k < 2 * nv ? "vt" : "vn") << "line " << k;
      float a, b;
      s >> a >> b;
      const std::size_t v = k % nv;
      ASSERT_EQ(a, k < 2 * nv ? m.uv_local[2 * v] : m.normals[3 * v]) << "line " << k;
    } else {
      ASSERT_EQ(tag, "f") << "line " << k;
      const std::size_t t = k - 3 * nv;
      for (std::size_t c = 0; c < 3; ++c) {
        std::string corner;
        s >> corner;
        const std::string idx = std::to_string(m.index(3 * t + c) + 1);
        ASSERT_EQ(corner, idx + "/" + idx + "/" + idx) << "triangle " << t;
      }
    }
    ++k;
  }
  EXPECT_EQ(k, 3 * nv + nt);
}

TEST_F(MeshFiles, ManifestListsTiles) {
  TileManifest man;
  man.tiles = 2;
  man.tile_cells_x = man.tile_cells_z = 64;
  man.spacing_m = 2.0;
  man.mesh_height_min_m = -3.5;
  man.mesh_height_max_m = 120.25;
  man.tile_files.push_back({1, 0, 128.0, 0.0, "t_x1_z0.glb", "glb", 10});
  write_tile_manifest(dir_ / "m.json", man);
  std::ifstream in(dir_ / "m.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["tiles"], 2);
  EXPECT_EQ(j["tile_size_x_m"], 128.0);
  EXPECT_EQ(j["mesh_height_max_m"], 120.25);
  EXPECT_FALSE(j.contains("height_max_m"));  // the sidecar's mapping range, not the data's
  EXPECT_EQ(j["tile_files"][0]["path"], "t_x1_z0.glb");
  EXPECT_EQ(j["tile_files"][0]["tx"], 1);
  EXPECT_EQ(j["tile_files"][0]["tile_origin_x_m"], 128.0);
}

TEST(RegionMesh, BadInputIsRejectedWithPreciseMessages) {
  const GridSpec g{.width = 1025, .height = 1025};
  EXPECT_EQ(error_of([&] { plan_tiles(g, 3, 0); }),
            "--tiles 3 does not divide the map: 1025 x 1025 samples are 1024 x 1024 cells, and "
            "the tile count per side must divide both (tiles share their border samples)");
  EXPECT_EQ(error_of([&] { plan_tiles(g, 0, 0); }).substr(0, 30), "--tiles 0 does not divide the ");
  EXPECT_EQ(error_of([&] { plan_tiles(g, 0, 0); }),
            "--tiles 0 does not divide the map: 1025 x 1025 samples are 1024 x 1024 cells, and "
            "the tile count per side must divide both (tiles share their border samples)");
  EXPECT_EQ(error_of([&] { plan_tiles(g, 4, 9); }),
            "--lod 9 is beyond the levels of a tile of 256 x 256 cells (allowed 0..8: a level-L "
            "mesh samples every 2^L cells, which must divide the tile)");
  EXPECT_NO_THROW(plan_tiles(g, 4, 8));
  const GridSpec odd{.width = 1000, .height = 1000};
  EXPECT_EQ(error_of([&] { plan_tiles(odd, 1, 1); }),
            "--lod 1 is beyond the levels of a tile of 999 x 999 cells (allowed 0..0: a level-L "
            "mesh samples every 2^L cells, which must divide the tile)");
  for (const double e : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity()}) {
    const std::string msg = error_of([&] { SimplifyParams{.max_error_m = e}.validate(); });
    EXPECT_NE(msg.find("it must be a finite number of metres > 0"), std::string::npos) << msg;
  }
  EXPECT_EQ(error_of([] { SimplifyParams{.max_error_m = 0.0}.validate(); }),
            "simplification error 0 m is invalid: it must be a finite number of metres > 0");
  const Field2D map = test_map(17);
  Mesh m;
  EXPECT_EQ(error_of([&] { build_region_mesh(map, {.i0 = 4, .cells_x = 16, .cells_z = 16}, m); }),
            "region (4, 0) + 16 x 16 cells does not lie within the map of 17 x 17 samples");
  EXPECT_EQ(error_of([&] { build_region_mesh(map, {.cells_x = 12, .cells_z = 16, .lod = 3}, m); }),
            "region (0, 0) + 12 x 16 cells is not a multiple of 2^lod = 8 cells (lod 3)");
}

}  // namespace
}  // namespace terrane
