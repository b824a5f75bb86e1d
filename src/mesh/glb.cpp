// glTF 2.0 binary (.glb) writer, following the Khronos glTF 2.0 specification (§4.4 "GLB File
// Format Specification"): a 12-byte header, a JSON chunk padded with spaces and a BIN chunk
// padded with zeros, both to 4 bytes. One buffer (the BIN chunk), one buffer view per attribute
// and index array (4-byte aligned), one accessor per view. Vertex colours are COLOR_0 as
// normalized unsigned short VEC4 (§3.7.2.1 "Meshes Overview": linear RGBA).
#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "terrane/io.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kJsonBoundPerNode = 4096;
constexpr std::uint64_t kJsonBoundFixed = 1024;
constexpr int kArrayBuffer = 34962;
constexpr int kElementArrayBuffer = 34963;
constexpr int kFloat = 5126;
constexpr int kUnsignedShort = 5123;
constexpr int kUnsignedInt = 5125;

std::uint64_t pad4(std::uint64_t n) {
  return (n + 3) & ~std::uint64_t(3);
}

std::uint64_t index_bytes(std::uint64_t vertices, std::uint64_t indices) {
  return indices * (vertices <= 65535 ? 2 : 4);
}

std::uint64_t bin_bytes(const GlbMeshSize& m) {
  return pad4(m.vertices * 12) * 2 + pad4(m.vertices * 8) + (m.colours ? m.vertices * 8 : 0) +
         pad4(index_bytes(m.vertices, m.indices));
}

const char* material_name(GlbMaterial m) {
  return m == GlbMaterial::matte_blend ? "matte_blend" : "matte";
}

void put_u32(std::vector<std::byte>& out, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out[at + std::size_t(k)] = std::byte((v >> (8 * k)) & 0xFF);
}

}  // namespace

std::uint64_t glb_size_bound(std::span<const GlbMeshSize> meshes) {
  std::uint64_t total = 12 + 8 + kJsonBoundFixed + 8;
  for (const GlbMeshSize& m : meshes) total += kJsonBoundPerNode + bin_bytes(m);
  return total;
}

void check_glb_size(const fs::path& path, std::span<const GlbMeshSize> meshes) {
  const std::uint64_t size = glb_size_bound(meshes);
  if (size > kMaxGlbBytes) {
    throw Error(ErrorCategory::limit,
                path.string() + ": the GLB would need about " + std::to_string(size) +
                    " bytes, more than the format's limit of " + std::to_string(kMaxGlbBytes) +
                    " bytes (4 GiB, its length fields are 32-bit); split the map with --tiles N, "
                    "raise --lod or use --simplify-error");
  }
}

