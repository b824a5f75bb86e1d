// Atomic file replacement: write a uniquely named temporary in the target's directory, then
// rename(2) it over the target. POSIX guarantees rename within one file system replaces the
// target atomically, so readers see either the old file or the complete new one.
//
// Temporaries and probes are created with O_CREAT | O_EXCL | O_NOFOLLOW (a name someone else
// placed, a symlink included, is never opened) and written only through the descriptor that
// created them. While they exist they are listed in the unpublished registry
// (unpublished_registry.cpp), so remove_unpublished_outputs() can delete them when the process
// is interrupted.
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
using io_detail::Unpublished;

// Syncs (optionally) and closes fd; Error(io) naming `path` when either reports an error.
void finish_descriptor(int fd, const fs::path& path, bool sync) {
  if (sync && ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot sync the written data: " + io_detail::errno_text(err));
  }
  // close() releases the descriptor even when it reports an error.
  if (::close(fd) != 0) {
    const int err = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "write failed on close: " + io_detail::errno_text(err));
  }
}

}  // namespace

namespace io_detail {

std::string unique_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t h = hash_combine(std::uint64_t(::getpid()), counter.fetch_add(1));
  h = hash_combine(h, std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  h = hash_combine(h, std::hash<std::thread::id>{}(std::this_thread::get_id()));
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, "%ld-%016llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(h));
  return suffix;
}

int create_exclusive(const fs::path& path, const fs::path& report_as, fs::path& created) {
  if (path.empty() || !path.has_filename()) {
    throw file_error(ErrorCategory::invalid_argument, report_as,
                     "not a file path (empty or ends in a directory separator)");
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    created = path;
    created += kTemporaryMarker + unique_suffix();
    int fd = -1;
    // Created and registered under the registry's lock: an interrupted process removes every
    // temporary that exists, and no new one appears once removal has begun.
    const bool registered = Unpublished::instance().add(created, [&] {
      fd = ::open(created.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      return fd >= 0;
    });
    if (registered) return fd;
    if (errno != EEXIST) {
      const int err = errno;
      const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
      throw file_error(
          ErrorCategory::io, report_as,
          "cannot create a file in directory '" + dir.string() + "': " + errno_text(err));
    }
  }
  throw file_error(ErrorCategory::io, report_as, "cannot pick an unused temporary name next to it");
}

void remove_temporary(const fs::path& tmp) noexcept {
  Unpublished::instance().remove(tmp, [&] { ::unlink(tmp.c_str()); });
}

}  // namespace io_detail

void write_to_descriptor(int fd, const fs::path& path, std::span<const std::byte> bytes) {
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
}

void write_file_atomic(const fs::path& path, std::span<const std::byte> bytes, bool sync) {
  write_file_atomic(
      path, [&](int fd) { write_to_descriptor(fd, path, bytes); }, sync);
}

void write_file_atomic(const fs::path& path, std::span<const std::span<const std::byte>> pieces,
                       bool sync) {
  write_file_atomic(
      path,
      [&](int fd) {
        for (const std::span<const std::byte> piece : pieces) write_to_descriptor(fd, path, piece);
      },
      sync);
}

void write_file_atomic(const fs::path& path, const std::function<void(int fd)>& write_to,
                       bool sync) {
  fs::path tmp;
  int fd = io_detail::create_exclusive(path, path, tmp);
  try {
    try {
      write_to(fd);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw io_detail::file_error(ErrorCategory::io, path, e.what());
    }
    const int closing = fd;
    fd = -1;
    finish_descriptor(closing, path, sync);
    // The rename and the registry update happen under the registry's lock, so an interrupted
    // process never deletes a name that has just become the published file.
    bool renamed = false;
    int err = 0;
    const bool ran = io_detail::Unpublished::instance().remove(tmp, [&] {
      renamed = std::rename(tmp.c_str(), path.c_str()) == 0;
      if (!renamed) {
        err = errno;
        ::unlink(tmp.c_str());
      }
    });
    if (!ran)
      throw Error(ErrorCategory::cancelled, path.string() + ": not published (interrupted)");
    if (!renamed) {
      throw io_detail::file_error(ErrorCategory::io, path,
                                  "cannot replace the file: " + io_detail::errno_text(err));
    }
  } catch (...) {
    if (fd >= 0) ::close(fd);
    io_detail::remove_temporary(tmp);
    throw;
  }
}

void probe_writable(const fs::path& dir, const std::string& message) {
  fs::path probe;
  int fd = -1;
  try {
    fd = io_detail::create_exclusive(dir / ".terrane-write-probe", dir, probe);
  } catch (const Error&) {
    throw Error(ErrorCategory::io, message);
  }
  ::close(fd);
  io_detail::remove_temporary(probe);
}

}  // namespace terrane
