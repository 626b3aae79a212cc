#!/usr/bin/env python3
"""The rows of docs/results/auto.md for examples/*.json: what `--method auto` chose and the largest
difference from the monolithic reference (through Model Exchange for FMU systems) over every recorded
variable and common output time, relative to the variable's largest magnitude in the reference.

Usage: /usr/bin/python3 scripts/auto_table.py [BUILD_DIR]   (numpy: Debian's python3-numpy)"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def largest_relative_difference(result, reference):
    a = np.genfromtxt(result, delimiter=",", names=True)
    b = np.genfromtxt(reference, delimiter=",", names=True)
    ta, tb = np.round(a[a.dtype.names[0]], 12), np.round(b[b.dtype.names[0]], 12)
    common = np.intersect1d(ta, tb)
    ia, ib = np.isin(ta, common), np.isin(tb, common)
    worst = 0.0
    for column in a.dtype.names[1:]:
        if column not in b.dtype.names:
            continue
        scale = np.max(np.abs(b[column]))
        if scale > 0:
            worst = max(worst, np.max(np.abs(a[column][ia] - b[column][ib])) / scale)
    return worst


def row(cosima, path, work):
    name = os.path.basename(path)[:-5]
    doc = json.load(open(path, encoding="utf-8"))
    result, stats, reference = (os.path.join(work, f) for f in ("auto.csv", "auto.json", "ref.csv"))
    done = run([cosima, "run", path, "--method", "auto", "--out", result, "--stats", stats])
    if done.returncode != 0:
        return name, "failed: " + done.stderr.strip().splitlines()[-1], "-"
    chose = json.load(open(stats, encoding="utf-8")).get("method", "?")
    if any("csv" in spec for spec in doc["systems"].values()):
        return name, chose, "-"
    args = [cosima, "run", path, "--method", "monolithic", "--out", reference]
    for system, spec in doc["systems"].items():
        if "fmu" in spec:
            args += ["--set", f'systems.{system}.interface="me"']
    if run(args).returncode != 0:
        return name, chose, "-"
    return name, chose, f"{largest_relative_difference(result, reference):.2e}"


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    cosima = os.path.join(build, "cosima")
    with tempfile.TemporaryDirectory(prefix="cosima-auto-") as work:
        for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.json"))):
            print("| {} | {} | {} |".format(*row(cosima, path, work)))


if __name__ == "__main__":
    main()
