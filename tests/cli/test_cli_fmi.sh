#!/usr/bin/env bash
# `cosima info` and FMU scenarios from the command line: messages that name the file, non-zero
# exits, and no unpacked FMU left behind.
set -u
cosima=$1
examples=$2
fmus=$3
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1
echo "not a zip" > broken.fmu
check info-good 0 "canGetAndSetFMUstate=true" -- "$cosima" info "$fmus/b3_prey.fmu"
check info-not-zip 1 "'broken.fmu' is not an FMU" -- "$cosima" info broken.fmu
check info-missing 1 "cannot open FMU 'missing.fmu'" -- "$cosima" info missing.fmu
check run-fmu-scenario 0 "macro-steps 2000" -- "$cosima" run "$examples/b4_two_mass_fmu.json" --out fmu.csv
check fmu-not-found 1 "FMU 'nothere.fmu' not found" -- "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --set systems.prey.fmu=nothere.fmu
check fmu-bad-parameter 1 "has no variable 'alpah'" -- "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --set systems.prey.parameters.alpah=1
check monolithic-refuses-fmu 1 "system 'prey' is a black box" -- "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --method monolithic
if [ -n "$(ls -A "$TMPDIR")" ]; then echo "FAIL temporary files left: $(ls "$TMPDIR")"; failures=$((failures + 1)); fi
echo "cli.fmi: $failures failure(s)"
[ "$failures" -eq 0 ]
