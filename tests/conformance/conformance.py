#!/usr/bin/env python3
"""Conformance suite: every FMU the tests have, run ALONE under cosima and under fmusim.

fmusim (../shared/tools/fmusim; read its README.md) is the FMI project's own command-line importer
(Reference FMUs v0.0.39). It shares no code with cosima, so it serves as the oracle: each case runs
one FMU by one interface with the same start, stop, output interval, start values and input table
under both programs, records every variable both can record, and compares them.

* Co-Simulation: same FMU, same communication points, so the same numbers, to the last digit
  fmusim prints: Float64 (%.16g) |a - b| <= 4e-15 max(|a|, |b|) + 4e-15 (the column's largest
  |value|, a floor for values near 0); Float32 (%.7g) 1e-6 relative; integers, Booleans,
  enumerations and strings exactly; the same rows and the same last time.
* Model Exchange: fmusim's CVODE (BDF, --tolerance 1e-10, atol = rtol * nominal) against cosima's
  CVODE (integrator_options.rtol = 1e-10, atol 1e-2 rtol): |a - b| <= 1e-6 * scale (the column's
  largest |value|). Why 1e-6: ME_BOUND below; each case also measures fmusim's own error (its run at
  rtol 1e-10 against one at 1e-12) so that the table shows the bound is met with a margin. Rows are
  compared at cosima's output times, with fmusim's last row of a time repeated at an event (the
  values after it); fmusim's extra rows at events off the grid are not compared; both runs must end
  at the same time.

Where fmusim is wrong or cannot run an FMU that cosima should run (tests/fmus/*/EXPECTED.md and
fmusim's README), the case is compared against the correct value instead (ORACLE_FIXES,
ORACLE_RUNS; the table's oracle column says which). Cases fmusim cannot run and that have no other
oracle are listed as skipped with fmusim's reason.

Exit status: 0 no failure, 1 a failure, 77 skipped (no ../shared, or fmusim absent or not running).

    python3 tests/conformance/conformance.py --build build --docs docs/results  # docs/results/conformance.md
    python3 tests/conformance/conformance.py --build build --only VanDerPol --keep /tmp/conf   # some cases, files kept
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import fnmatch
import glob
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

SKIP_CODE = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# --- bounds ---------------------------------------------------------------------------------------------
CS_REL = 4e-15     # fmusim prints Float64 with %.16g: <= 5e-16 relative off the double; a few of them
CS_FLOOR = 4e-15   # times the column's largest |value|: values near 0
F32_REL = 1e-6     # Float32 printed with %.7g: <= 5e-7 relative
ME_RTOL = 1e-10    # both integrators' relative tolerance
ME_REF_RTOL = 1e-12  # fmusim's second run, for its own error
# Model Exchange: |a - b| <= ME_BOUND * scale, scale = the column's largest |value| in either run.
# Two CVODE runs at rtol 1e-10 differ by their global errors, which are a multiple of rtol (error
# growth over the run, restarts at every output point and event): fmusim's, measured against its own
# run at 1e-12, reaches 5.6e-8 of scale on B4's stiff two-mass oscillator and 1e-7 on VanDerPol's
# limit cycle over 20 s (where the phase error grows with time); cosima's, against fmusim at 1e-13,
# 1.2e-8 on B4. 1e-6 leaves at least 10x that, and still fails what a wrong import shows: an equation
# evaluated with another input, an event handled at another time (a bounce 1e-6 s late shifts h by
# |v| 1e-6), a discrete state off by one (>= 1e-3 of scale in every case here).
ME_BOUND = 1e-6
ME_BOUNDS: dict[str, tuple[float, str]] = {}  # stem -> (bound, why): none needs another bound today
TIME_TOL = 1e-9    # rows match when their times differ by less than TIME_TOL * dt (times max(1, |t|))

# --- model description ----------------------------------------------------------------------------------

V3_TYPES = {"Float32", "Float64", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
            "Boolean", "String", "Binary", "Enumeration", "Clock"}


@dataclasses.dataclass
class Variable:
    name: str
    type: str          # Real|Integer|Boolean|String|Enumeration (1.0, 2.0) or the FMI 3.0 element
    causality: str
    variability: str
    value_reference: str
    alias: str = "noAlias"
    is_array: bool = False


@dataclasses.dataclass
class ModelDescription:
    version: str       # "1.0", "2.0", "3.0"
    interfaces: list   # of "cs", "me", "se"
    start: Optional[float]
    stop: Optional[float]
    step: Optional[float]
    variables: list


def read_model_description(path: str) -> ModelDescription:
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    version = root.get("fmiVersion", "")
    major = version[:1]
    if major == "1":
        interfaces = ["cs"] if root.find("Implementation") is not None else ["me"]
    else:
        interfaces = [i for i, tag in (("cs", "CoSimulation"), ("me", "ModelExchange"), ("se", "ScheduledExecution"))
                      if root.find(tag) is not None]
    found = root.find("DefaultExperiment")
    experiment = found.attrib if found is not None else {}

    def number(key):
        return float(experiment[key]) if key in experiment else None

    variables = []
    listed = root.find("ModelVariables")
    for element in (listed if listed is not None else []):
        if major == "3":
            if element.tag not in V3_TYPES:
                continue
            vtype, is_array = element.tag, element.find("Dimension") is not None
            causality = element.get("causality", "local")
        else:
            typed = [c for c in element if c.tag in ("Real", "Integer", "Boolean", "String", "Enumeration")]
            vtype, is_array = (typed[0].tag if typed else "Real"), False
            causality = element.get("causality", "internal" if major == "1" else "local")
        variables.append(Variable(element.get("name"), vtype, causality, element.get("variability", "continuous"),
                                  element.get("valueReference", ""), element.get("alias", "noAlias"), is_array))
    return ModelDescription(version[:3] if major in "12" else "3.0", interfaces, number("startTime"),
                            number("stopTime"), number("stepSize"), variables)


def kind_of(vtype: str) -> str:
    """float64 | float32 | int (integers, Booleans, enumerations) | text (strings, binaries)."""
    if vtype in ("Real", "Float64"):
        return "float64"
    if vtype == "Float32":
        return "float32"
    if vtype in ("String", "Binary"):
        return "text"
    return "int"


# --- cases ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    id: str                  # unique, e.g. "ref/2.0/BouncingBall me"
    group: str               # reference | test | export | export-fmi3
    fmu: str
    stem: str                # the system's name under cosima: the file's stem
    version: str
    interface: str           # cs | me (se: Scheduled Execution only, skipped)
    start: float
    stop: float
    dt: float
    start_values: list = dataclasses.field(default_factory=list)  # [(name, text)]
    input_csv: Optional[str] = None                               # the input table's text
    notes: list = dataclasses.field(default_factory=list)
    skip: str = ""                                                # why it cannot run under fmusim
    oracle: str = "fmusim"
    fixes: list = dataclasses.field(default_factory=list)         # corrections of fmusim's table
    oracle_run: Optional[tuple] = None                            # (fmu, interface, why): fmusim runs that
    by_design: str = ""                                           # cosima differs on purpose: its message
    md: Optional[ModelDescription] = None

    @property
    def label(self) -> str:
        extra = " +input" if self.input_csv else ""
        return self.stem + extra + "".join(f" {n}={v}" for n, v in self.start_values)


# Runs whose default experiment is too long, or whose EXPECTED.md uses another grid:
# stem -> (stop - start, dt, why); None keeps the default (DefaultExperiment, else FMPy's: 1 s, /500).
RUN_OVERRIDES: dict[str, tuple[Optional[float], Optional[float], str]] = {
    # Reference FMUs: the FMI 1.0 builds declare no stepSize: the grid of the 2.0/3.0 builds and refs/
    "BouncingBall": (3, 0.01, ""),
    "Dahlquist": (10, 0.1, ""),
    "Feedthrough": (2, 0.1, ""),
    "Resource": (1, 0.1, ""),
    "Stair": (10, 0.2, ""),
    "VanDerPol": (20, 0.01, ""),
    "StateSpace": (10, 0.1, ""),
    # start 1e-5: the stop on the grid start + n dt (past a stop between two grid points fmusim writes
    # its last row at the next grid point, where cosima ends the last step at the stop)
    "Roberts": (1, 0.01, "shortened: DefaultExperiment stop 1e8 (fmusim's README: CS does not finish)"),
    # test FMUs: the grids of their EXPECTED.md
    "cosima_test_event_counter": (15, 1, ""),
    "cosima_test_fmi1_counter_me": (15, 1, ""),
    "cosima_test_fmi1_counter_cs": (15, 1, ""),
    "cosima_test_stop": (15, 1, ""),
    "cosima_test_fmi1_stop_me": (15, 1, ""),
    "cosima_test_fmi1_stop_cs": (15, 1, ""),
    "cosima_test_event_values": (4, 0.5, "EXPECTED.md's grid (DefaultExperiment stop 15)"),
    "cosima_test_fmi1_values_me": (4, 0.5, "EXPECTED.md's grid (DefaultExperiment stop 15)"),
    "cosima_test_fmi1_values_cs": (4, 0.5, "EXPECTED.md's grid (DefaultExperiment stop 15)"),
    "cosima_test_fmi1_duplicate_me": (15, 1, ""),
    "cosima_test_reset_params": (3, 1, "EXPECTED.md's grid (DefaultExperiment stop 15)"),
    "cosima_test_changes_param": (3, 1, "EXPECTED.md's grid (DefaultExperiment stop 15)"),
    "cosima_test_lotka": (0.1, None, "shortened: DefaultExperiment stop 20 with step 1e-4 (200000 rows)"),
    "cosima_test_lotka_all": (0.1, None, "shortened: DefaultExperiment stop 20 with step 1e-4 (200000 rows)"),
}


def negated_alias_fix(table: "Table", case: Case) -> str:
    """fmusim 0.0.39 ignores alias="negatedAlias" of FMI 1.0: it shows the base variable's value where
    the value is its negation (tests/fmus/event_values/EXPECTED.md: minus_x = +x, where the FMI 2.0
    build of the same FMU shows -x). The correct value of a negated alias is minus its base variable:
    compared against that, the base taken from fmusim's own run."""
    fixed = []
    for var in (v for v in case.md.variables if v.alias == "negatedAlias"):
        base = next((v for v in case.md.variables if v.alias == "noAlias" and v.type == var.type
                     and v.value_reference == var.value_reference), None)
        if base is None or var.name not in table.columns or base.name not in table.columns:
            continue
        for row in table.rows:
            value = row.get(base.name)
            row[var.name] = -value if isinstance(value, (int, float)) and not isinstance(value, bool) else value
        fixed.append(f"{var.name} = -{base.name}")
    if not fixed:
        return ""
    return "fmusim ignores FMI 1.0 negatedAlias: compared against " + ", ".join(fixed)


