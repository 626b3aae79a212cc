#!/usr/bin/env python3
"""Equivalence suite: one run under every executor gives the same results, bit for bit.

Every run is made under `sequential` (the reference), `threads:2`, `processes` and `mpi` (3 ranks:
`mpirun --oversubscribe -n 3 [--allow-run-as-root] cosima run ... --executor mpi`, as
tests/exec/test_mpi.sh does; the MPI column is skipped, saying so, where mpirun is missing). The
results file is compared byte for byte (cmp), the stats JSON key by key (all of it but the
wall-clock times, the warnings in any order), and the exit status. Where they differ, the first
differing row and column are shown with both values.

    --set examples   every examples/*.json with its own method and experiment (CTest exec.equivalence)
    --set fmus       every single-FMU run of the conformance suite (tests/conformance/conformance.py:
                     the same command lines, including the runs that an FMU ends itself)
                     (CTest conformance.equivalence)

Exit status: 0 all the same, 1 a difference.

    python3 tests/conformance/equivalence.py --build build --set examples
    python3 tests/conformance/equivalence.py --build build --set fmus --only counter
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import glob
import io
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance as conf  # noqa: E402  (the cases and their cosima command lines)

EXECUTORS = ["sequential", "threads:2", "processes", "mpi"]
# stats keys that measure the wall clock, not the run
CLOCK_KEYS = {"wall_time_s", "integration_time_s"}
# examples/*.json shortened here (stop): none today, every example runs in well under a second
EXAMPLE_STOPS: dict[str, float] = {}


@dataclasses.dataclass
class Spec:
    name: str
    argv: list                 # cosima run ... with the placeholders OUT, STATS, EXECUTOR
    input_csv: Optional[str] = None
    note: str = ""


@dataclasses.dataclass
class Outcome:
    code: int = 0
    text: str = ""
    csv: bytes = b""
    stats: Optional[dict] = None
    seconds: float = 0.0
    skipped: str = ""


def mpi_launch() -> Optional[list]:
    mpirun = shutil.which("mpirun")
    if not mpirun:
        return None
    launch = [mpirun, "--oversubscribe", "-n", "3"]
    if os.geteuid() == 0:
        launch.append("--allow-run-as-root")
    return launch


def example_specs(tools: dict, examples: str) -> list[Spec]:
    specs = []
    for path in sorted(glob.glob(os.path.join(examples, "*.json"))):
        name = os.path.splitext(os.path.basename(path))[0]
        argv = [tools["cosima"], "run", path, "--out", "OUT", "--stats", "STATS", "--quiet", "--executor", "EXECUTOR"]
        note = ""
        if name in EXAMPLE_STOPS:
            argv += ["--stop", conf.number_text(EXAMPLE_STOPS[name])]
            note = f"shortened: --stop {EXAMPLE_STOPS[name]:g}"
        specs.append(Spec(name, argv, note=note))
    return specs


def fmu_specs(tools: dict, patterns: list) -> list[Spec]:
    specs = []
    for case in conf.select(conf.build_cases(tools, tools["shared"]), patterns):
        if case.interface not in ("cs", "me"):
            continue
        argv = conf.cosima_command(case, tools["cosima"], "OUT", "STATS", "INPUT" if case.input_csv else None,
                                   executor="EXECUTOR")
        specs.append(Spec(case.id, argv, case.input_csv))
    return specs


def run_one(spec: Spec, executor: str, tools: dict, folder: str, launch: Optional[list]) -> Outcome:
    if executor == "mpi" and launch is None:
        return Outcome(skipped="no mpirun")
    tag = executor.replace(":", "")
    out, stats = os.path.join(folder, f"{tag}.csv"), os.path.join(folder, f"{tag}.json")
    argv = [{"OUT": out, "STATS": stats, "EXECUTOR": executor, "INPUT": os.path.join(folder, "input.csv")}.get(a, a)
            for a in spec.argv]
    env = tools["env"]
    if executor == "mpi":
        argv = launch + argv
        # each mpirun its own TMPDIR: two jobs making and removing their Open MPI session directories
        # in one folder at once can fail ("orte_session_dir failed") before cosima starts
        env = dict(env, TMPDIR=os.path.join(folder, "tmp-mpi"))
        os.makedirs(env["TMPDIR"], exist_ok=True)
    began = time.monotonic()
    code, text = conf.run(argv, folder, env, timeout=120)
    outcome = Outcome(code, text, seconds=time.monotonic() - began)
    if os.path.exists(out):
        with open(out, "rb") as f:
            outcome.csv = f.read()
    if os.path.exists(stats):
        try:
            with open(stats) as f:
                outcome.stats = json.load(f)
        except ValueError as e:
            outcome.stats = {"unreadable": str(e)}
    return outcome


def first_difference(a: bytes, b: bytes) -> str:
    """The first differing row and column of two CSV files, with both values."""
    ra = list(csv.reader(io.StringIO(a.decode("utf-8", "replace"))))
    rb = list(csv.reader(io.StringIO(b.decode("utf-8", "replace"))))
    header = ra[0] if ra else []
    for k in range(max(len(ra), len(rb))):
        if k >= len(ra):
            return f"{len(rb) - len(ra)} more row(s), from t = {rb[k][0] if rb[k] else '?'}: {','.join(rb[k])[:120]}"
        if k >= len(rb):
            return f"{len(ra) - len(rb)} row(s) missing, from t = {ra[k][0] if ra[k] else '?'}: {','.join(ra[k])[:120]}"
        if ra[k] != rb[k]:
            for c in range(max(len(ra[k]), len(rb[k]))):
                x = ra[k][c] if c < len(ra[k]) else "(none)"
                y = rb[k][c] if c < len(rb[k]) else "(none)"
                if x != y:
                    name = header[c] if c < len(header) else f"column {c + 1}"
                    where = "header" if k == 0 else f"row {k} (t = {ra[k][0]})"
                    return f"{where}, {name}: sequential {x}, this {y}"
    return "same rows, different bytes"


def about_the_run(stats: Optional[dict]) -> Optional[dict]:
    """The stats without what describes the executor rather than the run: the warning that threads:N
    is capped at the number of systems. The warnings as a set: their order follows when each worker
    reported, not the run."""
    if stats is None:
        return None
    stats = dict(stats)
    warnings = sorted(str(w) for w in stats.get("warnings", []) if not str(w).startswith("--executor "))
    if warnings:
        stats["warnings"] = warnings
    else:
        stats.pop("warnings", None)
    return stats


def stats_difference(a: Optional[dict], b: Optional[dict]) -> list[str]:
    if a is None or b is None:
        if a is None and b is None:
            return []
        written = a if a is not None else b
        error = f" (its error: {str(written.get('error'))[:150]})" if written.get("error") else ""
        return [f"only {'sequential' if a is not None else 'this run'} writes the stats file{error}"]
    a, b = about_the_run(a), about_the_run(b)
    out = []

    def walk(x, y, path):
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted(set(x) | set(y)):
                if key in CLOCK_KEYS:
                    continue
                if key not in x or key not in y:
                    out.append(f"{path}{key}: only in {'this run' if key in y else 'sequential'}")
                else:
                    walk(x[key], y[key], f"{path}{key}.")
        elif x != y:
            out.append(f"{path.rstrip('.')}: sequential {json.dumps(x)[:100]}, this {json.dumps(y)[:100]}")
    walk(a, b, "")
    return out


def verdict(reference: Outcome, other: Outcome) -> tuple[str, list[str]]:
    if other.skipped:
        return "skip", [other.skipped]
    problems = []
    if other.code != reference.code:
        problems.append(f"exit {other.code} where sequential exits {reference.code}: "
                        + next((line for line in other.text.splitlines() if "error" in line), other.text[-200:]))
    if other.csv != reference.csv:
        problems.append("results differ: " + first_difference(reference.csv, other.csv))
    problems += ["stats differ: " + d for d in stats_difference(reference.stats, other.stats)]
    return ("same" if not problems else "DIFF"), problems


def main() -> int:
    parser = argparse.ArgumentParser(description="one run under every executor, bit for bit")
    conf.add_location_options(parser)
    parser.add_argument("--set", choices=("examples", "fmus"), required=True)
    parser.add_argument("--examples", default=os.path.join(conf.ROOT, "examples"))
    parser.add_argument("--only", action="append", default=[], help="the runs whose name contains this (a glob)")
    parser.add_argument("--executors", default=",".join(EXECUTORS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", default=None, help="keep the runs' files in this folder")
    args = parser.parse_args()
    tools = conf.locate(args)
    if not os.access(tools["cosima"], os.X_OK):
        print(f"error: {tools['cosima']} is not built")
        return 1
    if args.set == "examples":
        specs = [s for s in example_specs(tools, args.examples)
                 if not args.only or any(p in s.name for p in args.only)]
    else:
        specs = fmu_specs(tools, args.only)
        if not os.path.isdir(tools["shared"]):
            print(f"note: {tools['shared']} is not here: the Reference FMUs' runs are left out")
    executors = args.executors.split(",")
    launch = mpi_launch()
    if "mpi" in executors and launch is None:
        print("note: mpirun is not on PATH (Debian's openmpi-bin): the mpi column is skipped")
    scratch = args.keep or tempfile.mkdtemp(prefix="equivalence-")
    work = os.path.join(scratch, "equivalence-work")
    tools["env"] = dict(os.environ, TMPDIR=os.path.join(work, "tmp"), COSIMA_FMU_PATH=tools["fmus"])
    os.makedirs(tools["env"]["TMPDIR"], exist_ok=True)
    folders = {}
    for spec in specs:
        folder = os.path.join(work, "".join(ch if ch.isalnum() or ch in "._=+-" else "_" for ch in spec.name))
        os.makedirs(folder, exist_ok=True)
        if spec.input_csv:
            with open(os.path.join(folder, "input.csv"), "w") as f:
                f.write(spec.input_csv)
        folders[spec.name] = folder
    began = time.monotonic()
    jobs = [(spec, e) for e in executors[::-1] for spec in specs]  # the slow MPI runs first
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            done = list(pool.map(lambda job: run_one(job[0], job[1], tools, folders[job[0].name], launch), jobs))
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.monotonic() - began
    outcomes = {(spec.name, e): o for (spec, e), o in zip(jobs, done)}
    others = [e for e in executors if e != "sequential"]
    width = max(len(s.name) for s in specs) if specs else 10
    print(f"{'run':{width}s} exit  " + "  ".join(f"{e:10s}" for e in others))
    differences = 0
    details = []
    for spec in specs:
        reference = outcomes[(spec.name, "sequential")]
        cells = []
        for e in others:
            v, problems = verdict(reference, outcomes[(spec.name, e)])
            cells.append(v)
            if v == "DIFF":
                differences += 1
                details.append((spec, e, problems))
        note = f"  ({spec.note})" if spec.note else ""
        print(f"{spec.name:{width}s} {reference.code:4d}  " + "  ".join(f"{c:10s}" for c in cells) + note)
    for spec, e, problems in details:
        print(f"\nDIFF {spec.name} under {e}:")
        for p in problems[:6]:
            print(f"  {p}")
        argv = [a if a not in ("OUT", "STATS", "EXECUTOR", "INPUT") else
                {"OUT": "x.csv", "STATS": "x.json", "EXECUTOR": e, "INPUT": "input.csv"}[a] for a in spec.argv]
        print("  " + ("mpirun --allow-run-as-root --oversubscribe -n 3 " if e == "mpi" else "")
              + conf.show(argv, tools))
    mpi_seconds = sum(o.seconds for (_, e), o in outcomes.items() if e == "mpi")
    print(f"\n{len(specs)} runs x {len(executors)} executors: {differences} difference(s) in {elapsed:.1f} s "
          f"(mpi runs {mpi_seconds:.1f} s of it, summed over 2 jobs)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
