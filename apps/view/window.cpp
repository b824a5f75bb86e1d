#include "window.hpp"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "gl_util.hpp"
#include "terrane/io.hpp"

namespace terrane::view {

GLFWwindow* open_window(const Options& o) {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  const bool has_display =
      (display != nullptr && *display != 0) || (wayland != nullptr && *wayland != 0);
  if (!has_display) {
    fail(std::string("no display (DISPLAY is not set): ") +
         (o.offscreen ? "offscreen rendering still needs an X server; "
                      : "to render without a screen, ") +
         "run under a virtual one, e.g. xvfb-run -a -s '-screen 0 1920x1080x24' terrane-view " +
         o.preset + " --offscreen --screenshot shot.png");
  }
  glfwSetErrorCallback([](int code, const char* text) {
    std::cerr << "terrane-view: GLFW error " << code << ": " << text << "\n";
  });
  if (glfwInit() == GLFW_FALSE) {
    fail("cannot initialise GLFW on display '" + std::string(display != nullptr ? display : "") +
         "'; without a usable display, run under xvfb-run");
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, o.offscreen ? GLFW_FALSE : GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(o.offscreen ? 64 : o.width, o.offscreen ? 64 : o.height,
                                        "terrane-view", nullptr, nullptr);
  if (window == nullptr) {
    // Say what the display offers instead.
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    std::string found = "no OpenGL context at all";
    if (GLFWwindow* probe = glfwCreateWindow(16, 16, "probe", nullptr, nullptr)) {
      glfwMakeContextCurrent(probe);
      found = "OpenGL " + context_description();
      glfwDestroyWindow(probe);
    }
    glfwTerminate();
    fail("terrane-view needs an OpenGL 3.3 core context; this display offers " + found);
  }
  glfwMakeContextCurrent(window);
  int major = 0, minor = 0;
  context_version(major, minor);
  if (major * 10 + minor < 33) {
    fail("terrane-view needs OpenGL 3.3 core; the context is " + context_description());
  }
  glfwSwapInterval(o.offscreen ? 0 : 1);
  return window;
}

void write_screenshot(const std::filesystem::path& path, int width, int height) {
  const std::vector<unsigned char> rgb = read_pixels_rgb(width, height);
  terrane::write_png8(path, width, height, 3, rgb);
}

}  // namespace terrane::view