def reset_params_fix(table: "Table", case: Case) -> str:
    """fmusim applies start values right after fmi2Instantiate, before fmi2SetupExperiment, which this
    FMU (20-sim's habit) answers by restoring every start value: fmusim's rows show the defaults
    (tests/fmus/reset_params/EXPECTED.md). The standard allows setting them before or after
    fmi2SetupExperiment; the run that keeps them has k = 3, n = 7, flag = true, label = "set", u = 2
    and x = k u t = 6 t exactly (one Euler step per fmi2DoStep on a constant slope)."""
    for row in table.rows:
        row.update({"k": 3.0, "n": 7, "flag": 1, "label": "set", "u": 2.0, "y_k": 3.0, "y_n": 7, "y_flag": 1,
                    "y_label": "set", "y_u": 2.0, "x": 6.0 * row["time"]})
    return ("fmusim sets start values before fmi2SetupExperiment, which this FMU resets: compared against "
            "the exact solution (k = 3, n = 7, flag, label = set, u = 2, x = 6 t)")


def fmi1_discard_fix(last_time: float, last_values: dict) -> Callable:
    """fmusim's FMI 1.0 Co-Simulation loop answers fmiDiscard with fmiGetBooleanStatus(fmiDoStepStatus),
    a status kind FMI 1.0 does not define: the strict FMU refuses it and fmusim exits 3 after the rows
    before the discarded step (tests/fmus/event_counter/EXPECTED.md, stop/EXPECTED.md). A correct FMI
    1.0 importer asks fmiGetRealStatus(fmiLastSuccessfulTime), records the values there and ends the
    run without error: compared against fmusim's rows plus that last row, the FMU's exact values."""
    def fix(table: "Table", case: Case) -> str:
        if table.exit_code == 0:
            return ""
        row = dict(table.rows[-1]) if table.rows else {}
        row.update(last_values)
        row["time"] = last_time
        table.rows.append(row)
        table.exit_code = 0
        shown = ", ".join(f"{k} = {v}" for k, v in last_values.items())
        return (f"fmusim exits 3 at the discarded step (it asks fmiGetBooleanStatus(fmiDoStepStatus), undefined "
                f"in FMI 1.0): compared against its rows plus the correct end, t = {last_time:g} with {shown}")
    fix.__doc__ = fmi1_discard_fix.__doc__
    return fix


