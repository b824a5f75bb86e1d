// NumPy .npy reader (format versions 1.0, 2.0, 3.0; numpy/lib/format.py documents the layout):
// magic "\x93NUMPY", version, a little-endian header length, an ASCII Python dict literal
// {'descr': ..., 'fortran_order': ..., 'shape': (...)}, then the raw array. Only 2-D
// little-endian float32 / float64 arrays in C order are accepted; the header is checked against
// the file size before anything is allocated.
#include <bit>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxHeader = 1 << 16;
// The samples are copied as they are: a little-endian host is assumed (as for RAW16).
static_assert(std::endian::native == std::endian::little);

// A parser of the header dict: strings, True / False, tuples of non-negative integers.
class HeaderParser {
 public:
  HeaderParser(const fs::path& path, std::string_view text) : path_(path), s_(text) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw io_detail::file_error(
        ErrorCategory::parse, path_,
        "not a valid .npy header (" + what + "): '" + io_detail::quoted(s_) + "'");
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
  }
  std::string string() {
    skip_ws();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) fail("expected a string");
    const char q = s_[pos_++];
    const std::size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string v(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return v;
  }
  bool boolean() {
    skip_ws();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const std::size_t len = std::strlen(word);
      if (s_.substr(pos_, len) == word) {
        pos_ += len;
        return value;
      }
    }
    fail("expected True or False");
  }
  std::vector<std::uint64_t> tuple() {
    expect('(');
    std::vector<std::uint64_t> dims;
    while (!eat(')')) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') fail("expected a dimension");
      std::uint64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        if (v > (std::uint64_t(1) << 40)) fail("dimension too large");
        v = v * 10 + std::uint64_t(s_[pos_++] - '0');
      }
      dims.push_back(v);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }
  void end() {
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the dict");
  }

 private:
  const fs::path& path_;
  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

Field2D read_npy(const fs::path& path, double spacing_m) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw io_detail::file_error(ErrorCategory::io, path, "cannot read: " + ec.message());
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) {
    const int e = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot open: " + io_detail::errno_text(e));
  }
  auto read_exact = [&](void* dst, std::size_t bytes, const char* what) {
    if (std::fread(dst, 1, bytes, file.get()) != bytes) {
      throw io_detail::file_error(ErrorCategory::parse, path,
                                  std::string("truncated .npy file: cannot read ") + what);
    }
  };
  unsigned char pre[12] = {};
  if (size < 10) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "not a .npy file: " + std::to_string(size) + " bytes");
  }
  read_exact(pre, 8, "the magic");
  if (std::memcmp(pre, "\x93NUMPY", 6) != 0) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = pre[6];
  std::size_t header_len = 0, prefix = 0;
  if (major == 1) {
    read_exact(pre + 8, 2, "the header length");
    header_len = std::size_t(pre[8]) | std::size_t(pre[9]) << 8;
    prefix = 10;
  } else if (major == 2 || major == 3) {
    read_exact(pre + 8, 4, "the header length");
    header_len = std::size_t(pre[8]) | std::size_t(pre[9]) << 8 | std::size_t(pre[10]) << 16 |
                 std::size_t(pre[11]) << 24;
    prefix = 12;
  } else {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                ".npy format version " + std::to_string(major) + "." +
                                    std::to_string(pre[7]) + " is not supported (1, 2, 3)");
  }
  if (header_len > kMaxHeader || prefix + header_len > size) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "the .npy header length " + std::to_string(header_len) +
                                    " does not fit the file of " + std::to_string(size) + " bytes");
  }
  std::string header(header_len, '\0');
  read_exact(header.data(), header_len, "the header");
  while (!header.empty() && (header.back() == '\n' || header.back() == ' ')) header.pop_back();

  HeaderParser parser(path, header);
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<std::uint64_t>> shape;
  parser.expect('{');
  while (!parser.eat('}')) {
    const std::string key = parser.string();
    parser.expect(':');
    if (key == "descr" && !descr)
      descr = parser.string();
    else if (key == "fortran_order" && !fortran)
      fortran = parser.boolean();
    else if (key == "shape" && !shape)
      shape = parser.tuple();
    else
      parser.fail("unexpected or repeated key '" + io_detail::quoted(key) + "'");
    if (!parser.eat(',')) {
      parser.expect('}');
      break;
    }
  }
  parser.end();
  if (!descr || !fortran || !shape) parser.fail("missing descr, fortran_order or shape");

  std::size_t item = 0;
  if (*descr == "<f4")
    item = 4;
  else if (*descr == "<f8")
    item = 8;
  else {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "array type '" + io_detail::quoted(*descr) +
                                    "' is not supported (a height grid is little-endian float32 "
                                    "'<f4' or float64 '<f8')");
  }
  if (*fortran) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "the array is in Fortran order; only C order is supported");
  }
  if (shape->size() != 2) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "the array has " + std::to_string(shape->size()) +
                                    " dimensions; a height grid has 2 (rows, columns)");
  }
  const std::uint64_t rows = (*shape)[0], cols = (*shape)[1];
  if (rows == 0 || cols == 0) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "the array is empty (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  }
  if (rows > std::uint64_t(kMaxGridSide) || cols > std::uint64_t(kMaxGridSide) ||
      rows * cols > std::uint64_t(kMaxGridSamples)) {
    throw io_detail::file_error(ErrorCategory::limit, path,
                                "array of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                    " exceeds the allowed 1.." + std::to_string(kMaxGridSide) +
                                    " per side, " + std::to_string(kMaxGridSamples) + " in all");
  }
  const std::uintmax_t data_bytes = rows * cols * item;
  const std::uintmax_t have = size - prefix - header_len;
  if (have != data_bytes) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "the header declares " + std::to_string(rows) + " x " + std::to_string(cols) + " '" +
            *descr + "' (" + std::to_string(data_bytes) + " bytes of data) but the file " +
            (have < data_bytes ? "holds only " : "holds ") + std::to_string(have));
  }
  GridSpec grid{int(cols), int(rows), spacing_m};
  grid.validate(path.string());
  Field2D out(grid);
  const std::size_t n = std::size_t(rows * cols);
  if (item == 4) {
    read_exact(out.data.data(), n * 4, "the data");
  } else {
    std::vector<double> buf(std::min<std::size_t>(n, 1 << 16));
    for (std::size_t done = 0; done < n;) {
      const std::size_t k = std::min(buf.size(), n - done);
      read_exact(buf.data(), k * 8, "the data");
      for (std::size_t q = 0; q < k; ++q) out.data[done + q] = float(buf[q]);
      done += k;
    }
  }
  return out;
}

}  // namespace terrane
