// The two ways terrane-view runs once its window, preset and session exist: offscreen (frames,
// a drained view, a screenshot and statistics) and interactive (the window and its panel).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "brush_tool.hpp"
#include "camera.hpp"
#include "options.hpp"
#include "panel.hpp"
#include "session.hpp"
#include "window.hpp"
#include "world_file.hpp"

namespace terrane::view {

struct StartTimes {
  std::chrono::steady_clock::time_point t_start;  // before the session was built
  double session_ms = 0.0;                        // building it
  std::string renderer;                           // context_description()
};

// The brush tool's edits and the world file they are saved into (null without one).
struct Editing {
  std::unique_ptr<BrushTool> tool;
  std::unique_ptr<WorldFile> file;
};

// Both return the process's exit status; fatal errors go through fail().
int run_offscreen(const Options& o, GLFWwindow* window, std::unique_ptr<Session> session,
                  Editing editing, Camera camera, glm::dvec3 velocity, const StartTimes& start);
int run_interactive(const Options& o, GLFWwindow* window, PresetSource source,
                    std::unique_ptr<Session> session, Editing editing, Camera camera,
                    glm::dvec3 velocity, const StartTimes& start);

}  // namespace terrane::view
