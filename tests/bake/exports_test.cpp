// Issue 12, defect 8: exports that were slightly wrong when checked in Blender, three.js and
// numpy. Each test reads back what a bake wrote, as an importer would, and asserts the property
// the README promises for it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/run_command.hpp"
#include "terrane/bake.hpp"
#include "terrane/io.hpp"
#include "terrane/surface.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

class ExportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("terrane_exports_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    small_ = root_ / "small.json";
    std::ofstream(small_) << test::kSmallPreset;
  }
  void TearDown() override { fs::remove_all(root_); }

  BakeReport run(BakeRequest r, const std::string& sub) {
    r.out_dir = root_ / sub;
    return bake(r);
  }

  fs::path root_, small_;
};

// Suites named after the exports they check (the regression tests of issue 12, defect 8).
class ScatterTest : public ExportsTest {};
class SimplifyTest : public ExportsTest {};
class ObjTest : public ExportsTest {};
class GlbTest : public ExportsTest {};
class EngineTargets : public ExportsTest {};
class ManifestTest : public ExportsTest {};

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// An OBJ as a float32 importer reads it: the stated origin (double) and the positions (float).
struct Obj {
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  std::vector<std::array<float, 3>> v;
  std::vector<std::array<std::size_t, 3>> f;
};

Obj read_obj(const fs::path& p) {
  Obj o;
  std::ifstream in(p);
  std::string line;
  bool has_origin = false;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (line.rfind("# origin_m ", 0) == 0) {
      std::string word;
      s >> word >> o.origin[0] >> o.origin[1] >> o.origin[2];
      has_origin = true;
    } else if (tag == "v") {
      std::array<float, 3> p3{};
      s >> p3[0] >> p3[1] >> p3[2];
      o.v.push_back(p3);
    } else if (tag == "f") {
      std::array<std::size_t, 3> t{};
      for (std::size_t& k : t) {
        std::string corner;
        s >> corner;
        k = std::stoul(corner.substr(0, corner.find('/'))) - 1;
      }
      o.f.push_back(t);
    }
  }
  EXPECT_TRUE(has_origin) << p;
  return o;
}

struct CsvPoint {
  double x = 0.0, y = 0.0, z = 0.0;
};

std::vector<CsvPoint> read_scatter_csv(const fs::path& p) {
  std::vector<CsvPoint> out;
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    CsvPoint q;
    char comma = 0;
    std::istringstream s(line);
    s >> q.x >> comma >> q.y >> comma >> q.z;
    out.push_back(q);
  }
  return out;
}

// The height of a level-0 OBJ mesh's surface under (x, z), world metres; NaN when no triangle
// holds it. Triangles are found through the lattice cell (spacing_m) their centroid lies in.
class ObjSurface {
 public:
  ObjSurface(Obj o, double spacing_m) : o_(std::move(o)), s_(spacing_m) {
    for (std::size_t k = 0; k < o_.f.size(); ++k) {
      double cx = 0.0, cz = 0.0;
      for (std::size_t c : o_.f[k]) {
        cx += o_.v[c][0] / 3.0;
        cz += o_.v[c][2] / 3.0;
      }
      cells_[{std::llround(std::floor(cx / s_)), std::llround(std::floor(cz / s_))}].push_back(k);
    }
  }
  double height(double x, double z) const {
    const double px = x - o_.origin[0], pz = z - o_.origin[2];
    const auto it = cells_.find({std::llround(std::floor(px / s_)), std::llround(std::floor(pz / s_))});
    if (it == cells_.end()) return NAN;
    for (std::size_t k : it->second) {
      const auto& t = o_.f[k];
      const auto& a = o_.v[t[0]];
      const auto& b = o_.v[t[1]];
      const auto& c = o_.v[t[2]];
      const double ax = double(b[0]) - a[0], az = double(b[2]) - a[2];
      const double bx = double(c[0]) - a[0], bz = double(c[2]) - a[2];
      const double qx = px - a[0], qz = pz - a[2];
      const double det = ax * bz - az * bx;
      const double l1 = (qx * bz - qz * bx) / det, l2 = (ax * qz - az * qx) / det;
      const double l0 = 1.0 - l1 - l2;
      if (l0 < -1e-9 || l1 < -1e-9 || l2 < -1e-9) continue;
      return o_.origin[1] + l0 * a[1] + l1 * b[1] + l2 * c[1];
    }
    return NAN;
  }

