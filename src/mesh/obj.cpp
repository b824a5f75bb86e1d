// Wavefront OBJ writer (positions in metres relative to a stated origin, UVs, normals, faces
// v/vt/vn, 1-based).
#include <charconv>
#include <cmath>
#include <string>

#include "terrane/io.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

template <typename T>
void put(std::string& out, T value) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, r.ptr);
}

}  // namespace

void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::string_view name) {
  write_obj(path, mesh, name, ObjOrigin{mesh.origin_x_m, mesh.origin_y_m, mesh.origin_z_m});
}

void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::string_view name,
               const ObjOrigin& origin) {
  if (!(std::isfinite(origin.x_m) && std::isfinite(origin.y_m) && std::isfinite(origin.z_m))) {
    throw Error(ErrorCategory::invalid_argument, path.string() + ": the OBJ origin must be finite");
  }
  mesh.validate(path.string() + ": mesh");
  if (mesh.index_count() == 0) {
    throw Error(ErrorCategory::invalid_argument, path.string() + ": the mesh has no triangles");
  }
  const std::size_t nv = mesh.vertex_count();
  std::string out;
  out.reserve(nv * 96 + mesh.index_count() * 12 + 256);
  out += "# terrane ";
  out += terrane_version();
  out += ": positions in metres relative to origin_m (world = v + origin_m), Y up\n";
  out += "# origin_m ";
  put(out, origin.x_m);
  out += ' ';
  put(out, origin.y_m);
  out += ' ';
  put(out, origin.z_m);
  out += "\no ";
  out += name;
  out += '\n';
  for (std::size_t v = 0; v < nv; ++v) {
    out += "v ";
    put(out, (mesh.origin_x_m - origin.x_m) + double(mesh.positions[3 * v]));
    out += ' ';
    put(out, (mesh.origin_y_m - origin.y_m) + double(mesh.positions[3 * v + 1]));
    out += ' ';
    put(out, (mesh.origin_z_m - origin.z_m) + double(mesh.positions[3 * v + 2]));
    out += '\n';
  }
  for (std::size_t v = 0; v < nv; ++v) {
    out += "vt ";
    put(out, mesh.uv_local[2 * v]);
    out += ' ';
    put(out, mesh.uv_local[2 * v + 1]);
    out += '\n';
  }
  for (std::size_t v = 0; v < nv; ++v) {
    out += "vn ";
    put(out, mesh.normals[3 * v]);
    out += ' ';
    put(out, mesh.normals[3 * v + 1]);
    out += ' ';
    put(out, mesh.normals[3 * v + 2]);
    out += '\n';
  }
  for (std::size_t k = 0; k < mesh.index_count(); k += 3) {
    out += 'f';
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint64_t i = std::uint64_t(mesh.index(k + c)) + 1;
      out += ' ';
      put(out, i);
      out += '/';
      put(out, i);
      out += '/';
      put(out, i);
    }
    out += '\n';
  }
  write_file_atomic(path, std::as_bytes(std::span<const char>(out.data(), out.size())));
}

}  // namespace terrane
