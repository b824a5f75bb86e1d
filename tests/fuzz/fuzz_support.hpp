// Shared by the libFuzzer targets (tests/fuzz, docs/TESTING.md). A target feeds its input to a
// terrane reader or loader; the expected outcomes are a result or a terrane::Error whose message
// is one line naming the input. Anything else is a bug that stops the run: a crash or sanitizer
// report (the build has ASan + UBSan), an allocation beyond -malloc_limit_mb, another exception
// type (reported here, then abort()), or an Error message that does not name the file.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

#include "terrane/core.hpp"

namespace terrane::fuzz {

[[noreturn]] inline void fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz target failure: %.*s: %.*s\n", int(what.size()), what.data(),
               int(detail.size()), detail.data());
  std::abort();
}

// A private directory for this process's input file, under $TMPDIR (/tmp by default); removed
// at exit.
class InputFile {
 public:
  explicit InputFile(std::string_view name) {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
           ("terrane-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / std::string(name);
  }
  ~InputFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's contents with `bytes`.
  const std::filesystem::path& write(const std::uint8_t* bytes, std::size_t size) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create the input file", path_.string());
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd, bytes + done, size - done);
      if (n <= 0) fail("cannot write the input file", path_.string());
      done += std::size_t(n);
    }
    ::close(fd);
    return path_;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

// Runs `read`; a terrane::Error must be one line that names `name` (the file path or the
// preset source), any other exception is a failure.
template <class Read>
void expect_result_or_error(std::string_view name, Read&& read) {
  try {
    read();
  } catch (const Error& e) {
    const std::string_view message = e.what();
    if (message.find(name) == std::string_view::npos) {
      fail("the error message does not name the input", message);
    }
    if (message.find('\n') != std::string_view::npos) {
      fail("the error message is not one line", message);
    }
  } catch (const std::exception& e) {
    fail("an exception other than terrane::Error", e.what());
  } catch (...) {
    fail("an exception other than terrane::Error", "(not a std::exception)");
  }
}

}  // namespace terrane::fuzz
