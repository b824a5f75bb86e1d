// StagedOutputs (terrane/io.hpp): a set of files written into a private staging directory
// next to their destination, then renamed into place together, the record (sidecar) last.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using io_detail::errno_text;
using io_detail::file_error;
using io_detail::Unpublished;

// The pid in "<marker><pid>-<hex>" at `pos` of `name`, or 0 when the name does not continue so.
long pid_at(const std::string& name, std::size_t pos) {
  char* end = nullptr;
  const long pid = std::strtol(name.c_str() + pos, &end, 10);
  if (end == name.c_str() + pos || *end != '-' || pid <= 0) return 0;
  return pid;
}

bool process_is_gone(long pid) {
  return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

// Removes the staging directories and temporaries that processes no longer running left in
// dir: only entries whose names carry the markers and a pid that is gone, only directories
// (staging) or plain files and symlinks (temporaries), never following a link.
void remove_leftovers(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const fs::file_type type = it->symlink_status(ec).type();
    if (ec) break;
    long pid = 0;
    bool staging = false;
    if (name.rfind(io_detail::kStagingMarker, 0) == 0) {
      pid = pid_at(name, std::char_traits<char>::length(io_detail::kStagingMarker));
      staging = true;
    } else if (const auto at = name.rfind(io_detail::kTemporaryMarker); at != std::string::npos) {
      pid = pid_at(name, at + std::char_traits<char>::length(io_detail::kTemporaryMarker));
    }
    if (pid == 0 || !process_is_gone(pid)) continue;
    std::error_code rm;
    if (staging && type == fs::file_type::directory) {
      fs::remove_all(it->path(), rm);
    } else if (!staging && (type == fs::file_type::regular || type == fs::file_type::symlink)) {
      fs::remove(it->path(), rm);
    }
  }
}

bool is_plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string("/\0", 2)) == std::string::npos;
}

// One done step of a publication, undone in reverse order on failure.
struct Move {
  fs::path from, to;
};

}  // namespace

StagedOutputs::StagedOutputs(fs::path dir) : dir_(std::move(dir)) {
  remove_leftovers(dir_);
  for (int attempt = 0;; ++attempt) {
    staging_ = dir_ / (io_detail::kStagingMarker + io_detail::unique_suffix());
    int err = 0;
    const bool made = Unpublished::instance().add(staging_, [&] {
      if (::mkdir(staging_.c_str(), 0700) == 0) return true;
      err = errno;
      return false;
    });
    if (made) return;
    if (err != EEXIST || attempt == 15) {
      throw Error(ErrorCategory::io,
                  "output directory '" + dir_.string() + "' is not writable: " + errno_text(err));
    }
  }
}

StagedOutputs::~StagedOutputs() {
  if (published_) return;
  Unpublished::instance().remove(staging_, [&] {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  });
}

void StagedOutputs::publish(const std::vector<std::string>& files, const std::string& record) {
  const auto interrupted = [&] {
    return Error(ErrorCategory::cancelled, dir_.string() + ": outputs not published (interrupted)");
  };
  if (!Unpublished::instance().locked([] {})) throw interrupted();
  // 1. Every name, staged file and target is checked before anything moves.
  bool has_record = false;
  for (const std::string& f : files) {
    if (!is_plain_name(f)) {
      throw Error(ErrorCategory::invalid_argument,
                  "output name '" + f + "' is not a plain file name");
    }
    has_record = has_record || f == record;
    std::error_code ec;
    if (fs::symlink_status(staging_ / f, ec).type() != fs::file_type::regular) {
      throw file_error(ErrorCategory::io, dir_ / f, "was not written (missing from the staging)");
    }
    const fs::file_type target = fs::symlink_status(dir_ / f, ec).type();
    if (target != fs::file_type::not_found && target != fs::file_type::regular &&
        target != fs::file_type::symlink) {
      throw file_error(ErrorCategory::io, dir_ / f,
                       std::string("exists and is not a file (") +
                           (target == fs::file_type::directory ? "a directory" : "a special file") +
                           "): move it away; nothing was written");
    }
  }
  if (!has_record) {
    throw Error(ErrorCategory::invalid_argument, "record '" + record + "' is not among the files");
  }

  // 2. The record is taken away first and published last; each replaced file is kept in the
  // staging directory until the set is complete, so a failure can restore the directory.
  std::vector<Move> done;
  std::string failure;
  auto move = [&](const fs::path& from, const fs::path& to) {
    if (std::rename(from.c_str(), to.c_str()) == 0) {
      done.push_back({from, to});
      return true;
    }
    failure = file_error(ErrorCategory::io, to, "cannot publish: " + errno_text(errno)).what();
    return false;
  };
  auto exists = [](const fs::path& p) {
    std::error_code ec;
    return fs::symlink_status(p, ec).type() != fs::file_type::not_found;
  };
  const fs::path previous = staging_ / ".previous";
  bool restored = true;
  const bool ran = Unpublished::instance().locked([&] {
    if (::mkdir(previous.c_str(), 0700) != 0) {
      failure =
          file_error(ErrorCategory::io, previous, "cannot be created: " + errno_text(errno)).what();
      return;
    }
    bool ok = !exists(dir_ / record) || move(dir_ / record, previous / record);
    for (const std::string& f : files) {
      if (!ok || f == record) continue;
      ok = (!exists(dir_ / f) || move(dir_ / f, previous / f)) && move(staging_ / f, dir_ / f);
    }
    ok = ok && move(staging_ / record, dir_ / record);
    if (ok) {
      published_ = true;
      return;
    }
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (std::rename(it->to.c_str(), it->from.c_str()) != 0) restored = false;
    }
  });
  if (!ran) throw interrupted();
  if (published_) {
    // The staging directory now holds only the replaced files.
    Unpublished::instance().remove(staging_, [&] {
      std::error_code ec;
      fs::remove_all(staging_, ec);
    });
    return;
  }
  if (!restored) {
    // The staging directory is kept: it holds the previous files.
    published_ = true;
    Unpublished::instance().remove(staging_, [] {});
    failure +=
        "; the previous files could not all be restored: they are in '" + previous.string() + "'";
  } else {
    failure += "; the directory was left as it was";
  }
  throw Error(ErrorCategory::io, failure);
}

}  // namespace terrane
