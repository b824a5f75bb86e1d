#include "gl_util.hpp"

#include <stdexcept>
#include <string>

#include "shaders.hpp"

namespace terrane::view {
namespace {

GLuint compile(std::string_view name, GLenum type, const char* text) {
  // The shared functions go right after the #version line.
  const std::string_view all(text);
  const std::size_t line = all.find('\n') + 1;
  const std::string source =
      std::string(all.substr(0, line)) + shaders::kCommon + std::string(all.substr(line));
  const char* src = source.c_str();
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (ok == 0) {
    GLint n = 0;
    glGetShaderiv(s, GL_INFO_LOG_LENGTH, &n);
    std::string log(std::size_t(n > 0 ? n : 1), '\0');
    glGetShaderInfoLog(s, n, nullptr, log.data());
    glDeleteShader(s);
    throw std::runtime_error(std::string(name) +
                             (type == GL_VERTEX_SHADER ? " vertex" : " fragment") +
                             " shader does not compile: " + log);
  }
  return s;
}

}  // namespace

GLuint build_program(std::string_view name, const char* vertex_src, const char* fragment_src) {
  const GLuint vs = compile(name, GL_VERTEX_SHADER, vertex_src);
  const GLuint fs = compile(name, GL_FRAGMENT_SHADER, fragment_src);
  const GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (ok == 0) {
    GLint n = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &n);
    std::string log(std::size_t(n > 0 ? n : 1), '\0');
    glGetProgramInfoLog(p, n, nullptr, log.data());
    glDeleteProgram(p);
    throw std::runtime_error(std::string(name) + " program does not link: " + log);
  }
  return p;
}

GLint uniform(GLuint program, const char* name) {
  return glGetUniformLocation(program, name);
}

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glGenRenderbuffers(1, &colour_);
  glBindRenderbuffer(GL_RENDERBUFFER, colour_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
  glGenRenderbuffers(1, &depth_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw std::runtime_error("the offscreen framebuffer of " + std::to_string(width) + " x " +
                             std::to_string(height) + " is incomplete");
  }
}

OffscreenTarget::~OffscreenTarget() {
  glDeleteRenderbuffers(1, &depth_);
  glDeleteRenderbuffers(1, &colour_);
  glDeleteFramebuffers(1, &fbo_);
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
}

std::vector<unsigned char> read_pixels_rgb(int width, int height) {
  std::vector<unsigned char> rgba(std::size_t(width) * std::size_t(height) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  std::vector<unsigned char> rgb(std::size_t(width) * std::size_t(height) * 3);
  for (int y = 0; y < height; ++y) {
    const unsigned char* src = rgba.data() + std::size_t(height - 1 - y) * std::size_t(width) * 4;
    unsigned char* dst = rgb.data() + std::size_t(y) * std::size_t(width) * 3;
    for (int x = 0; x < width; ++x) {
      dst[3 * x] = src[4 * x];
      dst[3 * x + 1] = src[4 * x + 1];
      dst[3 * x + 2] = src[4 * x + 2];
    }
  }
  return rgb;
}

std::string context_description() {
  const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return std::string(version != nullptr ? version : "unknown version") + " on " +
         (renderer != nullptr ? renderer : "an unknown renderer");
}

void context_version(int& major, int& minor) {
  major = epoxy_gl_version() / 10;
  minor = epoxy_gl_version() % 10;
}

}  // namespace terrane::view
