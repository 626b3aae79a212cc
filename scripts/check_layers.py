#!/usr/bin/env python3
"""The layers of src/, bottom up: a file may include headers of its own folder and of the layers
below its own, never above and never a sibling folder of its layer (so no folder-level cycle can
form). Each folder's code lives in its layer's namespace (namespace_of). Run by CI (`ctest -L
house`); prints each upward include, each foreign namespace and each include of a front end past
its facade (FRONT_ENDS), with its file and line.

  python3 scripts/check_layers.py [ROOT]
"""
import pathlib
import re
import sys

# bottom up; the folders of one layer may not include each other
LAYERS = [
    ["core"],
    ["io"],
    ["system"],                    # the System contract, with system/native, system/source, system/emulation
    ["fmi/common"],                # archive, library loading, description model, the version-neutral instance
    ["fmi/v1", "fmi/v2", "fmi/v3"],  # one folder per FMI version: its C API, instance, cs/ system
    ["fmi"],                       # fmu_factory, fmu_info: the only code that picks a version
    ["model", "nonlinear", "extrapolation"],
    ["estimator"],
    ["exec"],                      # executors and the orders they carry out
    ["methods"],                   # coupling methods, their registry
    ["observer", "plot"],
    ["simulation", "ssp"],         # the driver; SSP packages read into scenario documents
    ["scenario"],                  # scenarios: parse, build models and executors, run, export
    ["api"],                       # the front ends' facade: api/cosima.hpp, Launch
    ["export"],                    # the FMU export kit (linked into the project's FMUs)
    ["cli"],
]
# the front ends and the folders they may include: the facade (api/cosima.hpp) and core/, and for
# the command line the benches it runs (bench/ itself measures the layers and includes them)
FRONT_ENDS = {"src/cli": {"api", "core", "bench"}, "python": {"api", "core"}}
# folders outside src/ that src/ may include, with the layer they sit on
EXTERNAL = {"models": "fmi", "bench": "scenario"}


def folder_of(path: str) -> str:
    """The layer folder of a path relative to src/ ("fmi/v2/cs/x.hpp" → "fmi/v2")."""
    parts = path.split("/")
    if parts[0] == "fmi" and len(parts) > 2 and parts[1] in ("common", "v1", "v2", "v3"):
        return "fmi/" + parts[1]
    return parts[0]


def namespace_of(folder: str) -> str | None:
    """The namespace a folder's code is declared in: core and the System contract are the shared
    vocabulary (cosima), every FMI folder is cosima::fmi, the export kit cosima::fmu_export, the
    command line none; every other folder is cosima::<folder>."""
    if folder in ("core", "system"):
        return "cosima"
    if folder == "fmi" or folder.startswith("fmi/"):
        return "cosima::fmi"
    return {"export": "cosima::fmu_export", "cli": None}.get(folder, "cosima::" + folder)


def namespace_problem(relative: str, number: int, here: str, line: str, layer_namespaces: set) -> str | None:
    """Why a top-level `namespace cosima...` line (its number) of src/<relative> is outside its folder's
    namespace; None when it is inside."""
    match = re.match(r"namespace (cosima(?:::\w+)*) \{", line)
    if not match:
        return None
    found, wanted = match.group(1), namespace_of(here)
    inside = wanted is not None and (found == wanted or found.startswith(wanted + "::"))
    if inside and wanted == "cosima" and found != "cosima":
        inside = "cosima::" + found.split("::")[1] not in layer_namespaces  # not another layer's
    if inside:
        return None
    return f"src/{relative}:{number}: declares namespace {found}, outside its folder's {wanted or 'global namespace'}"


def front_end_problems(root: pathlib.Path, include: re.Pattern) -> list:
    """Each include of a front end (FRONT_ENDS) that goes past the facade."""
    problems = []
    for folder, allowed in FRONT_ENDS.items():
        for file in sorted((root / folder).rglob("*")):
            if file.suffix not in (".hpp", ".cpp"):
                continue
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                match = include.match(line)
                if match and "/" in match.group(1) and match.group(1).split("/")[0] not in allowed:
                    problems.append(f"{file.relative_to(root).as_posix()}:{number}: includes \"{match.group(1)}\", "
                                    f"past the facade (a front end includes api/cosima.hpp and "
                                    f"{', '.join(f + '/' for f in sorted(allowed - {'api'}))})")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    src = root / "src"
    rank = {folder: level for level, layer in enumerate(LAYERS) for folder in layer}
    for folder, below in EXTERNAL.items():
        rank[folder] = rank[below] + 0.5
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    layer_namespaces = {namespace_of(folder) for layer in LAYERS for folder in layer} - {"cosima", None}
    problems = []
    for file in sorted(src.rglob("*")):
        if file.suffix not in (".hpp", ".cpp", ".h"):
            continue
        relative = file.relative_to(src).as_posix()
        here = folder_of(relative)
        if here not in rank:
            problems.append(f"{relative}: folder '{here}' is in no layer of scripts/check_layers.py")
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if problem := namespace_problem(relative, number, here, line, layer_namespaces):
                problems.append(problem)
            match = include.match(line)
            if not match:
                continue
            target = match.group(1)
            there = folder_of(target)
            if there == here or there not in rank:
                continue  # its own folder, or not a cosima header (test support, generated)
            if rank[there] >= rank[here]:
                what = "a sibling of its layer" if rank[there] == rank[here] else "a layer above"
                problems.append(f"src/{relative}:{number}: includes \"{target}\" from {what} ('{there}' over '{here}')")
    problems += front_end_problems(root, include)
    for problem in problems:
        print(problem)
    print(f"check_layers: {len(problems)} upward include(s), foreign namespace(s) or front-end include(s) past the facade")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
