// Wavefront OBJ writer (positions in metres relative to a stated origin, UVs, normals, faces
// v/vt/vn, 1-based), formatted in parallel blocks and streamed to the file.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/io.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

// Lines per block of the parallel formatting: about 2-4 MB of text.
constexpr std::size_t kBlockLines = std::size_t(1) << 16;

template <typename T>
void put(std::string& out, T value) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, r.ptr);
}

// `tag`, then each value after a space ("vt 0.5 0.25"; the caller ends the line).
template <typename... T>
void put_numbers(std::string& out, std::string_view tag, T... values) {
  out += tag;
  ((out += ' ', put(out, values)), ...);
}

}  // namespace

void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::string_view name) {
  write_obj(path, mesh, name, ObjOrigin{mesh.origin_x_m, mesh.origin_y_m, mesh.origin_z_m}, {});
}

void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::string_view name,
               const ObjOrigin& origin, const ExecContext& ctx) {
  if (!(std::isfinite(origin.x_m) && std::isfinite(origin.y_m) && std::isfinite(origin.z_m))) {
    throw Error(ErrorCategory::invalid_argument, path.string() + ": the OBJ origin must be finite");
  }
  mesh.validate(path.string() + ": mesh");
  if (mesh.index_count() == 0) {
    throw Error(ErrorCategory::invalid_argument, path.string() + ": the mesh has no triangles");
  }
  std::string head;
  head += "# terrane ";
  head += terrane_version();
  head += ": positions in metres relative to origin_m (world = v + origin_m), Y up\n";
  head += "# origin_m ";
  put(head, origin.x_m);
  head += ' ';
  put(head, origin.y_m);
  head += ' ';
  put(head, origin.z_m);
  head += "\no ";
  head += name;
  head += '\n';

  // The lines after the head: the v, vt and vn lines of every vertex, then an f line per
  // triangle, formatted in blocks of kBlockLines lines. A round of blocks is formatted in
  // parallel, each block into its own buffer, while the previous round's buffers are written in
  // order by one more task: the bytes do not depend on the thread count, and two rounds' text
  // is held at a time.
  const std::size_t nv = mesh.vertex_count(), nt = mesh.index_count() / 3;
  const double dx = mesh.origin_x_m - origin.x_m, dy = mesh.origin_y_m - origin.y_m,
               dz = mesh.origin_z_m - origin.z_m;
  const auto format_line = [&](int section, std::size_t k, std::string& out) {
    switch (section) {
      case 0:
        put_numbers(out, "v", dx + double(mesh.positions[3 * k]),
                    dy + double(mesh.positions[3 * k + 1]), dz + double(mesh.positions[3 * k + 2]));
        break;
      case 1:
        put_numbers(out, "vt", mesh.uv_local[2 * k], mesh.uv_local[2 * k + 1]);
        break;
      case 2:
        put_numbers(out, "vn", mesh.normals[3 * k], mesh.normals[3 * k + 1],
                    mesh.normals[3 * k + 2]);
        break;
      default:
        out += 'f';
        for (std::size_t c = 0; c < 3; ++c) {
          const std::uint64_t i = std::uint64_t(mesh.index(3 * k + c)) + 1;
          out += ' ';
          put(out, i);
          out += '/';
          put(out, i);
          out += '/';
          put(out, i);
        }
    }
    out += '\n';
  };
  struct Block {
    int section;
    std::size_t begin, end;
  };
  std::vector<Block> blocks;
  const std::size_t lines[4] = {nv, nv, nv, nt};
  for (int section = 0; section < 4; ++section) {
    for (std::size_t b = 0; b < lines[section]; b += kBlockLines) {
      blocks.push_back({section, b, std::min(lines[section], b + kBlockLines)});
    }
  }
  ExecContext workers = ctx;  // its threads and cancel flag; fractions of rounds are no progress
  workers.progress = nullptr;
  const std::size_t round = 2 * std::size_t(worker_count(ctx));
  std::vector<std::string> text(2 * round);  // two rounds' buffers
  write_file_atomic(path, [&](int fd) {
    const auto write_text = [&](const std::string& t) {
      write_to_descriptor(fd, path, std::as_bytes(std::span<const char>(t.data(), t.size())));
    };
    write_text(head);
    std::size_t unwritten_from = 0, unwritten = 0;  // the previous round's buffers
    for (std::size_t first = 0, r = 0; first < blocks.size() || unwritten > 0;
         first += round, ++r) {
      const std::size_t count = first < blocks.size() ? std::min(round, blocks.size() - first) : 0;
      const std::size_t into = (r % 2) * round;
      const auto task = [&](std::size_t j) {
        if (j == count) {  // the extra task
          for (std::size_t u = 0; u < unwritten; ++u) write_text(text[unwritten_from + u]);
          return;
        }
        const Block& block = blocks[first + j];
        std::string& out = text[into + j];
        out.clear();
        for (std::size_t k = block.begin; k < block.end; ++k) format_line(block.section, k, out);
      };
      parallel_for(workers, std::int64_t(count + (unwritten > 0 ? 1 : 0)), 1,
                   [&](std::int64_t b, std::int64_t e) {
                     for (std::int64_t j = b; j < e; ++j) task(std::size_t(j));
                   });
      unwritten_from = into;
      unwritten = count;
    }
  });
}

}  // namespace terrane
