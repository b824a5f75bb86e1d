#!/usr/bin/python3
"""Runs `terrane stats --json` on every reference DEM and prints ours vs the reference.

Usage: scripts/dem_stats.py [--terrane build/release/bin/terrane] [--dems /work/shared/dems]
                            [--markdown] [NAME ...]
The DEMs (NAME.npy + NAME.json) and the reference figures (stats-*.jsonl, measured with the
definitions of docs/REALISM.md) are never copied into the repository.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

KEYS = [  # (key, label, relative tolerance or absolute tolerance)
    ("slope_p10_deg", "slope p10", ("rel", 0.01)),
    ("slope_p50_deg", "slope p50", ("rel", 0.01)),
    ("slope_p90_deg", "slope p90", ("rel", 0.01)),
    ("slope_lt15", "<15deg", ("abs", 0.01)),
    ("slope_lt30", "<30deg", ("abs", 0.01)),
    ("slope_gt45", ">45deg", ("abs", 0.01)),
    ("hypsometric_integral", "HI", ("rel", 0.01)),
    ("local_relief_1km_m", "relief", ("rel", 0.01)),
    ("beta", "beta", ("abs", 0.05)),
    ("beta_profile", "beta1d", ("abs", 0.05)),
    ("drainage_density_km_per_km2", "Dd", ("rel", 0.03)),
    ("hack_h", "hack", ("abs", 0.02)),
    ("depression_share_gt1m", "depr", ("order", 3.0)),
]


def within(ours, ref, tol):
    if ours is None or ref is None:
        return ours is None and ref is None
    kind, t = tol
    if kind == "rel":
        return abs(ours - ref) <= t * max(abs(ref), 1e-9)
    if kind == "abs":
        return abs(ours - ref) <= t
    return ref == 0 and ours == 0 or (ours > 0 and ref > 0 and max(ours / ref, ref / ours) <= t)


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--terrane", default=os.path.join(here, "..", "build", "release", "bin", "terrane"))
    ap.add_argument("--dems", default="/work/shared/dems")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    refs = {}
    for path in sorted(glob.glob(os.path.join(args.dems, "stats-*.jsonl"))):
        for line in open(path):
            d = json.loads(line)
            refs[d["name"]] = d
    names = args.names or sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.dems, "*.npy")))
    misses = 0
    rows = []
    for name in names:
        meta = json.load(open(os.path.join(args.dems, name + ".json")))
        cmd = [args.terrane, "stats", os.path.join(args.dems, name + ".npy"), "--json",
               "--cell", str(meta["cell_size_m"])]
        if meta.get("cell_size_y_m"):
            cmd += ["--cell-z", str(meta["cell_size_y_m"])]
        if meta.get("sea_level_m") is not None:
            cmd += ["--sea", str(meta["sea_level_m"])]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            print(name, "FAILED:", out.stderr.strip())
            misses += 1
            continue
        ours = json.loads(out.stdout)
        ref = refs.get(name, {})
        cells = []
        for key, label, tol in KEYS:
            o, r = ours.get(key), ref.get(key)
            ok = within(o, r, tol)
            misses += not ok
            cells.append((label, o, r, ok))
        rows.append((name, cells, ours.get("elapsed_s")))
    fmt = lambda v: "null" if v is None else ("%.4g" % v)
    if args.markdown:
        print("| DEM | " + " | ".join(label for _, label, _ in KEYS) + " |")
        print("|---|" + "---|" * len(KEYS))
        for name, cells, _ in rows:
            print("| %s | " % name + " | ".join(
                "%s / %s%s" % (fmt(o), fmt(r), "" if ok else " **!**") for _, o, r, ok in cells) + " |")
    else:
        for name, cells, el in rows:
            print("%-22s (%.2f s)" % (name, el or 0))
            print("   " + "  ".join("%s %s/%s%s" % (l, fmt(o), fmt(r), "" if ok else "!") for l, o, r, ok in cells))
    print("outside tolerance: %d" % misses, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
