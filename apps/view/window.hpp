// terrane-view's window and OpenGL context (GLFW), and screenshots of the bound framebuffer.
#pragma once

#include <epoxy/gl.h>
// epoxy first: GLFW must not include the system GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <filesystem>

#include "options.hpp"

namespace terrane::view {

// A window with an OpenGL 3.3 core context made current (invisible when offscreen). Fails with
// a clear message when there is no display (naming xvfb-run) or only an older OpenGL (saying
// what the display offers).
GLFWwindow* open_window(const Options& o);

// Writes the bound framebuffer's width x height pixels as an RGB PNG (atomically).
void write_screenshot(const std::filesystem::path& path, int width, int height);

}  // namespace terrane::view
