// The registry of unpublished temporaries and staging directories (io_internal.hpp), and
// remove_unpublished_outputs(): what an interrupted process calls so that it leaves no
// temporary behind.
#include <algorithm>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace io_detail {

namespace fs = std::filesystem;

Unpublished& Unpublished::instance() {
  static Unpublished registry;
  return registry;
}

bool Unpublished::add(const fs::path& path, const std::function<bool()>& create) {
  std::lock_guard lock(mutex_);
  if (closed_) {
    throw Error(ErrorCategory::cancelled,
                path.string() + ": not created (unpublished outputs are being removed)");
  }
  if (!create()) return false;
  paths_.push_back(path);
  return true;
}

bool Unpublished::remove(const fs::path& path, const std::function<void()>& action) noexcept {
  std::lock_guard lock(mutex_);
  const auto it = std::find(paths_.begin(), paths_.end(), path);
  if (it != paths_.end()) paths_.erase(it);
  if (closed_) return false;
  action();
  return true;
}

bool Unpublished::locked(const std::function<void()>& fn) {
  std::lock_guard lock(mutex_);
  if (closed_) return false;
  fn();
  return true;
}

void Unpublished::remove_all() noexcept {
  std::lock_guard lock(mutex_);
  closed_ = true;
  for (const fs::path& p : paths_) {
    std::error_code ec;
    fs::remove_all(p, ec);  // a symlink is removed, never followed
  }
  paths_.clear();
}

}  // namespace io_detail

void remove_unpublished_outputs() noexcept {
  io_detail::Unpublished::instance().remove_all();
}

}  // namespace terrane