 private:
  Obj o_;
  double s_;
  std::map<std::pair<long long, long long>, std::vector<std::size_t>> cells_;
};

// 8a: scatter y was the bilinear height (up to 27 cm off the triangles). Now every point lies on
// the exported level-0 mesh, whole or tiled (each tile triangulated by its own radial rule).
TEST_F(ScatterTest, BakedHeightIsTheExactTriangleHeightOfTheExportedMesh) {
  for (int tiles : {1, 2}) {
    SCOPED_TRACE("tiles " + std::to_string(tiles));
    BakeRequest r;
    r.preset = "default";
    r.size = 65;
    r.cell_m = 2.0;
    r.origin_x_m = 1000.0;
    r.formats = parse_formats("obj,scatter");
    r.tiles = tiles;
    const std::string sub = "t" + std::to_string(tiles);
    run(r, sub);
    const nlohmann::json sidecar = read_json(root_ / sub / "default.json");
    const double s = sidecar["spacing_m"].get<double>();
    const double x_last = 1000.0 + 64.0 * s, z_last = 64.0 * s;
    std::vector<ObjSurface> meshes;
    for (int tz = 0; tz < tiles; ++tz) {
      for (int tx = 0; tx < tiles; ++tx) {
        const std::string stem =
            tiles == 1 ? "default" : "default_x" + std::to_string(tx) + "_z" + std::to_string(tz);
        meshes.emplace_back(read_obj(root_ / sub / (stem + ".obj")), s);
      }
    }
    const std::vector<CsvPoint> pts = read_scatter_csv(root_ / sub / "default_scatter.csv");
    double worst = 0.0;
    std::size_t on_mesh = 0;
    for (const CsvPoint& q : pts) {
      // The scatter region is the map's [first sample, last sample + one cell): points in that
      // last cell lie beyond the mesh.
      if (q.x > x_last || q.z > z_last) continue;
      double h = NAN;
      for (const ObjSurface& m : meshes) {
        h = m.height(q.x, q.z);
        if (!std::isnan(h)) break;
      }
      ASSERT_FALSE(std::isnan(h)) << q.x << ", " << q.z;
      worst = std::max(worst, std::abs(q.y - h));
      ++on_mesh;
    }
    EXPECT_GT(on_mesh, 100u);
    // The point and the mesh are the same double plane height rounded to float; what is left is
    // the OBJ's float32 vertex positions (a few ulps of a height of some hundred metres).
    EXPECT_LT(worst, 1e-3) << "largest |scatter y - mesh height| " << worst << " m";
  }
}

// 8b: simplified tiles had 3.8% vertical zero-footprint triangles. Every triangle of every
// simplified tile now covers XZ area, the tiles' footprints add up to the map's exactly once
// (no hole, no overlap), and the tiles still share their border vertices.
TEST_F(SimplifyTest, NoZeroFootprintTriangles) {
  BakeRequest r;
  r.preset = "alpine";
  r.size = 257;
  r.formats = parse_formats("obj");
  r.tiles = 4;
  r.simplify_error_m = 1.0;
  run(r, "s");
  const double spacing = read_json(root_ / "s" / "alpine.json")["spacing_m"].get<double>();
  std::size_t triangles = 0, flat = 0;
  for (int tz = 0; tz < 4; ++tz) {
    for (int tx = 0; tx < 4; ++tx) {
      const std::string stem = "alpine_x" + std::to_string(tx) + "_z" + std::to_string(tz);
      const Obj o = read_obj(root_ / "s" / (stem + ".obj"));
      double area = 0.0;
      for (const auto& t : o.f) {
        const auto& a = o.v[t[0]];
        const auto& b = o.v[t[1]];
        const auto& c = o.v[t[2]];
        const double f2 = (double(b[2]) - a[2]) * (double(c[0]) - a[0]) -
                          (double(b[0]) - a[0]) * (double(c[2]) - a[2]);
        // Lattice triangles: twice the footprint is a whole number of cells (counter-clockwise
        // seen from +Y is positive).
        if (!(f2 > 0.5 * spacing * spacing)) ++flat;
        area += 0.5 * f2;
      }
      triangles += o.f.size();
      const double side = 64.0 * spacing;
      EXPECT_NEAR(area, side * side, 1e-6 * side * side) << stem;
    }
  }
  EXPECT_GT(triangles, 100u);
  EXPECT_EQ(flat, 0u) << flat << " of " << triangles << " triangles have no XZ footprint";
}

