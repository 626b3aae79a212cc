#!/usr/bin/env bash
# clang-tidy over the project's sources with the checks of .clang-tidy. It needs a compilation
# database with one entry per source: the build's lists unity batches, so a tree configured without
# them is made here (configure only, nothing is compiled): BUILD-tidy.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}-tidy
cmake -S . -B "$build" -DCOSIMA_UNITY_BUILD=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# the tests too, but the fuzz harnesses, which only a -DCOSIMA_FUZZ=ON tree compiles, and the
# house's include views, whose upward include must not compile (house.build_upward_include)
files=$(git ls-files 'src/*.cpp' 'models/*.cpp' 'bench/*.cpp' 'python/*.cpp' 'tests/*.cpp' ':!tests/fuzz/*' \
  ':!tests/house/views/*')
echo "$files" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null | grep -E "warning:|error:" | sort -u
