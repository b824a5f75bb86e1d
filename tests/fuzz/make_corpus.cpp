// Writes the seed corpora of the fuzz targets: small valid files from terrane's own writers plus
// a few hand-made edge cases (a header larger than its file, other types, truncations). Usage:
//   fuzz_make_corpus <dir>      (writes <dir>/<target>/<case>; tests/fuzz/corpus is committed)
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "terrane/io.hpp"
#include "terrane/noise.hpp"
#include "terrane/preset.hpp"

namespace {

namespace fs = std::filesystem;
using terrane::Field2D;
using terrane::GridSpec;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

Field2D noise_field(int width, int height) {
  Field2D f(GridSpec{.width = width, .height = height, .spacing_m = 1.0});
  terrane::NoiseParams p;
  p.type = terrane::NoiseType::perlin;
  p.frequency = 0.2;
  terrane::noise_fill(p, f.grid, f.data);
  for (float& v : f.data) v *= 100.0f;
  return f;
}

// PNG chunk CRC (ISO 3309 CRC-32 over type and data, PNG specification §5.5).
std::uint32_t crc32(const std::string& bytes) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return c ^ 0xFFFFFFFFu;
}

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
  return be32(std::uint32_t(data.size())) + type + data + be32(crc32(type + data));
}

// A PNG whose IHDR declares width x height 16-bit grey samples and whose IDAT is a few bytes.
std::string png_header_only(std::uint32_t width, std::uint32_t height) {
  std::string ihdr = be32(width) + be32(height) + std::string("\x10\x00\x00\x00\x00", 5);
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) +
         png_chunk("IDAT", std::string("\x78\x9c\x63\x00\x00", 5)) + png_chunk("IEND", "");
}

std::string npy(int major, const std::string& dict, const std::string& data) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + char(major) + '\0';
  out += char(header.size() & 0xFF);
  out += char(header.size() >> 8);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

template <class T>
std::string samples_as_bytes(const Field2D& f) {
  std::string out;
  for (float v : f.data) {
    const T t = T(v);
    out.append(reinterpret_cast<const char*>(&t), sizeof t);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_corpus <dir>\n");
    return 2;
  }
  const fs::path out = argv[1];
  const fs::path tmp = fs::temp_directory_path() / ("terrane-corpus-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const terrane::HeightRange range{-100.0, 100.0};
  const Field2D small = noise_field(9, 7);
  const Field2D square = noise_field(9, 9);

  {  // PNG
    const fs::path dir = out / "fuzz_read_png16";
    terrane::write_png16(tmp / "a.png", small, range);
    put(dir, "grey16_9x7.png", read_all(tmp / "a.png"));
    terrane::write_png16(tmp / "b.png", noise_field(1, 1), range);
    put(dir, "grey16_1x1.png", read_all(tmp / "b.png"));
    const std::vector<std::uint8_t> rgb(4 * 3 * 3, 0x80);
    terrane::write_png8(tmp / "c.png", 4, 3, 3, rgb);
    put(dir, "rgb8_4x3.png", read_all(tmp / "c.png"));
    put(dir, "truncated.png", read_all(tmp / "a.png").substr(0, 60));
    put(dir, "header_65536x16384.png", png_header_only(65536, 16384));
  }
  {  // RAW16: the sized read takes width and height from the first four bytes.
    const fs::path dir = out / "fuzz_read_raw16";
    terrane::write_raw16(tmp / "a.r16", square, range);
    put(dir, "square_9x9.r16", read_all(tmp / "a.r16"));
    put(dir, "sized_3x2.r16", std::string("\x03\x00\x02\x00\x10\x20\x30\x40\x50\x60\x70\x80", 12));
    put(dir, "odd.r16", std::string("\x01\x02\x03", 3));
  }
  {  // EXR
    const fs::path dir = out / "fuzz_read_exr";
    terrane::write_exr(tmp / "a.exr", small);
    put(dir, "rgb_float_zip_9x7.exr", read_all(tmp / "a.exr"));
    terrane::write_exr(tmp / "b.exr", noise_field(1, 1));
    put(dir, "rgb_float_zip_1x1.exr", read_all(tmp / "b.exr"));
  }
  {  // NPY
    const fs::path dir = out / "fuzz_read_npy";
    const std::string shape = "(7, 9)";
    put(dir, "f4_v1_7x9.npy",
        npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }",
            samples_as_bytes<float>(small)));
    put(dir, "f8_v2_7x9.npy",
        npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }",
            samples_as_bytes<double>(small)));
    put(dir, "f4_v3_1x1.npy",
        npy(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }",
            std::string(4, '\0')));
    put(dir, "fortran.npy",
        npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }", std::string(4, '\0')));
    put(dir, "i2_3d.npy",
        npy(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (1, 1, 1), }",
            std::string(2, '\0')));
    put(dir, "header_65536x16384.npy",
        npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 65536), }", ""));
  }
  {  // preset files: the builtins and a few small documents
    const fs::path dir = out / "fuzz_preset_file";
    for (const std::string& name : terrane::builtin_preset_names()) {
      put(dir, name + ".json", std::string(terrane::builtin_preset_json(name)));
    }
    put(dir, "minimal.json",
        R"({"graph": {"output": "h", "nodes": {"h": {"type": "fbm", "octaves": 2}}}})");
    put(dir, "duplicate_key.json", R"({"seed": 1, "seed": 2, "graph": {}})");
    put(dir, "nested.json", R"({"graph": {"output": [[[[[[[[1]]]]]]]]}})");
    put(dir, "not_an_object.json", "[1, 2, 3]");
  }
  {  // --set: first byte picks the builtin (builtin_preset_names order), then lines
    const fs::path dir = out / "fuzz_preset_override";
    put(dir, "seed_name", std::string("\x00", 1) + "seed=42\nname=hills");
    put(dir, "node_param", std::string("\x00", 1) + "graph.nodes.hills.octaves=5");
    put(dir, "world", std::string("\x01", 1) + "world.size=65\nworld.cell_size_m=2.5");
    put(dir, "post",
        std::string("\x00", 1) +
            R"(post=[{"op": "thermal", "iterations": 3}]
post.0.talus_deg=35)");
    put(dir, "surface", std::string("\x02", 1) + "surface.climate.lapse_rate_c_per_km=6");
    put(dir, "bad", std::string("\x03", 1) + "graph.nodes=1\n=x\nno_equals\nseed=\"big\"");
  }
  fs::remove_all(tmp);
  return 0;
}
