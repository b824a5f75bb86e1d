"""The ctest python.pip_install: `pip install ./python` works offline and the installed package
gives the build tree's results.

pip builds the wheel with the in-tree backend (python/terrane_build.py) from the build tree as it
is (TERRANE_PREBUILT: no second 30-minute build) and installs it with --target into a fresh
directory (--target is also what lets Debian's pip install without touching the system: PEP 668
refuses only installs into the interpreter's own environment). --no-index --no-deps: nothing is
downloaded. Then a fresh interpreter imports terrane from that directory only and compares one
heights() call with the build tree's, bit for bit.

    python3 check_pip_install.py --source python --build-dir build/release --work-dir /tmp/x
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

PROBE = r"""
import json, sys
import terrane
grid = terrane.heights(terrane.load_preset("alpine", seed=7), -300.0, 120.0, 64, 48, 2.0)
libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libterrane" in line})
print(json.dumps({"file": terrane.__file__, "version": terrane.version(), "libs": libs,
                  "sha": __import__("hashlib").sha256(grid.tobytes()).hexdigest()}))
"""


def probe(python, path, cwd):
    """Runs PROBE with `path` as the only extra import path (from `cwd`: `python -c` imports
    from the current directory first, and ctest's is the build tree's python/)."""
    env = dict(os.environ, PYTHONPATH=path, PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([python, "-c", PROBE], env=env, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("the probe failed with PYTHONPATH=%s:\n%s%s" % (path, out.stdout, out.stderr))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True, help="python/ of the source tree")
    parser.add_argument("--build-dir", required=True, help="a build tree with terrane_python built")
    parser.add_argument("--work-dir", required=True, help="emptied, then the install target")
    args = parser.parse_args()

    args.work_dir = os.path.abspath(args.work_dir)
    shutil.rmtree(args.work_dir, ignore_errors=True)
    target = os.path.join(args.work_dir, "site")
    os.makedirs(target)
    env = dict(os.environ, TERRANE_PREBUILT=os.path.abspath(args.build_dir), PIP_NO_INPUT="1")
    env.pop("PYTHONPATH", None)
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-cache-dir",
               "--disable-pip-version-check", "--target", target, args.source]
    print(" ".join(command), flush=True)
    subprocess.run(command, env=env, check=True)

    installed = probe(sys.executable, target, args.work_dir)
    build_tree = os.path.join(os.path.abspath(args.build_dir), "python")
    built = probe(sys.executable, build_tree, args.work_dir)
    print("installed:", installed)
    print("build tree:", built)
    assert os.path.realpath(installed["file"]).startswith(os.path.realpath(target)), installed
    # The package's own copy of the library, not the build tree's (its RUNPATH is $ORIGIN only).
    root = os.path.realpath(target)
    inside = [os.path.realpath(lib).startswith(root) for lib in installed["libs"]]
    assert all(inside), installed["libs"]
    assert installed["version"] == built["version"]
    assert installed["sha"] == built["sha"], "the installed package gives other heights"
    package = os.path.join(target, "terrane")
    libraries = [n for n in os.listdir(package) if n.startswith("libterrane")]
    print("installed files:", sorted(os.listdir(package)))
    assert len(libraries) <= 1, libraries
    print("ok")


if __name__ == "__main__":
    main()
