// Shared pieces of the _terrane extension module (python/src): handles as RAII owners, the
// exception hierarchy and the status check every binding goes through. Only the C API
// (terrane/terrane.h) is used; no C++ terrane header.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "terrane/terrane.h"

namespace pyterrane {

namespace py = pybind11;

// Owners of the C API's handles: each frees with its own *_free (which accepts NULL).
struct PresetFree {
  void operator()(terrane_preset* p) const noexcept { terrane_preset_free(p); }
};
struct QueryFree {
  void operator()(terrane_query* q) const noexcept { terrane_query_free(q); }
};
struct StreamerFree {
  void operator()(terrane_streamer* s) const noexcept { terrane_streamer_free(s); }
};
struct WorldFree {
  void operator()(terrane_world* w) const noexcept { terrane_world_free(w); }
};
using PresetPtr = std::unique_ptr<terrane_preset, PresetFree>;
using QueryPtr = std::unique_ptr<terrane_query, QueryFree>;
using StreamerPtr = std::unique_ptr<terrane_streamer, StreamerFree>;
using WorldPtr = std::unique_ptr<terrane_world, WorldFree>;

// Creates terrane.Error and its subclasses in module `m` (once, at import).
void register_errors(py::module_& m);

// Raises the terrane.Error subclass of `status` with `message` and the attributes category (the
// terrane_status_name string) and status (the int). Needs the GIL.
[[noreturn]] void raise_status(int32_t status, std::string_view message);

// Raises for any status but TERRANE_OK, with the calling thread's terrane_last_error() (call it
// on the thread that made the failing call, before any other terrane call).
inline void check(terrane_status status) {
  if (status != TERRANE_OK) raise_status(status, terrane_last_error());
}
// As check, preferring a handle's own message (terrane_streamer_last_error and the like).
inline void check(terrane_status status, const char* handle_message) {
  if (status == TERRANE_OK) return;
  const char* message = handle_message != nullptr && handle_message[0] != '\0'
                            ? handle_message
                            : terrane_last_error();
  raise_status(status, message);
}

// A loaded preset. Immutable: its information is read once at construction.
class Preset {
 public:
  explicit Preset(PresetPtr handle);
  const terrane_preset* get() const { return handle_.get(); }
  const terrane_preset_info& info() const { return info_; }

 private:
  PresetPtr handle_;
  terrane_preset_info info_{};
};

// Queries of a preset's world or of a streamer's or world's edited state. The C API's query
// borrows nothing (terrane.h: it keeps the state it was made with and outlives its maker);
// `owner` is an optional Python object to keep alive with it.
class Query {
 public:
  Query(QueryPtr handle, py::object owner) : handle_(std::move(handle)), owner_(std::move(owner)) {}
  const terrane_query* get() const { return handle_.get(); }

 private:
  QueryPtr handle_;
  py::object owner_;
};

// `value` as T; TypeError naming `what` when it is not one (pybind11's own cast_error would be a
// RuntimeError).
template <class T>
T as(const py::handle& value, const char* what) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(what) + ": wrong type " +
                         py::str(py::type::handle_of(value)).cast<std::string>());
  }
}

// str or os.PathLike -> UTF-8 string (os.fspath; bytes paths are refused with TypeError).
std::string fspath(const py::handle& path);
// A NumPy structured dtype with terrane_instance's exact layout (offsets and itemsize).
py::dtype instance_dtype();
// The three elements of a chunk key from a Python (cx, cz, level) sequence.
terrane_chunk_key to_chunk_key(const py::handle& key);
py::tuple from_chunk_key(const terrane_chunk_key& key);

// Bindings of the stateful handles (terrane_stateful.cpp).
void bind_streamer(py::module_& m);
void bind_world(py::module_& m);

}  // namespace pyterrane

namespace pyterrane {

// The (height, width) float32 grid that a heights call fills: `out` when given (checked: a
// writeable C-contiguous float32 array of exactly that shape, returned as the same object), a
// new array otherwise. `call(width, height, buffer, capacity, count)` is the C call (made
// without the GIL); `message()` the handle's last error (or nullptr). Sizes the C API refuses
// are refused before any allocation, with the C API's own message.
template <class Call, class Message>
py::array fill_grid(std::int64_t width, std::int64_t height, const py::object& out, Call&& call,
                    Message&& message) {
  if (width < INT32_MIN || width > INT32_MAX || height < INT32_MIN || height > INT32_MAX) {
    raise_status(TERRANE_INVALID_ARGUMENT, "grid " + std::to_string(width) + " x " +
                                               std::to_string(height) +
                                               " is outside 1..65536 samples per side");
  }
  const auto w = static_cast<int32_t>(width);
  const auto h = static_cast<int32_t>(height);
  std::size_t count = 0;
  if (terrane_heights_bound(w, h) == 0) {
    // No buffer: the C API validates the sizes and says what is wrong with them.
    const terrane_status s = call(w, h, nullptr, 0, &count);
    if (s != TERRANE_OK && s != TERRANE_BUFFER_TOO_SMALL) check(s, message());
    raise_status(TERRANE_INVALID_ARGUMENT,
                 "grid " + std::to_string(width) + " x " + std::to_string(height) + " is refused");
  }
  py::array grid;
  if (out.is_none()) {
    grid = py::array_t<float>({py::ssize_t{h}, py::ssize_t{w}});
  } else {
    if (!py::isinstance<py::array_t<float>>(out)) {
      throw py::type_error("out must be a numpy.ndarray of dtype float32");
    }
    grid = py::reinterpret_borrow<py::array>(out);
    if (grid.ndim() != 2 || grid.shape(0) != h || grid.shape(1) != w) {
      throw py::value_error("out must have shape (height, width) = (" + std::to_string(h) + ", " +
                            std::to_string(w) + ")");
    }
    if ((grid.flags() & py::array::c_style) == 0 || !grid.writeable()) {
      throw py::value_error("out must be C-contiguous and writeable");
    }
  }
  auto* data = static_cast<float*>(grid.mutable_data());
  const auto capacity = static_cast<std::size_t>(grid.size());
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = call(w, h, data, capacity, &count);
  }
  check(s, message());
  return grid;
}

}  // namespace pyterrane
