// The .navtiles container and the navmesh OBJ of `terrane nav` (nav_files.hpp, docs/NAV.md).
#include "nav_files.hpp"

#include <recastnavigation/DetourNavMesh.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

namespace terrane::cli {
namespace {

// Little-endian whatever the host: the format is defined byte by byte.
void put_u64(std::vector<std::byte>& out, std::uint64_t v, int bytes = 8) {
  for (int k = 0; k < bytes; ++k) out.push_back(std::byte((v >> (8 * k)) & 0xFF));
}
void put_u32(std::vector<std::byte>& out, std::uint32_t v) {
  put_u64(out, v, 4);
}
void put_i64(std::vector<std::byte>& out, std::int64_t v) {
  put_u64(out, std::uint64_t(v));
}
void put_f64(std::vector<std::byte>& out, double v) {
  put_u64(out, std::bit_cast<std::uint64_t>(v));
}

struct NavMeshDeleter {
  void operator()(dtNavMesh* m) const { dtFreeNavMesh(m); }
};

// Shortest text that reads back as the same float.
void append_float(std::string& s, float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

// Area of the convex polygon (x, z pairs) clipped to [x0, x1] x [z0, z1] (Sutherland-Hodgman,
// one box side at a time).
double clipped_area(std::vector<std::array<double, 2>> poly, double x0, double z0, double x1,
                    double z1) {
  std::vector<std::array<double, 2>> next;
  const auto clip = [&](int axis, double bound, bool keep_above) {
    next.clear();
    const auto inside = [&](const std::array<double, 2>& p) {
      return keep_above ? p[std::size_t(axis)] >= bound : p[std::size_t(axis)] <= bound;
    };
    for (std::size_t k = 0; k < poly.size(); ++k) {
      const auto& a = poly[k];
      const auto& b = poly[(k + 1) % poly.size()];
      const bool ia = inside(a), ib = inside(b);
      if (ia) next.push_back(a);
      if (ia != ib) {
        const double t =
            (bound - a[std::size_t(axis)]) / (b[std::size_t(axis)] - a[std::size_t(axis)]);
        next.push_back({a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])});
      }
    }
    poly.swap(next);
  };
  clip(0, x0, true);
  clip(0, x1, false);
  clip(1, z0, true);
  clip(1, z1, false);
  double twice = 0.0;
  for (std::size_t k = 0; k < poly.size(); ++k) {
    const auto& a = poly[k];
    const auto& b = poly[(k + 1) % poly.size()];
    twice += a[0] * b[1] - b[0] * a[1];
  }
  return std::abs(twice) * 0.5;
}

}  // namespace

std::vector<std::byte> encode_navtiles(const NavTilesHeader& h,
                                       std::span<const NavTile* const> tiles) {
  std::size_t total = 128 + h.agent.name.size();
  for (const NavTile* t : tiles) total += 24 + t->data.size();
  std::vector<std::byte> out;
  out.reserve(total);
  for (char c : kNavTilesMagic) out.push_back(std::byte(c));
  put_u32(out, kNavTilesVersion);
  put_u32(out, std::uint32_t(h.tile_cells));
  put_f64(out, h.tile_size_m);
  put_f64(out, h.cell_size_m);
  put_f64(out, h.cell_height_m);
  put_i64(out, h.origin.tx);
  put_i64(out, h.origin.tz);
  put_f64(out, h.origin_x_m);
  put_f64(out, h.origin_z_m);
  put_f64(out, h.agent.radius_m);
  put_f64(out, h.agent.height_m);
  put_f64(out, h.agent.max_climb_m);
  put_f64(out, h.agent.max_slope_deg);
  put_f64(out, h.agent.max_drop_m);
  put_u32(out, std::uint32_t(h.agent.name.size()));
  for (char c : h.agent.name) out.push_back(std::byte(c));
  put_u64(out, tiles.size());
  for (const NavTile* t : tiles) {
    put_i64(out, t->key.tx);
    put_i64(out, t->key.tz);
    put_u64(out, t->data.size());
    const auto* bytes = reinterpret_cast<const std::byte*>(t->data.data());
    out.insert(out.end(), bytes, bytes + t->data.size());
  }
  return out;
}

