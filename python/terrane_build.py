"""terrane's in-tree PEP 517 build backend (pyproject.toml: build-backend = "terrane_build").

It needs nothing from the network or from PyPI (requires = []): it builds terrane with CMake
from the source tree (the directory above python/) and writes the wheel by hand with zipfile.

    pip install ./python                        configure + build (Release) into build/python-wheel
    TERRANE_BUILD_DIR=<dir> pip install ./python   ... into that build directory instead
    TERRANE_PREBUILT=<build dir> pip install ./python
                                                package a build tree as it is (no CMake): the
                                                module, __init__.py and libterrane.so named by
                                                <build dir>/python/terrane_build.json

The wheel holds terrane/__init__.py, terrane/_terrane*.so (its RUNPATH rewritten to $ORIGIN only)
and terrane/libterrane.so.<soname version>, plus the .dist-info files (METADATA, WHEEL, RECORD).
"""

import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile

NAME = "terrane"
PYTHON_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(PYTHON_DIR)
CMAKE_OPTIONS = [
    "-DTERRANE_BUILD_TESTS=OFF",
    "-DTERRANE_BUILD_BENCH=OFF",
    "-DTERRANE_BUILD_APPS=OFF",
    "-DTERRANE_BUILD_VIEWER=OFF",
    "-DTERRANE_INSTALL=OFF",
    "-DTERRANE_PYTHON=ON",
]


def _version():
    """The library version, from the C API header this source tree has."""
    with open(os.path.join(SOURCE_DIR, "include", "terrane", "terrane.h"), encoding="utf-8") as f:
        text = f.read()
    parts = [
        re.search(r"#define TERRANE_VERSION_%s (\d+)" % part, text)
        for part in ("MAJOR", "MINOR", "PATCH")
    ]
    if not all(parts):
        raise RuntimeError("terrane_build: no TERRANE_VERSION_* in include/terrane/terrane.h")
    return ".".join(m.group(1) for m in parts)


def _tag():
    """cpXY-cpXY-<platform>: the module is built for this interpreter and machine."""
    impl = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (impl, impl, platform)


def _metadata():
    readme = os.path.join(PYTHON_DIR, "README.md")
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + _version(),
        "Summary: Procedural terrain engine: heights, streaming, scatter, bakes, navigation",
        "License: see LICENSE of the terrane source tree",
        "Requires-Python: >=3.8",
        "Requires-Dist: numpy",
    ]
    text = "\n".join(lines) + "\n"
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            text += "Description-Content-Type: text/markdown\n\n" + f.read()
    return text


def _wheel_text():
    return "Wheel-Version: 1.0\nGenerator: terrane_build\nRoot-Is-Purelib: false\nTag: %s\n" % (
        _tag()
    )


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


# ---- building ------------------------------------------------------------------------------


def _run(command):
    print("terrane_build: " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=sys.stderr)


