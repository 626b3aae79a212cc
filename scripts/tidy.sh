#!/usr/bin/env bash
# clang-tidy over the project's sources with the checks of .clang-tidy; needs build/compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
files=$(git ls-files 'src/*.cpp' 'models/*.cpp' 'bench/*.cpp')
echo "$files" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null | grep -E "warning:|error:" | sort -u