std::string navmesh_obj(const NavTilesHeader& h, std::span<const NavTile* const> tiles,
                        const std::array<double, 4>& box, NavMeshSummary& summary) {
  summary = NavMeshSummary{};
  // Detour writes links into the data it is given: it gets copies, which outlive the mesh.
  std::vector<std::vector<unsigned char>> copies;
  copies.reserve(tiles.size());
  std::unique_ptr<dtNavMesh, NavMeshDeleter> mesh(dtAllocNavMesh());
  dtNavMeshParams mp{};
  mp.tileWidth = float(h.tile_size_m);
  mp.tileHeight = float(h.tile_size_m);
  mp.maxTiles = int(std::bit_ceil(std::max<std::size_t>(tiles.size(), 1)));
  mp.maxPolys = kNavMaxPolysPerTile;
  if (!mesh || dtStatusFailed(mesh->init(&mp))) {
    throw Error(ErrorCategory::internal, "nav OBJ: dtNavMesh::init failed");
  }
  for (const NavTile* t : tiles) {
    if (t->data.empty()) continue;
    copies.emplace_back(t->data.begin(), t->data.end());
    std::vector<unsigned char>& d = copies.back();
    if (dtStatusFailed(mesh->addTile(d.data(), int(d.size()), 0, 0, nullptr))) {
      throw Error(ErrorCategory::internal, "nav OBJ: Detour refused tile (" +
                                               std::to_string(t->key.tx) + ", " +
                                               std::to_string(t->key.tz) + ")");
    }
  }

  std::string obj;
  obj += "# terrane nav: navmesh polygons of agent '" + h.agent.name + "'\n";
  obj += "# coordinates are world minus the navmesh origin; origin_m ";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.17g 0 %.17g (tile %lld %lld)\n", h.origin_x_m, h.origin_z_m,
                static_cast<long long>(h.origin.tx), static_cast<long long>(h.origin.tz));
  obj += buf;
  obj += "# one object per tile; faces: polygons; lines: one-way drop links (start -> end)\n";
  const double bx0 = box[0] - h.origin_x_m, bx1 = box[2] - h.origin_x_m;
  const double bz0 = box[1] - h.origin_z_m, bz1 = box[3] - h.origin_z_m;
  std::size_t base = 1;  // OBJ indices are 1-based and global
  std::vector<std::array<double, 2>> poly;
  for (const NavTile* t : tiles) {
    if (t->data.empty()) continue;
    const dtNavMesh& m = *mesh;
    const dtMeshTile* tile =
        m.getTileAt(int(t->key.tx - h.origin.tx), int(t->key.tz - h.origin.tz), 0);
    if (tile == nullptr || tile->header == nullptr) {
      throw Error(ErrorCategory::internal, "nav OBJ: tile (" + std::to_string(t->key.tx) + ", " +
                                               std::to_string(t->key.tz) + ") is not in the mesh");
    }
    const dtMeshHeader& th = *tile->header;
    obj += "o tile_" + std::to_string(t->key.tx) + "_" + std::to_string(t->key.tz) + "\n";
    for (int v = 0; v < th.vertCount; ++v) {
      const float* p = &tile->verts[v * 3];
      obj += "v ";
      append_float(obj, p[0]);
      obj += ' ';
      append_float(obj, p[1]);
      obj += ' ';
      append_float(obj, p[2]);
      obj += '\n';
    }
    for (int k = 0; k < th.polyCount; ++k) {
      const dtPoly& p = tile->polys[k];
      const bool link = p.getType() == DT_POLYTYPE_OFFMESH_CONNECTION;
      obj += link ? "l" : "f";
      for (int v = 0; v < p.vertCount; ++v) obj += ' ' + std::to_string(base + p.verts[v]);
      obj += '\n';
      if (link) {
        ++summary.off_mesh_links;
        continue;
      }
      ++summary.polygons;
      poly.clear();
      for (int v = 0; v < p.vertCount; ++v) {
        const float* q = &tile->verts[p.verts[v] * 3];
        poly.push_back({double(q[0]), double(q[2])});
      }
      const double inf = 1e300;
      summary.area_m2 += clipped_area(poly, -inf, -inf, inf, inf);
      const unsigned area = p.getArea();
      if (area < unsigned(kNavAreaCount)) {
        summary.area_in_box_m2[area] += clipped_area(poly, bx0, bz0, bx1, bz1);
      }
    }
    summary.vertices += std::size_t(th.vertCount);
    base += std::size_t(th.vertCount);
  }
  return obj;
}

}  // namespace terrane::cli
