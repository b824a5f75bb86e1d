// Atomic file replacement: write a uniquely named temporary in the target's directory, then
// rename(2) it over the target. POSIX guarantees rename within one file system replaces the
// target atomically, so readers see either the old file or the complete new one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

// A name that no other writer (thread or process) picks at the same time; uniqueness is also
// enforced by O_EXCL. Not part of any output, so it need not be deterministic.
fs::path temporary_name(const fs::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t h = hash_combine(std::uint64_t(::getpid()), counter.fetch_add(1));
  h = hash_combine(h, std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  h = hash_combine(h, std::hash<std::thread::id>{}(std::this_thread::get_id()));
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".tmp-%016llx", static_cast<unsigned long long>(h));
  fs::path tmp = path;
  tmp += suffix;
  return tmp;
}

// Creates the temporary exclusively; returns its descriptor and name.
int create_temporary(const fs::path& path, fs::path& tmp) {
  if (path.empty() || !path.has_filename()) {
    throw io_detail::file_error(ErrorCategory::invalid_argument, path,
                                "not a file path (empty or ends in a directory separator)");
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    tmp = temporary_name(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      const int err = errno;
      const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
      throw io_detail::file_error(ErrorCategory::io, path,
                                  "cannot create a file in directory '" + dir.string() +
                                      "': " + io_detail::errno_text(err));
    }
  }
  throw io_detail::file_error(ErrorCategory::io, path,
                              "cannot pick an unused temporary name next to it");
}

void sync_file(const fs::path& path, const fs::path& tmp) {
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot sync the written data: " + io_detail::errno_text(err));
  }
  ::close(fd);
}

void rename_over(const fs::path& path, const fs::path& tmp) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot replace the file: " + io_detail::errno_text(err));
  }
}

void remove_quietly(const fs::path& tmp) {
  std::error_code ec;
  fs::remove(tmp, ec);
}

}  // namespace

void write_file_atomic(const fs::path& path, std::span<const std::byte> bytes, bool sync) {
  fs::path tmp;
  int fd = create_temporary(path, tmp);
  try {
    const std::byte* p = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
      const ::ssize_t n = ::write(fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        throw io_detail::file_error(ErrorCategory::io, path,
                                    "write failed: " + io_detail::errno_text(err));
      }
      p += n;
      left -= std::size_t(n);
    }
    if (sync && ::fsync(fd) != 0) {
      const int err = errno;
      throw io_detail::file_error(ErrorCategory::io, path,
                                  "cannot sync the written data: " + io_detail::errno_text(err));
    }
    const int closing = fd;
    fd = -1;  // close() releases the descriptor even when it reports an error
    if (::close(closing) != 0) {
      const int err = errno;
      throw io_detail::file_error(ErrorCategory::io, path,
                                  "write failed on close: " + io_detail::errno_text(err));
    }
    rename_over(path, tmp);
  } catch (...) {
    if (fd >= 0) ::close(fd);
    remove_quietly(tmp);
    throw;
  }
}

void write_file_atomic(const fs::path& path,
                       const std::function<void(const fs::path& temporary)>& write_to, bool sync) {
  fs::path tmp;
  const int fd = create_temporary(path, tmp);
  ::close(fd);
  try {
    try {
      write_to(tmp);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw io_detail::file_error(ErrorCategory::io, path, e.what());
    }
    std::error_code ec;
    if (!fs::is_regular_file(tmp, ec)) {
      throw io_detail::file_error(ErrorCategory::io, path,
                                  "the writer did not produce the temporary file");
    }
    if (sync) sync_file(path, tmp);
    rename_over(path, tmp);
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
}

void probe_writable(const fs::path& dir, const std::string& message) {
  const fs::path probe = dir / ".terrane-write-probe";
  FILE* f = std::fopen(probe.c_str(), "wb");
  if (f == nullptr) throw Error(ErrorCategory::io, message);
  std::fclose(f);
  std::error_code ec;
  fs::remove(probe, ec);
}

}  // namespace terrane