// 8c: OBJ positions at 10^8 m were world coordinates, which float32 importers hold to 8 m. They
// are now relative to the stated origin (the sidecar's): read as float32 and added to the
// origin in double, every vertex is within a millimetre of the sample it comes from.
TEST_F(ObjTest, FarOriginKeepsMillimetres) {
  BakeRequest r;
  r.preset = small_.string();
  r.origin_x_m = 1.0e8;
  r.origin_z_m = -1.0e8 + 0.25;
  r.formats = parse_formats("obj,exr");
  run(r, "far");
  const Obj o = read_obj(root_ / "far" / "small.obj");
  const nlohmann::json sidecar = read_json(root_ / "far" / "small.json");
  EXPECT_EQ(o.origin[0], sidecar["origin_x_m"].get<double>());
  EXPECT_EQ(o.origin[2], sidecar["origin_z_m"].get<double>());
  EXPECT_EQ(o.origin[1], 0.0);
  const Field2D h = read_exr(root_ / "far" / "small.exr");
  const double s = sidecar["spacing_m"].get<double>();
  ASSERT_EQ(o.v.size(), h.data.size());
  std::set<std::pair<long long, long long>> seen;
  for (const auto& v : o.v) {
    const double x = o.origin[0] + double(v[0]), z = o.origin[2] + double(v[2]);
    const double fi = (x - r.origin_x_m.value()) / s, fj = (z - r.origin_z_m.value()) / s;
    const long long i = std::llround(fi), j = std::llround(fj);
    ASSERT_NEAR(fi * s, double(i) * s, 1e-3) << x;
    ASSERT_NEAR(fj * s, double(j) * s, 1e-3) << z;
    ASSERT_TRUE(i >= 0 && j >= 0 && i < h.grid.width && j < h.grid.height);
    EXPECT_NEAR(double(v[1]), double(h.at(int(i), int(j))), 1e-3);
    seen.insert({i, j});
  }
  EXPECT_EQ(seen.size(), h.data.size());  // 8 m steps would merge vertices
}

// 8c, GLB: positions are float32 relative to the node, the node translation is the tile origin
// in full double precision.
TEST_F(GlbTest, FarOriginKeepsMillimetres) {
  BakeRequest r;
  r.preset = small_.string();
  r.origin_x_m = 1.0e8 + 0.5;
  r.formats = parse_formats("glb");
  r.tiles = 2;
  run(r, "g");
  const nlohmann::json m = read_json(root_ / "g" / "small_tiles.json");
  for (const auto& f : m["tile_files"]) {
    std::ifstream in(root_ / "g" / f["path"].get<std::string>(), std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), {}};
    ASSERT_GT(bytes.size(), 20u);
    std::uint32_t json_len = 0;
    std::memcpy(&json_len, bytes.data() + 12, 4);
    const nlohmann::json gltf = nlohmann::json::parse(bytes.substr(20, json_len));
    const auto& t = gltf["nodes"][0]["translation"];
    EXPECT_EQ(t[0].get<double>(), f["tile_origin_x_m"].get<double>());
    EXPECT_EQ(t[2].get<double>(), f["tile_origin_z_m"].get<double>());
    // POSITION max in x: the tile's extent, not a world coordinate.
    const auto& acc = gltf["accessors"][gltf["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
                                            .get<int>()];
    EXPECT_LE(acc["max"][0].get<double>(), m["tile_size_x_m"].get<double>());
  }
  EXPECT_EQ(m["tile_files"][1]["tile_origin_x_m"].get<double>(), 1.0e8 + 0.5 + 64.0);
}

