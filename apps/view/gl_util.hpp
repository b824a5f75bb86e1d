// Small OpenGL 3.3 core helpers for terrane-view: shader programs, owned buffer names, and a
// framebuffer to render into when there is no window to show (offscreen mode).
#pragma once

#include <epoxy/gl.h>

#include <string>
#include <string_view>
#include <vector>

namespace terrane::view {

// A linked program; throws std::runtime_error with the compiler's log on failure.
GLuint build_program(std::string_view name, const char* vertex_src, const char* fragment_src);
GLint uniform(GLuint program, const char* name);

// An owned buffer, vertex array or texture name (move-only).
enum class GlNameKind { buffer, vertex_array, texture };
template <GlNameKind Kind>
class GlName {
 public:
  GlName() = default;
  explicit GlName(bool create) {
    if (!create) return;
    if constexpr (Kind == GlNameKind::buffer) {
      glGenBuffers(1, &id_);
    } else if constexpr (Kind == GlNameKind::vertex_array) {
      glGenVertexArrays(1, &id_);
    } else {
      glGenTextures(1, &id_);
    }
  }
  ~GlName() { reset(); }
  GlName(GlName&& o) noexcept : id_(o.id_) { o.id_ = 0; }
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      o.id_ = 0;
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;
  void reset() {
    if (id_ == 0) return;
    if constexpr (Kind == GlNameKind::buffer) {
      glDeleteBuffers(1, &id_);
    } else if constexpr (Kind == GlNameKind::vertex_array) {
      glDeleteVertexArrays(1, &id_);
    } else {
      glDeleteTextures(1, &id_);
    }
    id_ = 0;
  }
  GLuint id() const { return id_; }

 private:
  GLuint id_ = 0;
};
using GlBuffer = GlName<GlNameKind::buffer>;
using GlVertexArray = GlName<GlNameKind::vertex_array>;
using GlTexture = GlName<GlNameKind::texture>;

// A colour + depth framebuffer of a fixed size (RGBA8, 24-bit depth).
class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;
  void bind() const;
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  int width_, height_;
  GLuint fbo_ = 0, colour_ = 0, depth_ = 0;
};

// Reads the bound framebuffer's colour into RGB rows, top row first (image order).
std::vector<unsigned char> read_pixels_rgb(int width, int height);

// "3.3 (Core Profile) Mesa 22.3.6" style description of the current context, and its version.
std::string context_description();
void context_version(int& major, int& minor);

}  // namespace terrane::view
