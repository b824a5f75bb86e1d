// Mutation fuzzing of every file reader (STYLE.md: malformed input never crashes). Each reader
// gets thousands of corrupted variants of a valid file: bit flips, byte overwrites with
// boundary values, truncations, insertions and chunk-length damage. The reader must either
// return a valid image or throw terrane::Error — never crash, hang, or throw anything else.
// Under the asan preset this also catches out-of-bounds reads and leaks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "terrane/io.hpp"
#include "terrane/noise.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Counter-based mutation stream: deterministic for a given (seed, iteration).
std::string mutate(const std::string& valid, std::uint64_t seed, int iteration) {
  std::string s = valid;
  std::uint64_t h = hash_combine(seed, std::uint64_t(iteration));
  auto next = [&h] { return h = mix64(h); };
  const int edits = 1 + int(next() % 8);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = next() % s.size();
    switch (next() % 6) {
      case 0: s[at] = char(s[at] ^ char(1u << (next() % 8))); break;
      case 1: s[at] = char("\x00\xff\x7f\x80\x01"[next() % 5]); break;
      case 2: s.resize(at); break;
      case 3: s.insert(at, std::string(1 + next() % 16, char(next()))); break;
      case 4: s.erase(at, 1 + next() % 64); break;
      default: {  // four bytes at once: hits chunk lengths, sizes and offsets
        for (int k = 0; k < 4 && at + k < s.size(); ++k) s[at + k] = char(next());
        break;
      }
    }
  }
  return s;
}

// Returns how many mutated files the reader rejected (with a terrane::Error naming the file).
int fuzz_reader(const std::string& name, const std::string& valid, const std::string& ext,
                const std::function<void(const fs::path&)>& read, int iterations) {
  const fs::path dir = fs::temp_directory_path() / ("terrane_fuzz_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / ("case" + ext);
  int accepted = 0, rejected = 0;
  for (int it = 0; it < iterations; ++it) {
    const std::string bytes = mutate(valid, hash_bytes(name.data(), name.size()), it);
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
    try {
      read(p);
      ++accepted;
    } catch (const Error& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos)
          << name << " iteration " << it << ": message does not name the file: " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << " iteration " << it << ": threw a non-terrane exception: " << e.what();
    }
  }
  fs::remove_all(dir);
  ::testing::Test::RecordProperty(name + "_accepted", accepted);
  return rejected;
}

Field2D sample_field() {
  Field2D f(GridSpec{.width = 37, .height = 29, .spacing_m = 2.0});
  NoiseParams p;
  p.type = NoiseType::perlin;
  p.frequency = 0.05;
  noise_fill(p, f.grid, f.data);
  for (float& v : f.data) v *= 100.0f;
  return f;
}

fs::path valid_file(const std::string& ext, const std::function<void(const fs::path&)>& write) {
  const fs::path p = fs::temp_directory_path() / ("terrane_fuzz_valid_" + std::to_string(::getpid()) + ext);
  write(p);
  return p;
}

const HeightRange kRange{-100.0, 100.0};

TEST(ReaderFuzz, Png16NeverCrashes) {
  const Field2D f = sample_field();
  const fs::path v = valid_file(".png", [&](const fs::path& p) { write_png16(p, f, kRange); });
  EXPECT_GT(fuzz_reader("png16", read_all(v), ".png", [](const fs::path& p) { (void)read_png16(p); },
                        1500),
            1500 / 4);
  fs::remove(v);
}

TEST(ReaderFuzz, Raw16NeverCrashes) {
  const Field2D f = sample_field();
  const fs::path v = valid_file(".r16", [&](const fs::path& p) { (void)write_raw16(p, f, kRange); });
  EXPECT_GT(fuzz_reader("raw16", read_all(v), ".r16", [](const fs::path& p) { (void)read_raw16(p); },
                        500),
            500 / 4);
  EXPECT_GT(fuzz_reader("raw16_sized", read_all(v), ".r16",
                        [](const fs::path& p) { (void)read_raw16(p, 37, 29); }, 500),
            500 / 4);
  fs::remove(v);
}

TEST(ReaderFuzz, ExrNeverCrashes) {
  const Field2D f = sample_field();
  const fs::path v = valid_file(".exr", [&](const fs::path& p) { write_exr(p, f); });
  EXPECT_GT(fuzz_reader("exr", read_all(v), ".exr", [](const fs::path& p) { (void)read_exr(p); },
                        1500),
            1500 / 4);
  fs::remove(v);
}

TEST(ReaderFuzz, NpyNeverCrashes) {
  const Field2D f = sample_field();
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (29, 37), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += char(header.size() & 0xFF);
  bytes += char(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(f.data.data()), f.data.size() * sizeof(float));
  EXPECT_GT(fuzz_reader("npy", bytes, ".npy", [](const fs::path& p) { (void)read_npy(p); }, 1500),
            1500 / 4);
}

}  // namespace
}  // namespace terrane