// PNG width and height from the IHDR chunk.
std::array<std::uint32_t, 2> png_size(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char b[24] = {};
  in.read(reinterpret_cast<char*>(b), 24);
  const auto be = [&](int k) {
    return std::uint32_t(b[k]) << 24 | std::uint32_t(b[k + 1]) << 16 |
           std::uint32_t(b[k + 2]) << 8 | std::uint32_t(b[k + 3]);
  };
  return {be(16), be(20)};
}

// 8d: Unity's alphamap resolution is a power of two; the control maps were 2^n + 1. With
// --engine unity they have one texel per heightmap cell (2^n), and the import settings say so.
TEST_F(EngineTargets, UnitySplatIsPowerOfTwo) {
  const fs::path dir = root_ / "unity";
  BakeRequest r;
  r.preset = "default";
  r.size = 100;  // snapped to 129
  r.formats = parse_formats("splat");
  r.engine = Engine::unity;
  r.out_dir = dir;
  const BakeReport report = bake(r);
  EXPECT_EQ(report.grid.width, 129);
  const auto size = png_size(dir / "default_splat0.png");
  EXPECT_EQ(size[0], 128u);
  EXPECT_EQ(size[1], 128u);
  EXPECT_EQ(read_json(dir / "default_unity.json")["alphamap_resolution"], 128);
}

// 8d, the resampling: each texel is its cell's mean, and the weights of a texel sum to 1.
TEST_F(EngineTargets, UnitySplatTexelsAreCellMeansSummingToOne) {
  SplatMap in;
  in.grid = GridSpec{.width = 5, .height = 4, .spacing_m = 2.0};
  in.layer_count = 3;
  in.weights.resize(in.grid.sample_count() * 3);
  for (std::size_t c = 0; c < in.grid.sample_count(); ++c) {
    const float a = float(c % 7) / 7.0f, b = float(c % 3) / 5.0f;
    in.weights[c] = a * 0.5f;
    in.weights[in.grid.sample_count() + c] = b;
    in.weights[2 * in.grid.sample_count() + c] = 1.0f - a * 0.5f - b;
  }
  SplatMap out;
  splat_cell_average(in, 0, 0, 4, 3, out);
  ASSERT_EQ(out.grid.width, 4);
  ASSERT_EQ(out.grid.height, 3);
  EXPECT_EQ(out.grid.origin_x_m, 1.0);
  for (std::size_t c = 0; c < out.grid.sample_count(); ++c) {
    const std::size_t i = c % 4, j = c / 4, c00 = j * 5 + i;
    float sum = 0.0f;
    for (int l = 0; l < 3; ++l) {
      const double mean = 0.25 * (double(in.weight(l, c00)) + in.weight(l, c00 + 1) +
                                  in.weight(l, c00 + 5) + in.weight(l, c00 + 6));
      EXPECT_NEAR(out.weight(l, c), mean, 1e-6);
      sum += out.weight(l, c);
    }
    EXPECT_EQ(sum, 1.0f) << c;
  }
  std::vector<std::uint8_t> q;
  splat_to_u8(out, q);
  for (std::size_t c = 0; c < out.grid.sample_count(); ++c) {
    EXPECT_EQ(int(q[3 * c]) + q[3 * c + 1] + q[3 * c + 2], 255);
  }
  EXPECT_THROW(splat_cell_average(in, 1, 0, 4, 3, out), Error);
}