# stem -> the corrections of fmusim's table in the default case (each function's docstring says why).
# negated_alias_fix applies to every FMI 1.0 FMU that declares a negatedAlias.
ORACLE_FIXES: dict[str, Callable] = {
    "cosima_test_fmi1_counter_cs": fmi1_discard_fix(12.0, {"counter": 12}),
    "cosima_test_fmi1_stop_cs": fmi1_discard_fix(12.5, {"y": 12.5, "x": 12.5}),
}

# (stem, interface) -> (FMU, interface, why): fmusim runs another FMU or interface, whose results are
# the correct ones for this case, because it cannot run this one.
ORACLE_RUNS: dict[tuple[str, str], tuple[str, str, str]] = {
    # fmusim's CVODE evaluates the model past the announced time event (fmi3SetTime(0.58) with
    # nextEventTime = 0.5, before stopping there), which this strict FMU refuses ("is past the time
    # event ... enter Event Mode there"); fmusim then fails at t = 0.34. The FMU's Co-Simulation part
    # integrates the same equations exactly (parabolas, bounces and kick located exactly): the exact
    # solution, run by fmusim on the same grid.
    ("cosima_fmi3_me", "me"): ("{self}", "cs", "fmusim's CVODE calls fmi3SetTime past nextEventTime, which the FMU "
                       "refuses (fmusim fails at t = 0.34): compared against the FMU's own exact Co-Simulation "
                       "run under fmusim"),
    # fmusim refuses the description: unit "m" is used but not defined in <UnitDefinitions> (FMI 2.0
    # requires it; the test FMU's habit). The Reference VanDerPol.fmu has the same equations, start
    # values, mu and variable names (only the nominals differ).
    ("cosima_test_vanderpol", "me"): ("{shared}/reference-fmus/fmi2/VanDerPol.fmu", "me",
                              "fmusim refuses its description (unit \"m\" not in UnitDefinitions): compared "
                              "against fmusim's run of the Reference VanDerPol.fmu, the same model"),
}

# Where cosima differs from fmusim on purpose: stem -> (pattern of cosima's message, why). The rows both
# wrote are still compared; the verdict is "by design" only when they agree and cosima ends so.
BY_DESIGN: dict[str, tuple[str, str]] = {
    "cosima_test_nan": (r"output 'y' is nan at t = 0\.5",
                        "the FMU returns y = NaN with fmi2OK from nan_at = 0.5 on: cosima ends the run with an "
                        "error naming the output (its reliability checks), fmusim records nan"),
}

# What a failure is known to come from (a pattern of the case's id -> the diagnosis), shown beside it in
# docs/results/conformance.md while it fails.
DIAGNOSES: list[tuple[str, str]] = []


# Why fmusim refuses an FMU it cannot run (stem -> the evidence), beside its message in the table.
SKIP_NOTES: dict[str, str] = {
    "cosima_fmi3_types": "fmusim is right: FMI 3.0's schema (fmi3Variable.xsd) gives a Binary's start values as "
                         "<Start value=\"...\"/> elements, not a start attribute; cosima reads the attribute",
    "Clocks": "cosima refuses it too (FMI 3.0 Clocks and Scheduled Execution are not imported)",
}


FEEDTHROUGH_TABLE = "time,Float64_continuous_input,Float64_discrete_input\n0,0,1\n0.5,1,1\n0.5,1,3\n1,-1,3\n2,2,3\n"
GAIN_TABLE = "time,u\n0,0\n1,2\n"
EVENT_VALUES_TABLE = "time,int_in,bool_in\n0,5,0\n1.5,5,0\n1.5,7,1\n4,7,1\n"

# More cases of an FMU: stem -> [(start values, input table, note, (stop - start, dt) or None)].
EXTRA_CASES: dict[str, list] = {
    "Feedthrough": [([], FEEDTHROUGH_TABLE, "Float64 inputs from a table: a ramp with a kink at 0.5, a held "
                     "value changing at 0.5", None)],
    "cosima_test_gain_bare": [([], GAIN_TABLE, "u from a table (README's u.csv)", None)],
    "cosima_test_event_values": [([], EVENT_VALUES_TABLE, "discrete Integer/Boolean inputs from a table "
                                  "(EXPECTED.md's in_change.csv)", None)],
    "cosima_test_counter": [([("terminate_at", "12.5")], None, "the FMU ends the run at 12.5 (EXPECTED.md)",
                             (15, 1))],
    "cosima_test_reset_params": [([("k", "3"), ("n", "7"), ("flag", "true"), ("label", "set"), ("u", "2")], None,
                                  "start values (EXPECTED.md)", None)],
    "cosima_test_changes_param": [([("k", "100")], None, "the FMU clamps k to 10 itself (EXPECTED.md)", None)],
    "cosima_test_cpp_streams": [([("verbose", "true"), ("u", "0.5")], None, "EXPECTED.md's verbose run", (3, 1))],
}