def _cmake_build():
    """Configures and builds target terrane_python; returns the build directory."""
    build_dir = os.environ.get("TERRANE_BUILD_DIR") or os.path.join(
        SOURCE_DIR, "build", "python-wheel"
    )
    cmake = shutil.which("cmake")
    if cmake is None:
        raise RuntimeError("terrane_build: cmake not found (Debian: apt install cmake ninja-build)")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = [cmake, "-S", SOURCE_DIR, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"]
    configure += CMAKE_OPTIONS + ["-DPython_EXECUTABLE=" + sys.executable]
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        configure += generator
    _run(configure)
    jobs = str(os.cpu_count() or 1)
    _run([cmake, "--build", build_dir, "--target", "terrane_python", "--parallel", jobs])
    return build_dir


def _manifest(build_dir):
    path = os.path.join(build_dir, "python", "terrane_build.json")
    if not os.path.exists(path):
        raise RuntimeError(
            "terrane_build: %s is missing: is %s a terrane build directory configured with the "
            "Python bindings (TERRANE_PYTHON=ON or TERRANE_BUILD_TESTS=ON)?" % (path, build_dir)
        )
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    if not os.path.exists(manifest["module"]):
        raise RuntimeError(
            "terrane_build: %s is not built (cmake --build %s --target terrane_python)"
            % (manifest["module"], build_dir)
        )
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not manifest["module"].endswith(suffix):
        raise RuntimeError(
            "terrane_build: %s was built for another Python (%s) than this one (%s: %s)"
            % (manifest["module"], manifest.get("python"), sys.executable, suffix)
        )
    return manifest


# ---- the wheel -----------------------------------------------------------------------------


def _set_runpath(data, runpath):
    """The ELF shared object `data` (bytes) with its DT_RUNPATH / DT_RPATH string replaced by
    `runpath` (not longer than the old one; padded with NULs, as CMake's install does)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise RuntimeError("terrane_build: the module is not a little-endian 64-bit ELF file")
    buf = bytearray(data)
    phoff, = _unpack("<Q", buf, 0x20)
    phentsize, phnum = _unpack("<HH", buf, 0x36)
    loads, dynamic = [], None
    for k in range(phnum):
        header = _unpack("<IIQQQQ", buf, phoff + k * phentsize)
        p_type, p_offset, p_vaddr, p_filesz = header[0], header[2], header[3], header[5]
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise RuntimeError("terrane_build: the module has no dynamic section")

    def file_offset(vaddr):
        for start, offset, size in loads:
            if start <= vaddr < start + size:
                return offset + vaddr - start
        raise RuntimeError("terrane_build: address 0x%x outside the module's segments" % vaddr)

    strtab, paths = None, []
    for k in range(dynamic[1] // 16):
        tag, value = _unpack("<qQ", buf, dynamic[0] + 16 * k)
        if tag == 0:
            break
        if tag == 5:  # DT_STRTAB
            strtab = file_offset(value)
        elif tag in (15, 29):  # DT_RPATH, DT_RUNPATH
            paths.append(value)
    if strtab is None or not paths:
        return bytes(buf)
    new = runpath.encode()
    for index in paths:
        start = strtab + index
        end = buf.index(b"\0", start)
        if len(new) > end - start:
            raise RuntimeError("terrane_build: the module's RUNPATH is shorter than " + runpath)
        buf[start:end] = new + b"\0" * (end - start - len(new))
    return bytes(buf)


def _unpack(fmt, buf, offset):
    return struct.unpack_from(fmt, buf, offset)


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def _write_wheel(wheel_directory, files):
    """files: [(path in the wheel, bytes, executable)]; returns the wheel's file name."""
    dist_info = _dist_info()
    files = list(files) + [
        (dist_info + "/METADATA", _metadata().encode(), False),
        (dist_info + "/WHEEL", _wheel_text().encode(), False),
    ]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data, _ in files:
        writer.writerow([name, _record_hash(data), len(data)])
    writer.writerow([dist_info + "/RECORD", "", ""])
    files.append((dist_info + "/RECORD", record.getvalue().encode(), False))

    filename = "%s-%s-%s.whl" % (NAME, _version(), _tag())
    path = os.path.join(wheel_directory, filename)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data, executable in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if executable else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


def _package_files(build_dir):
    manifest = _manifest(build_dir)
    with open(os.path.join(PYTHON_DIR, "terrane", "__init__.py"), "rb") as f:
        files = [(NAME + "/__init__.py", f.read(), False)]
    with open(manifest["module"], "rb") as f:
        module = f.read()
    name = NAME + "/" + os.path.basename(manifest["module"])
    files.append((name, _set_runpath(module, "$ORIGIN"), True))
    if manifest.get("library"):
        with open(manifest["library"], "rb") as f:
            files.append((NAME + "/" + manifest["soname"], f.read(), True))
    return files


# ---- PEP 517 hooks -------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    directory = os.path.join(metadata_directory, _dist_info())
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(directory, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_text())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    prebuilt = os.environ.get("TERRANE_PREBUILT")
    build_dir = os.path.abspath(prebuilt) if prebuilt else _cmake_build()
    return _write_wheel(wheel_directory, _package_files(build_dir))
