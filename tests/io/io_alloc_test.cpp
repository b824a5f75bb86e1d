// Every reader checks its header against the data actually present before allocating (issue 12,
// defect 10: "a 69-byte PNG makes read_png16 allocate 2 GiB before it finds the IDAT too
// short"). Replaces the global operator new to record the largest single allocation made while
// a reader runs: its own executable.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "terrane/io.hpp"

namespace {
std::atomic<bool> tracking{false};
std::atomic<std::size_t> largest{0};
}  // namespace

void* operator new(std::size_t n) {
  if (tracking.load(std::memory_order_relaxed)) {
    std::size_t seen = largest.load(std::memory_order_relaxed);
    while (n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
    }
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  return operator new(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace terrane {
namespace {

namespace fs = std::filesystem;

// Far below what any of the declared images below would take (2 GiB and more).
constexpr std::size_t kSmallAllocation = std::size_t{1} << 20;

class ReaderAllocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("terrane_io_alloc_test_" + std::to_string(::getpid()) +
                                        "_" + info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    return p;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  // Runs `f`, which must throw Error(category) with every needle; returns the largest single
  // allocation it made.
  template <class F>
  static std::size_t largest_allocation_refusing(F&& f, ErrorCategory category,
                                                 std::initializer_list<std::string_view> needles) {
    largest = 0;
    tracking = true;
    const std::string message = test::expect_error(
        [&] {
          struct Stop {
            ~Stop() { tracking = false; }
          } stop;
          f();
        },
        category, needles);
    tracking = false;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return largest;
  }

  fs::path dir_;
};

using Png16Test = ReaderAllocationTest;
using ExrTest = ReaderAllocationTest;
using NpyTest = ReaderAllocationTest;
using Raw16Test = ReaderAllocationTest;

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

// CRC-32 of a PNG chunk (type and data; PNG specification §5.5).
std::uint32_t png_crc(const std::string& bytes) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return c ^ 0xFFFFFFFFu;
}

std::string png_chunk(const std::string& type, const std::string& data) {
  return be32(std::uint32_t(data.size())) + type + data + be32(png_crc(type + data));
}

TEST_F(Png16Test, HeaderLargerThanTheFileIsRefusedBeforeAllocating) {
  // 65536 x 16384 16-bit samples (2 GiB) declared by a 69-byte file: signature, IHDR, a 12-byte
  // IDAT (a zlib stream cut short), IEND.
  const std::string ihdr = be32(65536) + be32(16384) + std::string("\x10\x00\x00\x00\x00", 5);
  const std::string bytes = std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) +
                            png_chunk("IDAT", std::string("\x78\x9c\xed\xc1\x01\x0d\x00\x00\x00"
                                                          "\xc2\xa0\xf7",
                                                          12)) +
                            png_chunk("IEND", "");
  ASSERT_EQ(bytes.size(), 69u);
  const fs::path p = write("short.png", bytes);
  EXPECT_LT(largest_allocation_refusing([&] { (void)read_png16(p); }, ErrorCategory::parse,
                                        {p.string() + ": ", "65536 x 16384", "69 bytes"}),
            kSmallAllocation);
}

TEST_F(ExrTest, HeaderLargerThanTheFileIsRefusedBeforeAllocating) {
  // A valid 8 x 8 file whose data window is patched to 65536 x 16384 (4 GiB of float samples
  // to read, 12 GiB declared in its three channels).
  const fs::path valid = dir_ / "valid.exr";
  write_exr(valid, Field2D(GridSpec{.width = 8, .height = 8, .spacing_m = 1.0}));
  std::string bytes = read(valid);
  const std::string attribute("dataWindow\0box2i\0\x10\0\0\0", 21);
  const std::size_t at = bytes.find(attribute);
  ASSERT_NE(at, std::string::npos);
  const std::int32_t window[4] = {0, 0, 65535, 16383};
  std::memcpy(&bytes[at + attribute.size()], window, sizeof window);
  const fs::path p = write("short.exr", bytes);
  EXPECT_LT(largest_allocation_refusing(
                [&] { (void)read_exr(p); }, ErrorCategory::parse,
                {p.string() + ": ", "65536 x 16384", std::to_string(bytes.size()) + " bytes"}),
            kSmallAllocation);
}

// Found by fuzz_read_exr: OpenEXR's C++ reader allocates the declared size of an attribute of
// unknown type (1.7 GB in a few hundred bytes) before reading it, and a preview's sides.
TEST_F(ExrTest, AttributeLargerThanTheFileIsRefusedBeforeAllocating) {
  const fs::path valid = dir_ / "valid.exr";
  write_exr(valid, Field2D(GridSpec{.width = 8, .height = 8, .spacing_m = 1.0}));
  const std::string bytes = read(valid);
  auto with_attribute = [&](const std::string& attribute) {
    return bytes.substr(0, 8) + attribute + bytes.substr(8);
  };
  // name, type name, little-endian size, value
  const fs::path p = write(
      "opaque.exr", with_attribute(std::string("junk\0mytype\0\x78\x5e\x63\x68", 16) + "abc"));
  EXPECT_LT(largest_allocation_refusing(
                [&] { (void)read_exr(p); }, ErrorCategory::parse,
                {p.string() + ": ", "attribute 'junk' declares 1751342712 bytes"}),
            kSmallAllocation);
  const fs::path q = write("preview.exr", with_attribute(std::string("preview\0preview\0\x08\0\0\0"
                                                                     "\0\0\1\0\0\0\1\0",
                                                                     28)));
  EXPECT_LT(largest_allocation_refusing([&] { (void)read_exr(q); }, ErrorCategory::parse,
                                        {q.string() + ": ", "a preview of 65536 x 65536 pixels"}),
            kSmallAllocation);
}

// Found by fuzz_read_exr: OpenEXR's C++ reader reads a channel list (and a value of a fixed-size
// type) by its layout, not by its declared size, so a channel list that ends before its declared
// size makes it read the following attributes from elsewhere, where the fuzzer had placed an
// attribute declaring 1.6 GB. Such sizes are refused: both walks agree on every attribute.
TEST_F(ExrTest, AttributeSizeThatDisagreesWithItsLayoutIsRefused) {
  const fs::path valid = dir_ / "valid.exr";
  write_exr(valid, Field2D(GridSpec{.width = 8, .height = 8, .spacing_m = 1.0}));
  const std::string bytes = read(valid);
  // A channel list of one channel (2 + 16 bytes and the final NUL) declared as 40 bytes, whose
  // last 21 bytes would be read as an attribute declaring 1.6 GB.
  const std::string list = std::string("R\0", 2) + std::string(16, '\1') + std::string(1, '\0');
  const std::string hidden = std::string("x\0y\0\x00\x00\x69\x61", 8) + std::string(13, 'z');
  const fs::path p =
      write("chlist.exr", bytes.substr(0, 8) + std::string("extra\0chlist\0\x28\0\0\0", 17) + list +
                              hidden + bytes.substr(8));
  EXPECT_LT(largest_allocation_refusing(
                [&] { (void)read_exr(p); }, ErrorCategory::parse,
                {p.string() + ": ", "attribute 'extra'", "does not end at its declared 40 bytes"}),
            kSmallAllocation);
  // A box2i declared with 4 bytes instead of 16.
  const fs::path q =
      write("box.exr",
            bytes.substr(0, 8) + std::string("box\0box2i\0\x04\0\0\0abcd", 18) + bytes.substr(8));
  test::expect_error([&] { (void)read_exr(q); }, ErrorCategory::parse,
                     {q.string() + ": ",
                      "attribute 'box' of type box2i declares 4 bytes; its "
                      "type has 16"});
}

// Found by fuzz_read_exr (2026-12-01): headers that OpenEXR's C++ reader parses differently from
// its core library (an attribute with an empty type name; a duplicated channel list) and then
// allocates for: a 1.5 GB ZIP line buffer for a data window 7.8 million samples wide, a 1.6 GB
// attribute. read_exr decodes with the core library only, which reads these headers as
// what they are and refuses them.
TEST_F(ExrTest, HeadersTheCppReaderMisreadsAreRefusedBeforeAllocating) {
  // The fuzzer's inputs, in hex.
  const std::string inputs[] = {
      "762f3101020000006368616e6e656c730063686c6973740037000000420002000000000000000100"
      "00000100000047000200000000000000010000000100000050000200000000000000010000000100"
      "000000636f6d70726573736901000000000000856f6e00636f6d7072657373696f6e000100000003"
      "6461746157696e646f7700626f783269001000000001000000000000000800780000000000000000"
      "0006000000646973706c617957696c6f617400040000000000803f004101000000000000000000ff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffff",
      "762f3101020000006368616e6e656c730063686c6973740037000000420002000000000000000100"
      "00000100000047000200000000000000010000000100000052000200000000000000010000000100"
      "000000636f0e6d7072657373696f6e00636f6d7072657373696f6e0001000000036461746157696e"
      "6e656c730063686c6973740037000000420002000000000000000100000001000000470002000000"
      "00000000010000000100000052000200000000000000010000000100000000636f0e6d7072657373"
      "696f6e00636f6d7072657373696f6e0001000000036461746157696e6e656c730063686c69737400"
      "37000000420002000000000000000100000001000000470002000000000000000100000001000000"
      "52000200000000000000010000000e6d7072657373696f6e00636f6d707265737369070000000000"
      "00006f6e0001000000036461746157696e646f7700626f78326900100000000000000000762f3100"
      "6368616e6e656c730063686c697374000100000047762f316e656c730063686c698d8bffcf000000"
      "4200020000000000000001000000010000004700f9bfffff00000000010000000100000052000200"
      "000000000000010000000100000068616e6e656c730063686c697374003700000042000200000000"
      "00000001010000010000004700030000000000000001000000010000005200020000000000000001"
      "00000001000000656c730063686c6973740037000000420002000000000000000100000101000000"
      "47000240000000000000010000000100000052000200000000000000010000000100000068020000"
      "006368616e6e656c730063686c697374006e654f72646572000100f5000000706978656c41737065"
      "6374526174696f00666c6f617400040000000000803f73637265656e57696e646f7743656e746572"
      "007632"};
  for (const std::string& hex : inputs) {
    std::string bytes;
    for (std::size_t k = 0; k + 1 < hex.size(); k += 2) {
      bytes += char(std::stoi(hex.substr(k, 2), nullptr, 16));
    }
    const fs::path p = write("misread.exr", bytes);
    EXPECT_LT(largest_allocation_refusing([&] { (void)read_exr(p); }, ErrorCategory::parse,
                                          {p.string() + ": "}),
              kSmallAllocation);
  }
}

TEST_F(NpyTest, HeaderLargerThanTheFileIsRefusedBeforeAllocating) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 65536), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  const std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) +
                            char(header.size() >> 8) + header + std::string(16, '\0');
  const fs::path p = write("short.npy", bytes);
  EXPECT_LT(largest_allocation_refusing([&] { (void)read_npy(p); }, ErrorCategory::parse,
                                        {p.string() + ": ", "16384 x 65536", "holds only 16"}),
            kSmallAllocation);
}

TEST_F(Raw16Test, HeaderLargerThanTheFileIsRefusedBeforeAllocating) {
  // RAW16 has no header: the size the caller gives is checked against the file's.
  const fs::path p = write("short.r16", std::string(68, '\x7f'));
  EXPECT_LT(
      largest_allocation_refusing([&] { (void)read_raw16(p, 65536, 16384); }, ErrorCategory::parse,
                                  {p.string() + ": ", "size 68 bytes", "65536 x 16384"}),
      kSmallAllocation);
}

}  // namespace
}  // namespace terrane