def fmu_files(folders: dict, shared: str) -> list[tuple[str, str]]:
    """(group, path) of every FMU the suite runs (folders: test_fmus, fmus, as in tools_or_skip)."""
    found = []
    refs = os.path.join(shared, "reference-fmus")
    for sub in ("fmi1/cs", "fmi1/me", "fmi2", "fmi3"):
        folder = os.path.join(refs, sub)
        if os.path.isdir(folder):
            found += [("reference", os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(".fmu")]
    for group, folder in (("test", folders["test_fmus"]), ("export", folders["fmus"]),
                          ("export-fmi3", os.path.join(folders["fmus"], "fmi3"))):
        if os.path.isdir(folder):
            found += [(group, os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(".fmu")]
    return found


def build_cases(folders: dict, shared: str) -> list[Case]:
    cases = []
    for group, path in fmu_files(folders, shared):
        md = read_model_description(path)
        stem = os.path.splitext(os.path.basename(path))[0]
        prefix = {"reference": "ref", "test": "test"}.get(group, "export")
        start = md.start if md.start is not None else 0.0
        stop = md.stop if md.stop is not None else start + 1.0
        dt = md.step if md.step is not None else (stop - start) / 500.0
        notes = []
        if stem in RUN_OVERRIDES:
            duration, step, why = RUN_OVERRIDES[stem]
            stop = start + duration if duration is not None else stop
            dt = step if step is not None else dt
            notes += [why] if why else []
        interfaces = [i for i in md.interfaces if i in ("cs", "me")]
        if not interfaces:
            cases.append(Case(f"{prefix}/{md.version}/{stem} se", group, path, stem, md.version, "se", start, stop, dt,
                              md=md, skip="Scheduled Execution only: fmusim says \"Selected interface type is not "
                              "supported by the FMU.\" (exit 3; its README)"))
            continue
        for start_values, table, note, grid in [([], None, "", None)] + EXTRA_CASES.get(stem, []):
            for interface in interfaces:
                c_stop, c_dt = (start + grid[0], grid[1]) if grid else (stop, dt)
                case = Case("", group, path, stem, md.version, interface, start, c_stop, c_dt, list(start_values),
                            table, notes=notes + ([note] if note else []), md=md)
                case.id = f"{prefix}/{md.version}/{case.label} {interface}"
                if md.version == "1.0" and any(v.alias == "negatedAlias" for v in md.variables):
                    case.fixes.append(negated_alias_fix)
                if stem in ORACLE_FIXES and not start_values and table is None:
                    case.fixes.append(ORACLE_FIXES[stem])
                if stem == "cosima_test_reset_params" and start_values:
                    case.fixes.append(reset_params_fix)
                if (stem, interface) in ORACLE_RUNS:
                    fmu, oracle_interface, why = ORACLE_RUNS[(stem, interface)]
                    case.oracle_run = (fmu.replace("{self}", path).replace("{shared}", shared), oracle_interface, why)
                if stem in BY_DESIGN and not start_values:
                    case.by_design = BY_DESIGN[stem][0]
                    case.notes.append("cosima differs by design: " + BY_DESIGN[stem][1])
                cases.append(case)
    return cases


# --- tables ---------------------------------------------------------------------------------------------


class Table:
    """A result file as rows of {column: value}, columns named without the system's prefix."""

    def __init__(self):
        self.columns: list[str] = []
        self.rows: list[dict] = []
        self.exit_code = 0
        self.message = ""


def parse_value(text: str):
    text = text.strip()
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return text


def read_csv(path: str, prefix: str = "") -> Table:
    table = Table()
    if not os.path.exists(path):
        return table
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None) or []
        names = [h[len(prefix):] if prefix and h.startswith(prefix) else h for h in header]
        keep = []  # fmusim writes a column for each declaration of a duplicated name: the first
        for i, name in enumerate(names):
            if name not in [names[k] for k in keep]:
                keep.append(i)
        table.columns = [names[i] for i in keep]
        for record in reader:
            if record:
                table.rows.append({names[i]: record[i] for i in keep if i < len(record)})
    return table


def typed(table: Table, md: ModelDescription, arrays: dict) -> None:
    """Parses the values (strings stay text); splits fmusim's arrays ("1 2 3" in one column) into the
    element columns cosima writes (arrays: name -> [name[1], ...] in cosima's order, row-major)."""
    kinds = {v.name: kind_of(v.type) for v in md.variables}
    for row in table.rows:
        for name in list(row):
            if name in arrays:
                for element, part in zip(arrays[name], row.pop(name).split()):
                    row[element] = parse_value(part)
            elif kinds.get(name) != "text":
                row[name] = parse_value(row[name])
    columns = []
    for name in table.columns:
        columns += arrays.get(name, [name])
    table.columns = columns


# --- running --------------------------------------------------------------------------------------------


def number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def recorded_variables(md: ModelDescription) -> list[str]:
    names = []
    for v in md.variables:
        if v.causality != "independent" and v.type != "Clock" and v.name not in names:
            names.append(v.name)
    return names


def fmusim_command(case: Case, fmusim: str, out: str, input_file: Optional[str], rtol: float = ME_RTOL,
                   fmu: Optional[str] = None, interface: Optional[str] = None) -> list[str]:
    interface = interface or case.interface
    cmd = [fmusim, "--interface-type", interface]
    cmd += ["--solver", "cvode", "--tolerance", number_text(rtol)] if interface == "me" else ["--solver", "euler"]
    cmd += ["--start-time", number_text(case.start), "--stop-time", number_text(case.stop),
            "--output-interval", number_text(case.dt)]
    for name, value in case.start_values:
        cmd += ["--start-value", name, value]
    if input_file:
        cmd += ["--input-file", input_file]
    for name in recorded_variables(read_model_description(fmu) if fmu else case.md):
        cmd += ["--output-variable", name]
    return cmd + ["--output-file", out, fmu or case.fmu]


def cosima_command(case: Case, cosima: str, out: str, stats: str, input_file: Optional[str],
                   executor: str = "") -> list[str]:
    cmd = [cosima, "run", case.fmu, "--interface", case.interface, "--stop", number_text(case.stop),
           "--dt", number_text(case.dt), "--out", out, "--stats", stats, "--quiet",
           "--set", f'output.variables=["{case.stem}.*"]']
    if case.interface == "me":
        cmd += ["--set", f"systems.{case.stem}.integrator_options.rtol={number_text(ME_RTOL)}"]
    if case.start_values:
        cmd += ["--start-values"] + [f"{n}={v}" for n, v in case.start_values]
    if input_file:
        cmd += ["--input", input_file]
    if executor:
        cmd += ["--executor", executor]
    return cmd


TIMED_OUT: list = []  # fmusim runs killed by the timeout: they leave their folder in /tmp


def remove_fmusim_leftovers(since: float) -> None:
    """fmusim unpacks each FMU into /tmp/fmusim.XXXXXX (hard-coded, not TMPDIR) and removes it at exit,
    but not when it is killed (its README): after a timeout, the folders made since the suite began
    and still there."""
    if not TIMED_OUT:
        return
    for folder in glob.glob("/tmp/fmusim.*"):
        try:
            if os.stat(folder).st_mtime >= since - 1:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            pass


def run(cmd: list[str], cwd: str, env: dict, timeout: float = 120) -> tuple[int, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        TIMED_OUT.append(cmd)
        return 124, (e.stdout or b"").decode("utf-8", "replace") + f"\n(timed out after {timeout} s)"
    except OSError as e:  # e.g. the program being rebuilt at that moment
        return 126, f"error: cannot start {cmd[0]}: {e}"


def relative(text: str, tools: dict) -> str:
    """Paths as seen from the project root."""
    for folder, shown in ((tools["build"], "build"), (tools["shared"], "../shared"), (ROOT, ".")):
        text = text.replace(folder + "/", shown + "/")
    return text


def show(cmd: list[str], tools: dict) -> str:
    """The command as one would type it from the project root."""
    text = relative(" ".join(shlex.quote(c) for c in cmd), tools)
    return re.sub(r"\S*/(conformance|equivalence)-work/[^/ ]*/", "", text)


# --- comparing ------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Result:
    case: Case
    verdict: str = ""         # pass | FAIL | skip | by design | both fail
    max_abs: float = 0.0
    max_rel: float = 0.0
    where: str = ""           # the column and time of max_abs
    bound: str = ""
    oracle_error: Optional[float] = None  # ME: fmusim's own error (rtol 1e-10 vs 1e-12), relative to scale
    rows: int = 0
    columns: int = 0
    problems: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)
    fmusim_cmd: str = ""
    cosima_cmd: str = ""
    seconds: float = 0.0


def one_row_per_time(table: Table, dt: float) -> list[tuple[float, dict, int]]:
    """[(time, row, copies)]: the last of the rows written at one time (before and after an event)."""
    out: list = []
    for row in table.rows:
        t = row.get("time")
        if not isinstance(t, (int, float)):
            continue
        if out and abs(out[-1][0] - t) <= TIME_TOL * dt * max(1.0, abs(t)):
            out[-1] = (out[-1][0], row, out[-1][2] + 1)
        else:
            out.append((float(t), row, 1))
    return out


def scale_of(rows: list, name: str) -> float:
    values = [abs(r.get(name)) for _, r, _ in rows if isinstance(r.get(name), (int, float))
              and math.isfinite(r.get(name))]
    return max(values, default=0.0)


def match_rows(case: Case, ref_rows: list, got_rows: list, problems: list) -> list:
    """Pairs the rows of equal times. Co-Simulation: every row on both sides. Model Exchange: fmusim's
    rows at an event off cosima's output grid (a time written twice, not the last) are left out."""
    me = case.interface == "me"
    pairs, missing_in_cosima, missing_in_oracle, i, j = [], [], [], 0, 0
    while i < len(ref_rows) or j < len(got_rows):
        tr = ref_rows[i][0] if i < len(ref_rows) else math.inf
        tg = got_rows[j][0] if j < len(got_rows) else math.inf
        if math.isfinite(tr) and abs(tr - tg) <= TIME_TOL * case.dt * max(1.0, abs(tr)):
            pairs.append((ref_rows[i], got_rows[j]))
            i, j = i + 1, j + 1
        elif tr < tg:
            if not (me and ref_rows[i][2] > 1 and i < len(ref_rows) - 1):
                missing_in_cosima.append(tr)
            i += 1
        else:
            missing_in_oracle.append(tg)
            j += 1
    for times, where, other in ((missing_in_cosima, "of the oracle missing in cosima", got_rows),
                                (missing_in_oracle, "of cosima missing in the oracle", ref_rows)):
        if times:
            span = f"t = {times[0]!r}" if len(times) == 1 else f"{len(times)} rows, t = {times[0]!r} ... {times[-1]!r},"
            last = other[-1][0] if other else None
            problems.append(f"{'row' if len(times) == 1 else 'rows:'} {span} {where} (its last row: t = {last!r})")
    return pairs


def input_jumps(case: Case) -> set:
    """The times where the case's input table jumps: a time written twice, or a held column (an input
    that is not a continuous Real) changing value."""
    if not case.input_csv:
        return set()
    rows = list(csv.reader(case.input_csv.splitlines()))
    header, data = rows[0], [r for r in rows[1:] if r]
    by_name = {v.name: v for v in case.md.variables}
    held = [i for i, name in enumerate(header) if i > 0 and name in by_name and not (
        kind_of(by_name[name].type) in ("float64", "float32") and by_name[name].variability == "continuous")]
    jumps = set()
    for before, row in zip(data, data[1:]):
        if float(row[0]) == float(before[0]) or any(row[i] != before[i] for i in held):
            jumps.add(float(row[0]))
    return jumps


def compare(case: Case, ref: Table, got: Table) -> Result:
    res = Result(case)
    kinds = {v.name: kind_of(v.type) for v in case.md.variables}
    ref_rows, got_rows = one_row_per_time(ref, case.dt), one_row_per_time(got, case.dt)
    common = [c for c in got.columns if c != "time" and c in ref.columns]
    only_ref = [c for c in ref.columns if c != "time" and c not in got.columns]
    if only_ref and got.columns:
        res.notes.append("recorded by the oracle only: " + ", ".join(only_ref))
    res.columns = len(common)
    me = case.interface == "me"
    me_bound, why = ME_BOUNDS.get(case.stem, (ME_BOUND, ""))
    res.bound = f"{me_bound:g}·scale" if me else f"{CS_REL:g} rel"
    if me and why:
        res.notes.append(f"bound: {why}")
    scales = {c: max(scale_of(ref_rows, c), scale_of(got_rows, c)) for c in common}
    problems: list = []
    pairs = match_rows(case, ref_rows, got_rows, problems)
    res.rows = len(pairs)
    jumps = input_jumps(case) if not me else set()
    if jumps:
        res.notes.append("rows at the input table's jumps not compared (t = " + ", ".join(f"{t:g}" for t in sorted(jumps))
                         + "): fmusim's Co-Simulation loop writes them before it applies the inputs of that time (its "
                         "README), cosima the values after the jump, the right limits (as both write them for Model "
                         "Exchange, where they are compared)")
    first = None
    for (_, rrow, _), (tg, grow, _) in pairs:
        if any(abs(tg - t) <= 1e-9 * max(1.0, abs(t)) for t in jumps):
            continue
        for c in common:
            a, b = rrow.get(c), grow.get(c)
            kind = kinds.get(c.split("[")[0], "float64")
            numeric = isinstance(a, (int, float)) and isinstance(b, (int, float))
            if numeric and kind in ("float64", "float32"):
                a, b = float(a), float(b)
                if math.isnan(a) or math.isnan(b):
                    ok, d = math.isnan(a) and math.isnan(b), (0.0 if math.isnan(a) and math.isnan(b) else math.inf)
                else:
                    d = abs(a - b)
                    if me:
                        ok = d <= me_bound * scales[c]
                    elif kind == "float32":
                        ok = d <= F32_REL * max(abs(a), abs(b)) + CS_FLOOR * scales[c]
                    else:
                        ok = d <= CS_REL * max(abs(a), abs(b)) + CS_FLOOR * scales[c]
                denominator = scales[c] if me else max(abs(a), abs(b))
                if denominator > 0 and math.isfinite(d):
                    res.max_rel = max(res.max_rel, d / denominator)
            else:  # integers, Booleans, enumerations, strings: exactly
                ok = a == b or (numeric and float(a) == float(b))
                d = 0.0 if ok else (abs(float(a) - float(b)) if numeric else math.inf)
                if not ok and numeric:
                    res.max_rel = max(res.max_rel, d / max(abs(float(a)), abs(float(b))))
            if d > res.max_abs:
                res.max_abs, res.where = d, f"{c} at t = {tg!r}"
            if not ok and first is None:
                first = f"t = {tg!r}, column {c}: oracle {rrow.get(c)!r}, cosima {grow.get(c)!r}"
    if first:
        problems.insert(0, "values differ beyond the bound; first: " + first)
    res.problems = problems
    return res


def oracle_error(case: Case, table: Table, finer: Table) -> Optional[float]:
    """ME: fmusim's own error, max over the columns of |run at 1e-10 - run at 1e-12| / scale."""
    a, b = one_row_per_time(table, case.dt), one_row_per_time(finer, case.dt)
    if not a or len(a) != len(b):
        return None
    worst = 0.0
    for name in table.columns:
        if name == "time":
            continue
        scale = max(scale_of(a, name), scale_of(b, name))
        for (_, ra, _), (_, rb, _) in zip(a, b):
            x, y = ra.get(name), rb.get(name)
            if isinstance(x, float) and isinstance(y, float) and scale > 0 and math.isfinite(x - y):
                worst = max(worst, abs(x - y) / scale)
    return worst


# --- one case -------------------------------------------------------------------------------------------


def run_case(case: Case, tools: dict, work: str) -> Result:
    began = time.monotonic()
    if case.skip:
        notes = [SKIP_NOTES[case.stem]] if case.stem in SKIP_NOTES else []
        return Result(case, verdict="skip", problems=[case.skip], notes=notes)
    folder = os.path.join(work, re.sub(r"[^A-Za-z0-9_.=+-]+", "_", case.id))
    os.makedirs(folder, exist_ok=True)
    input_file = None
    if case.input_csv:
        input_file = os.path.join(folder, "input.csv")
        with open(input_file, "w") as f:
            f.write(case.input_csv)
    f_out, f_fine, c_out, c_stats = (os.path.join(folder, n) for n in ("fmusim.csv", "fmusim_fine.csv", "cosima.csv",
                                                                       "cosima.json"))
    oracle_fmu, oracle_interface = (case.oracle_run[0], case.oracle_run[1]) if case.oracle_run else (None, None)
    f_cmd = fmusim_command(case, tools["fmusim"], f_out, input_file, fmu=oracle_fmu, interface=oracle_interface)
    c_cmd = cosima_command(case, tools["cosima"], c_out, c_stats, input_file)
    f_code, f_text = run(f_cmd, folder, tools["env"])
    c_code, c_text = run(c_cmd, folder, tools["env"])
    f_msg = f_text.strip().splitlines()[-1] if f_text.strip() else ""
    c_msg = next((line for line in c_text.splitlines() if "error:" in line),
                 next((line for line in c_text.splitlines() if "error" in line), ""))

    got = read_csv(c_out, case.stem + ".")
    arrays = {v.name: [c for c in got.columns if c.startswith(v.name + "[")] for v in case.md.variables if v.is_array}
    typed(got, case.md, {})
    ref = read_csv(f_out)
    typed(ref, case.md, {k: e for k, e in arrays.items() if e})
    ref.exit_code, got.exit_code = f_code, c_code
    oracle_notes = []
    if case.oracle_run:
        oracle_notes.append(case.oracle_run[2])
        case.oracle = "fmusim, other run"
    for fix in case.fixes:
        note = fix(ref, case)
        if note:
            oracle_notes.append(note)
            case.oracle = "exact" if fix is reset_params_fix else "fmusim, corrected"
    shown = (show(f_cmd, tools), show(c_cmd, tools))
    if ref.exit_code != 0 and c_code != 0:
        # both refuse or both fail: the rows both wrote must agree
        res = compare(case, ref, got)
        res.verdict = "FAIL" if res.problems and res.problems[0].startswith("values differ") else "both fail"
        res.problems = [p for p in res.problems if p.startswith("values differ")]
        res.notes = case.notes + [f"fmusim exits {f_code}: {f_msg}", f"cosima exits {c_code}: {c_msg}"] + res.notes
    elif ref.exit_code != 0:
        res = Result(case, verdict="skip", problems=[f"fmusim cannot run it (exit {f_code}): {f_msg}"])
        res.notes = case.notes + [f"cosima runs it (exit {c_code}, {len(got.rows)} rows)"]
        res.notes += [SKIP_NOTES[case.stem]] if case.stem in SKIP_NOTES else []
    else:
        res = compare(case, ref, got)
        res.notes = case.notes + oracle_notes + res.notes
        if c_code != 0:
            res.problems.insert(0, f"cosima exits {c_code}: {c_msg or 'no message'}")
        if case.by_design:
            agree = not any(p.startswith("values differ") for p in res.problems)
            res.verdict = "by design" if c_code != 0 and re.search(case.by_design, c_text) and agree else "FAIL"
        else:
            res.verdict = "FAIL" if res.problems else "pass"
        if case.interface == "me" and not case.oracle_run:
            fine_cmd = fmusim_command(case, tools["fmusim"], f_fine, input_file, rtol=ME_REF_RTOL)
            if run(fine_cmd, folder, tools["env"])[0] == 0:
                fine = read_csv(f_fine)
                typed(fine, case.md, {k: e for k, e in arrays.items() if e})
                for fix in case.fixes:
                    fix(fine, case)
                res.oracle_error = oracle_error(case, ref, fine)
    res.fmusim_cmd, res.cosima_cmd = shown
    res.seconds = time.monotonic() - began
    return res


# --- the suite ------------------------------------------------------------------------------------------


def locate(args) -> dict:
    """cosima and the FMU folders: --cosima, --test-fmus, --fmus, by default in --build."""
    build = os.path.abspath(args.build)
    return {"build": build, "cosima": os.path.abspath(args.cosima or os.path.join(build, "cosima")),
            "test_fmus": os.path.abspath(args.test_fmus or os.path.join(build, "test_fmus")),
            "fmus": os.path.abspath(args.fmus or os.path.join(build, "fmus")),
            "shared": os.path.abspath(args.shared or os.path.join(ROOT, "..", "shared"))}


def add_location_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build folder (default: ROOT/build)")
    parser.add_argument("--cosima", default=None, help="the cosima program (default: BUILD/cosima)")
    parser.add_argument("--test-fmus", default=None, help="the tests' C FMUs (default: BUILD/test_fmus)")
    parser.add_argument("--fmus", default=None, help="the project's exported FMUs (default: BUILD/fmus)")
    parser.add_argument("--shared", default=None, help="default: ../shared beside the project root")


def tools_or_skip(args) -> dict:
    """The programs and folders, or exit 77 (CTest's skip) saying why when ../shared or fmusim is not
    usable."""
    tools = locate(args)
    shared = tools["shared"]
    fmusim = os.path.join(shared, "tools", "fmusim", "bin", "fmusim")
    if not os.path.isdir(shared):
        print(f"skip: {shared} is not here (a clone without ../shared): no fmusim, no Reference FMUs")
        sys.exit(SKIP_CODE)
    if not os.path.isfile(fmusim):
        print(f"skip: {fmusim} is not here")
        sys.exit(SKIP_CODE)
    try:
        p = subprocess.run([fmusim, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
        version = p.stdout.decode("utf-8", "replace").strip()
        if p.returncode != 0:
            raise OSError(f"exit {p.returncode}: {version}")
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"skip: {fmusim} does not run ({e}); its README: it needs libxml2")
        sys.exit(SKIP_CODE)
    if not os.access(tools["cosima"], os.X_OK):
        print(f"error: {tools['cosima']} is not built")
        sys.exit(1)
    return dict(tools, fmusim=fmusim, fmusim_version=version)


def select(cases: list, patterns: list) -> list:
    return [c for c in cases if not patterns or any(fnmatch.fnmatch(c.id, f"*{p}*") for p in patterns)]


def fmt(x: Optional[float]) -> str:
    if x is None:
        return "–"
    return "0" if x == 0 else "∞" if math.isinf(x) else f"{x:.2g}"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report_markdown(results: list, tools: dict, elapsed: float, command: str) -> str:
    counts: dict = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    out = ["# Conformance: cosima against fmusim, one FMU at a time", "",
           f"Regenerate with `{command}` (from the project root, after building; the same suite runs as "
           "`ctest -L conformance`). Do not edit by hand.", "",
           f"Oracle: `{tools['fmusim_version']}`, the FMI project's own importer (`../shared/tools/fmusim`; its "
           "README says how it runs). Every FMU of `../shared/reference-fmus`, `build/test_fmus`, `build/fmus` and "
           "`build/fmus/fmi3` runs alone, by each interface it has, under both programs with the same start, stop, "
           "output interval (dt), start values and input table, every variable recorded (cosima: "
           "`--set 'output.variables=[\"NAME.*\"]'`, fmusim: `--output-variable` for each). The table compares every "
           "variable both record (columns) at every row both write (rows; fmusim's rows repeated at an event: the "
           "last, the values after it).", "",
           "- **Co-Simulation**: the same numbers, to fmusim's last printed digit: Float64 "
           f"|Δ| ≤ {CS_REL:g}·max(|a|, |b|) + {CS_FLOOR:g}·(the column's largest \\|value\\|) (fmusim writes "
           f"`%.16g`); Float32 ≤ {F32_REL:g} relative (`%.7g`); integers, Booleans, enumerations and strings "
           "exactly; the same rows and the same last time. *rel.* is relative to max(|a|, |b|). FMI 1.0: fmusim's "
           "loop passes communicationStepSize = dt itself on the grid start + n·dt (its FMI 2.0/3.0 loops and cosima "
           "pass t(n+1) − t(n), which differs from dt by an ulp at some points), so FMI 1.0 FMUs that integrate "
           "inside fmiDoStep differ in the last digits (|Δ| ≤ 1e-13, within the floor: the large *rel.* of values "
           "crossing 0).",
           f"- **Model Exchange**: fmusim `--solver cvode --tolerance {ME_RTOL:g}` (BDF, atol = rtol·nominal) "
           f"against cosima's CVODE, `--set systems.NAME.integrator_options.rtol={ME_RTOL:g}` (atol 1e-2·rtol): "
           f"|Δ| ≤ {ME_BOUND:g}·scale, scale = the column's largest \\|value\\| in either run; *rel.* is "
           "|Δ|/scale. Compared at cosima's output times; fmusim's extra rows at events between them are not; both "
           "runs must end at the same time. *fmusim err* is fmusim's own error, its run at 1e-10 against its run at "
           f"{ME_REF_RTOL:g}, relative to scale: the bound is met by the oracle with a margin. Why {ME_BOUND:g}: "
           "two CVODE runs at rtol 1e-10 differ by their global errors, a multiple of rtol (growth over the run, "
           "restarts at every output point and event): up to 1e-7 of scale here (fmusim err), so 1e-6 leaves a "
           "factor ≥ 10, and still fails a wrong import (a held input, an event at another time, a discrete state "
           "off by one).",
           "- **oracle**: `fmusim` as it runs; `fmusim, corrected` / `exact` / `fmusim, other run` where fmusim is "
           "wrong or cannot run the FMU, said in the notes (`tests/conformance/conformance.py`: ORACLE_FIXES, "
           "ORACLE_RUNS, each with the evidence).",
           "- **verdict**: `pass`; `FAIL`; `skip` (fmusim cannot run it, its reason given); `both fail` (both "
           "stop with an error, as the FMU is made to; the rows both wrote agree); `by design` (cosima stops on "
           "purpose where fmusim goes on; the rows both wrote agree).", "",
           f"**{len(results)} cases: " + ", ".join(f"{counts[k]} {k}" for k in ("pass", "FAIL", "skip", "both fail",
                                                                               "by design") if k in counts)
           + f"** ({elapsed:.0f} s, 2 jobs).", "",
           "| FMU | FMI | interface | stop / dt | oracle | rows × columns | max \\|Δ\\| | rel. | fmusim err | bound "
           "| verdict | notes |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.case
        note = "; ".join(r.notes)
        if r.verdict not in ("pass",) and r.problems:
            note = "**" + r.problems[0] + "**" + ("; " + note if note else "")
        out.append(f"| {c.group}: {cell(c.label)} | {c.version} | {c.interface} | {c.stop:g} / {c.dt:g} | {c.oracle} | "
                   f"{r.rows} × {r.columns} | {fmt(r.max_abs)} | {fmt(r.max_rel)} | {fmt(r.oracle_error)} | "
                   f"{r.bound or '–'} | {r.verdict} | {cell(relative(note, tools))} |")
    out.append("")
    failures = [r for r in results if r.verdict == "FAIL"]
    if failures:
        out += ["## Failures", ""]
        for r in failures:
            out.append(f"### {r.case.id}")
            out.append("")
            out += [f"- {relative(p, tools)}" for p in r.problems[:5]]
            out += [f"- diagnosis: {text}" for pattern, text in DIAGNOSES if re.search(pattern, r.case.id)]
            if len(r.problems) > 5:
                out.append(f"- … and {len(r.problems) - 5} more")
            out += ["", "```sh", r.cosima_cmd, r.fmusim_cmd, "```", ""]
    skipped = [r for r in results if r.verdict == "skip"]
    if skipped:
        out += ["## Skipped", ""] + [f"- {r.case.id}: " + relative("; ".join(r.problems + r.notes), tools)
                                     for r in skipped] + [""]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description="cosima against fmusim, one FMU at a time")
    add_location_options(parser)
    parser.add_argument("--docs", default=None, help="write DOCS/conformance.md")
    parser.add_argument("--only", action="append", default=[], help="the cases whose id contains this (a glob)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", default=None, help="keep the runs' files in this folder")
    parser.add_argument("--list", action="store_true", help="list the cases")
    args = parser.parse_args()
    tools = tools_or_skip(args)
    cases = select(build_cases(tools, tools["shared"]), args.only)
    if args.list:
        for c in cases:
            print(f"{c.id}\tstop {c.stop:g} dt {c.dt:g}\t{c.fmu}")
        return 0
    scratch = args.keep or tempfile.mkdtemp(prefix="conformance-")
    work = os.path.join(scratch, "conformance-work")
    env = dict(os.environ, TMPDIR=os.path.join(work, "tmp"))  # cosima unpacks FMUs there
    os.makedirs(env["TMPDIR"], exist_ok=True)
    tools["env"] = env
    began, wall = time.monotonic(), time.time()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda c: run_case(c, tools, work), cases))
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        remove_fmusim_leftovers(wall)
    elapsed = time.monotonic() - began
    for r in results:
        detail = "" if r.verdict == "pass" or not r.problems else "  " + r.problems[0]
        print(f"{r.verdict:9s} {r.case.id:58s} {r.rows:5d}x{r.columns:<3d} max|Δ| {fmt(r.max_abs):7s} rel "
              f"{fmt(r.max_rel):7s} fmusim err {fmt(r.oracle_error):7s} ({r.bound}){detail}")
    failures = [r for r in results if r.verdict == "FAIL"]
    for r in failures:
        print(f"\nFAIL {r.case.id}")
        for p in r.problems[:5]:
            print(f"  {p}")
        print(f"  {r.cosima_cmd}\n  {r.fmusim_cmd}")
    counts: dict = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(f"\n{len(results)} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()) + f" in {elapsed:.1f} s")
    if args.docs:
        command = "python3 tests/conformance/conformance.py --build build --docs " + os.path.relpath(args.docs, ROOT)
        path = os.path.join(args.docs, "conformance.md")
        with open(path, "w") as f:
            f.write(report_markdown(results, tools, elapsed, command))
        print(f"wrote {path}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
