#!/usr/bin/env bash
# Installs the Debian 12 packages cosima builds with. Idempotent: installs only what is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  ccache                 # rebuilds in seconds (CMake uses it when present)
  libeigen3-dev          # linear algebra
  libsundials-dev        # CVODE (stiff native systems, monolithic references)
  petsc-dev              # SNES for the Jacobian-free methods
  libopenmpi-dev openmpi-bin  # distributed execution
  libminizip-dev zlib1g-dev  # FMU and SSP archives (zlib only: cosima loads no crypto library)
  libzip-dev zip         # the archives the tests and the export kit write (a second implementation)
  libpugixml-dev         # modelDescription.xml
  nlohmann-json3-dev     # scenarios, stats
  libfmt-dev             # message formatting (GCC 12 has no <format>)
  libgtest-dev libgmock-dev  # tests
  gnuplot-nox            # plots: cosima plot, docs/
  libcli11-dev           # the command line (src/cli/)
  python3-scipy          # tests: MAT results read back with scipy.io.loadmat
  python3-matplotlib     # cosima.plot() in Python (optional for users; its test needs it)
  pybind11-dev python3-dev python3-numpy  # the Python module (python/), run by Debian's /usr/bin/python3
  clang-14 libfuzzer-14-dev libclang-rt-14-dev  # make fuzz: libFuzzer harnesses (tests/fuzz/)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "bootstrap: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