// 8e: the Unreal PNG used values 32768 +- reach, half its range for all-positive heights. It now
// spans the preset's height range over 0..65535 (the png16 samples bit for bit), and the import
// settings' Z scale and location map every value back to its height.
TEST_F(EngineTargets, UnrealPngUsesTheFullRange) {
  BakeRequest r;
  r.preset = small_.string();
  r.overrides = {"world.height_min_m=20", "world.height_max_m=300"};  // all positive
  r.formats = parse_formats("png16,exr");
  r.engine = Engine::unreal;
  run(r, "ue");
  const Image16 ue = read_png16(root_ / "ue" / "small_unreal.png");
  const Image16 png = read_png16(root_ / "ue" / "small.png");
  EXPECT_EQ(ue.samples, png.samples);
  const nlohmann::json s = read_json(root_ / "ue" / "small_unreal.json");
  const double z_scale = s["scale_z_percent"].get<double>();
  const double loc_cm = s["location_z_cm"].get<double>();
  EXPECT_EQ(z_scale, 280.0 * 12800.0 / 65535.0);
  // Unreal: z_cm = location_z_cm + (v - 32768) / 128 * z_scale.
  const auto unreal_m = [&](double v) { return (loc_cm + (v - 32768.0) / 128.0 * z_scale) / 100.0; };
  EXPECT_NEAR(unreal_m(0.0), 20.0, 1e-9);
  EXPECT_NEAR(unreal_m(65535.0), 300.0, 1e-9);
  const Field2D h = read_exr(root_ / "ue" / "small.exr");
  const double step = 280.0 / 65535.0;
  std::uint16_t lo = 65535, hi = 0;
  for (std::size_t k = 0; k < h.data.size(); ++k) {
    EXPECT_LE(std::abs(unreal_m(ue.samples[k]) - double(h.data[k])), 0.5 * step + 1e-9) << k;
    lo = std::min(lo, ue.samples[k]);
    hi = std::max(hi, ue.samples[k]);
  }
  EXPECT_LT(lo, 32768);  // below the midpoint: the whole range is in use
}

// 8f: NAME_tiles.json used origin_x_m for tiles' origins and height_min_m / height_max_m for
// the data's extremes, where the sidecar means the map's origin and the mapping range. Every key
// the manifest shares with the sidecar now holds the same value.
TEST_F(ManifestTest, KeysDoNotReuseSidecarNames) {
  BakeRequest r;
  r.preset = small_.string();
  r.origin_x_m = 300.0;
  r.origin_z_m = -40.0;
  r.formats = parse_formats("glb,obj");
  r.tiles = 2;
  run(r, "m");
  const nlohmann::json sidecar = read_json(root_ / "m" / "small.json");
  const nlohmann::json manifest = read_json(root_ / "m" / "small_tiles.json");
  std::size_t shared = 0;
  for (const auto& [key, value] : manifest.items()) {
    if (!sidecar.contains(key)) continue;
    EXPECT_EQ(value, sidecar[key]) << key << " means something else in the sidecar";
    ++shared;
  }
  EXPECT_GE(shared, 3u);  // spacing_m, origin_x_m, origin_z_m, terrane_version
  ASSERT_EQ(manifest["tile_files"].size(), 8u);
  for (const auto& f : manifest["tile_files"]) {
    for (const auto& [key, value] : f.items()) {
      EXPECT_FALSE(sidecar.contains(key)) << "tile key " << key << " is a sidecar key";
    }
    bool listed = false;  // path and format as the sidecar's files list has them
    for (const auto& g : sidecar["files"]) {
      listed = listed || (g["path"] == f["path"] && g["format"] == f["format"]);
    }
    EXPECT_TRUE(listed) << f["path"];
  }
  EXPECT_EQ(manifest["tile_files"][2]["path"], "small_x1_z0.glb");
  EXPECT_EQ(manifest["tile_files"][2]["tile_origin_x_m"].get<double>(), 300.0 + 64.0);
  EXPECT_LE(manifest["mesh_height_min_m"].get<double>(), manifest["mesh_height_max_m"].get<double>());
}

}  // namespace
}  // namespace terrane