void write_glb(const fs::path& path, std::span<const GlbNode> nodes) {
  if (nodes.empty()) {
    throw Error(ErrorCategory::invalid_argument, path.string() + ": no meshes to write");
  }
  std::vector<GlbMeshSize> sizes;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Mesh* m = nodes[k].mesh;
    if (m == nullptr) {
      throw Error(ErrorCategory::invalid_argument,
                  path.string() + ": node " + std::to_string(k) + " has no mesh");
    }
    m->validate(path.string() + ": mesh '" + nodes[k].name + "'");
    if (m->index_count() == 0) {
      throw Error(ErrorCategory::invalid_argument,
                  path.string() + ": mesh '" + nodes[k].name + "' has no triangles");
    }
    if (!m->colours.empty() && m->colours.size() != 4 * m->vertex_count()) {
      throw Error(ErrorCategory::invalid_argument,
                  path.string() + ": mesh '" + nodes[k].name + "' has " +
                      std::to_string(m->colours.size()) + " colour values for " +
                      std::to_string(m->vertex_count()) + " vertices (expected 0 or " +
                      std::to_string(4 * m->vertex_count()) + ")");
    }
    sizes.push_back({m->vertex_count(), m->index_count(), !m->colours.empty()});
  }
  check_glb_size(path, sizes);

  std::uint64_t bin_size = 0;
  for (const GlbMeshSize& s : sizes) bin_size += bin_bytes(s);
  // The binary chunk is written straight from the meshes' arrays (each view padded to 4 bytes
  // with zeros): no copy of it is made.
  static constexpr std::byte kZeros[4] = {};
  std::vector<std::span<const std::byte>> bin;
  json views = json::array(), accessors = json::array(), meshes = json::array(),
       gnodes = json::array(), scene_nodes = json::array(), materials = json::array();
  int material_index[3] = {-1, -1, -1};  // by GlbMaterial
  std::uint64_t offset = 0;
  const auto add_view = [&](const void* data, std::uint64_t bytes, int target) {
    bin.emplace_back(static_cast<const std::byte*>(data), std::size_t(bytes));
    if (pad4(bytes) != bytes) bin.emplace_back(kZeros, std::size_t(pad4(bytes) - bytes));
    views.push_back(
        {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}, {"target", target}});
    offset += pad4(bytes);
    return views.size() - 1;
  };
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Mesh& m = *nodes[k].mesh;
    const std::size_t nv = m.vertex_count();
    std::array<float, 3> lo{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::max()};
    std::array<float, 3> hi{-lo[0], -lo[1], -lo[2]};
    for (std::size_t v = 0; v < nv; ++v) {
      for (std::size_t c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], m.positions[3 * v + c]);
        hi[c] = std::max(hi[c], m.positions[3 * v + c]);
      }
    }
    json attributes;
    auto vp = add_view(m.positions.data(), nv * 12, kArrayBuffer);
    accessors.push_back({{"bufferView", vp},
                         {"componentType", kFloat},
                         {"count", nv},
                         {"type", "VEC3"},
                         {"min", {lo[0], lo[1], lo[2]}},
                         {"max", {hi[0], hi[1], hi[2]}}});
    attributes["POSITION"] = accessors.size() - 1;
    auto vn = add_view(m.normals.data(), nv * 12, kArrayBuffer);
    accessors.push_back(
        {{"bufferView", vn}, {"componentType", kFloat}, {"count", nv}, {"type", "VEC3"}});
    attributes["NORMAL"] = accessors.size() - 1;
    auto vt = add_view(m.uv_local.data(), nv * 8, kArrayBuffer);
    accessors.push_back(
        {{"bufferView", vt}, {"componentType", kFloat}, {"count", nv}, {"type", "VEC2"}});
    attributes["TEXCOORD_0"] = accessors.size() - 1;
    if (!m.colours.empty()) {
      auto vc = add_view(m.colours.data(), nv * 8, kArrayBuffer);
      accessors.push_back({{"bufferView", vc},
                           {"componentType", kUnsignedShort},
                           {"normalized", true},
                           {"count", nv},
                           {"type", "VEC4"}});
      attributes["COLOR_0"] = accessors.size() - 1;
    }
    const bool wide = m.uses_32bit_indices();
    const std::size_t ni = m.index_count();
    auto vi = wide ? add_view(m.indices32.data(), ni * 4, kElementArrayBuffer)
                   : add_view(m.indices16.data(), ni * 2, kElementArrayBuffer);
    accessors.push_back({{"bufferView", vi},
                         {"componentType", wide ? kUnsignedInt : kUnsignedShort},
                         {"count", ni},
                         {"type", "SCALAR"}});
    const std::size_t ia = accessors.size() - 1;
    json primitive = {{"attributes", attributes}, {"indices", ia}, {"mode", 4}};
    const GlbMaterial mat = nodes[k].material;
    if (mat != GlbMaterial::none) {
      int& index = material_index[int(mat)];
      if (index < 0) {
        json material = {
            {"name", material_name(mat)},
            {"pbrMetallicRoughness", {{"metallicFactor", 0.0}, {"roughnessFactor", 1.0}}}};
        if (mat == GlbMaterial::matte_blend) {
          material["alphaMode"] = "BLEND";
          material["doubleSided"] = true;
        }
        index = int(materials.size());
        materials.push_back(material);
      }
      primitive["material"] = index;
    }
    meshes.push_back({{"name", nodes[k].name}, {"primitives", json::array({primitive})}});
    json node = {{"name", nodes[k].name}, {"mesh", k}};
    if (m.origin_x_m != 0.0 || m.origin_y_m != 0.0 || m.origin_z_m != 0.0) {
      node["translation"] = {m.origin_x_m, m.origin_y_m, m.origin_z_m};
    }
    gnodes.push_back(node);
    scene_nodes.push_back(k);
  }
  json doc = {
      {"asset", {{"version", "2.0"}, {"generator", std::string("terrane ") + terrane_version()}}},
      {"scene", 0},
      {"scenes", json::array({{{"nodes", scene_nodes}}})},
      {"nodes", gnodes},
      {"meshes", meshes},
      {"accessors", accessors},
      {"bufferViews", views},
      {"buffers", json::array({{{"byteLength", bin_size}}})},
  };
  if (!materials.empty()) doc["materials"] = materials;
  std::string text = doc.dump();
  text.resize(std::size_t(pad4(text.size())), ' ');
  const std::uint64_t total = 12 + 8 + text.size() + 8 + bin_size;
  if (total > kMaxGlbBytes) {  // the JSON bound makes this unreachable; kept as a guard
    check_glb_size(path, std::vector<GlbMeshSize>(1, {kMaxGlbBytes, kMaxGlbBytes}));
  }
  if (offset != bin_size) {
    throw Error(ErrorCategory::internal, path.string() + ": GLB views do not fill the buffer");
  }
  std::vector<std::byte> head(20 + text.size() + 8, std::byte{0});
  put_u32(head, 0, 0x46546C67u);  // "glTF"
  put_u32(head, 4, 2);
  put_u32(head, 8, std::uint32_t(total));
  put_u32(head, 12, std::uint32_t(text.size()));
  put_u32(head, 16, 0x4E4F534Au);  // "JSON"
  std::memcpy(head.data() + 20, text.data(), text.size());
  const std::size_t bin_header = 20 + text.size();
  put_u32(head, bin_header, std::uint32_t(bin_size));
  put_u32(head, bin_header + 4, 0x004E4942u);  // "BIN\0"
  bin.insert(bin.begin(), std::span<const std::byte>(head));
  write_file_atomic(path, std::span<const std::span<const std::byte>>(bin));
}

}  // namespace terrane
