#!/usr/bin/env bash
# Installs the Debian 12 packages terrane needs to build, test and benchmark.
# Idempotent: prints nothing and touches nothing when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libhwy-dev libtbb-dev nlohmann-json3-dev libcli11-dev
  libspng-dev libopenexr-dev zlib1g-dev libzstd-dev libsqlite3-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libmeshoptimizer-dev libtinygltf-dev libkissfft-dev nodejs
  # Navigation meshes (nav module): Recast, Detour, DetourCrowd.
  librecast-dev
  # The fuzz preset (scripts/fuzz.sh): clang 14 and its runtimes (libFuzzer, ASan, UBSan), which
  # clang only recommends. ThreadSanitizer (the tsan preset) uses GCC's libtsan2, part of g++.
  clang libclang-rt-14-dev
  # terrane-view (apps/view): GLFW, OpenGL through libepoxy, Dear ImGui, glm; its tests render
  # offscreen under Xvfb with Mesa's software rasteriser (llvmpipe).
  libglfw3-dev libepoxy-dev libimgui-dev libglm-dev
  xvfb xauth libgl1-mesa-dri libglx-mesa0 xdotool
  # The bindings (issue 17) and their tests: the Python module (pybind11 + NumPy, tested with
  # pytest and installed with pip), the C# layer (mcs + mono), the Blender add-on (blender,
  # headless).
  pybind11-dev python3-dev python3-numpy python3-pytest python3-pip
  mono-mcs mono-runtime blender
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
# The glTF validator (scripts/validate_gltf.sh) runs on node + npm. NodeSource's nodejs bundles
# npm and conflicts with Debian's npm package, so npm is only installed when the command is absent.
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
