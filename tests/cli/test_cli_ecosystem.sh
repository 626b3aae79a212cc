#!/usr/bin/env bash
# The command line a user of FMPy, OMSimulator or libcosim expects: per-command help, a
# version, exit codes 0 / 1 / 2, usage errors that name the flag, results that say where they went,
# plots, and a progress line on a terminal.
set -u
cosima=$1
examples=$2
sanitized=${3:-0}  # 1: an ASan build, ten times slower a step — the long run is shorter
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1
b3="$examples/b3_lotka_volterra.json"

check version 0 "^cosima [0-9]+\.[0-9]+\.[0-9]+$" -- "$cosima" --version
check run-help 0 "--executor TEXT:EXECUTOR=sequential" -- "$cosima" run --help
check run-help-methods 0 "^      jfm +anderson +the solver" -- "$cosima" run --help
check plot-help 0 "--reference" -- "$cosima" plot --help
check no-command 2 "subcommand is required" -- "$cosima"
check unknown-command 2 "unknown command 'fly' \(commands: run, export-ssp, models" -- "$cosima" fly
check dt-nan 2 "^cosima: --dt: must be a finite number > 0, got 'nan'" -- "$cosima" run "$b3" --dt nan
check stop-inf 2 "^cosima: --stop: must be a finite number" -- "$cosima" run "$b3" --stop inf
check timeout-negative 2 "^cosima: --fmu-timeout: must be a finite number > 0" -- "$cosima" run "$b3" --fmu-timeout -1
check missing-scenario 2 "scenario is required" -- "$cosima" run
check runtime-error-is-1 1 "cannot open scenario 'nowhere.json'" -- "$cosima" run nowhere.json

# without --out the results still go to ./<scenario>.csv, but never silently
check results-announced 0 "results go to 'b3_lotka_volterra.csv' \(--out chooses" -- "$cosima" run "$b3" --stop 1 --quiet
check results-replaced 0 "replacing the file there" -- "$cosima" run "$b3" --stop 1 --quiet

# outputs that are one file, or the scenario itself, are refused before anything is written
cp "$b3" own.json
check same-out-and-stats 2 "--out and --stats name the same file 'r2.csv'" -- "$cosima" run own.json --stop 1 --out r2.csv --stats r2.csv
check out-is-the-scenario 2 "--out 'own.json' is the scenario being run" -- "$cosima" run own.json --stop 1 --out own.json
if cmp -s "$b3" own.json && [ ! -e r2.csv ]; then echo "ok   clashing-outputs-write-nothing"; else
  echo "FAIL a refused run wrote over its scenario or an output"; failures=$((failures + 1)); fi
# ... nor one that is any file the run reads: --input, an FMU (also with output.format csv), a CSV
# source, an SSV of an SSD folder; nor two outputs on standard output
fmus=$(dirname "$cosima")/fmus
cp "$fmus/b3_prey.fmu" prey.fmu
printf 'time,q\n0,1\n1,1\n' > in.csv
cp in.csv in.before
cp prey.fmu prey.before
check out-is-the-input 2 "--out 'in.csv' is 'in.csv', which the run reads" -- "$cosima" run prey.fmu --input in.csv --stop 1 --out in.csv
check steps-is-the-input 2 "--steps './in.csv' is 'in.csv', which the run reads" -- \
  "$cosima" run prey.fmu --input in.csv --stop 1 --out r3.csv --steps ./in.csv
check two-on-stdout 2 "--out and --stats both write to standard output" -- "$cosima" run prey.fmu --input in.csv --stop 1 --out - --stats -
sed "s|\"b3_prey.fmu\"|\"$PWD/prey.fmu\"|" "$examples/b3_lotka_volterra_fmu.json" > own_fmu.json
check out-is-an-fmu 2 "--out 'prey.fmu' is '.*/prey.fmu', which the run reads" -- \
  "$cosima" run own_fmu.json --out prey.fmu --set output.format='"csv"'
echo '{"stop": 1, "method": {"type": "jacobi", "dt": 0.1}, "systems": {"src": {"csv": "in.csv"}}}' > source.json
check out-is-a-csv-source 2 "--out 'in.csv' is '.*in.csv', which the run reads" -- "$cosima" run source.json --out in.csv
"$cosima" export-ssp own_fmu.json -o own.ssp >/dev/null
mkdir -p with_ssv && (cd with_ssv && unzip -q ../own.ssp)
cat > with_ssv/resources/prey.ssv <<'SSV'
<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" version="1.0" name="prey set">
  <ssv:Parameters><ssv:Parameter name="solver_kind"><ssv:Integer value="0"/></ssv:Parameter></ssv:Parameters>
</ssv:ParameterSet>
SSV
sed -i '0,/<ssd:Elements>/s|<ssd:Elements>|<ssd:ParameterBindings><ssd:ParameterBinding source="resources/prey.ssv" prefix="prey."/></ssd:ParameterBindings><ssd:Elements>|' \
  with_ssv/SystemStructure.ssd
cp with_ssv/resources/prey.ssv ssv.before
check stats-is-an-ssv 2 "--stats 'with_ssv/resources/prey.ssv' is '.*prey.ssv', which the run reads" -- \
  "$cosima" run with_ssv --stop 1 --out r4.csv --stats with_ssv/resources/prey.ssv
# an OSP configuration (a folder): OspSystemStructure.xml and the OspModelDescription files it reads
mkdir -p osp && cp prey.fmu osp/prey.fmu && cp "$fmus/b3_predator.fmu" osp/predator.fmu
cat > osp/OspSystemStructure.xml <<'OSP'
<?xml version="1.0" encoding="utf-8" ?>
<OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
  <StartTime>0.0</StartTime><EndTime>1.0</EndTime><BaseStepSize>0.01</BaseStepSize>
  <Simulators><Simulator name="prey" source="prey.fmu"/><Simulator name="predator" source="predator.fmu"/></Simulators>
  <Connections>
    <VariableGroupConnection><VariableGroup simulator="prey" name="out"/><VariableGroup simulator="predator" name="in"/></VariableGroupConnection>
    <VariableConnection><Variable simulator="predator" name="q"/><Variable simulator="prey" name="q"/></VariableConnection>
  </Connections>
</OspSystemStructure>
OSP
for side in "prey out" "predator in"; do
  cat > "osp/${side% *}_OspModelDescription.xml" <<OMD
<?xml version="1.0" encoding="utf-8" ?>
<OspModelDescription xmlns="https://open-simulation-platform.com/OspModelDescription/1.0.0" version="1.0">
  <VariableGroups><Generic name="${side#* }"><Variable ref="p"/></Generic></VariableGroups>
</OspModelDescription>
OMD
done
cp osp/predator_OspModelDescription.xml omd.before
cp osp/OspSystemStructure.xml osp.before
check osp-runs 0 "macro-steps" -- "$cosima" run osp --out r5.csv
check out-is-an-osp-model-description 2 "--out 'osp/predator_OspModelDescription.xml' is '.*predator_OspModelDescription.xml', which the run reads" -- \
  "$cosima" run osp --out osp/predator_OspModelDescription.xml --set output.format='"csv"'
check stats-is-the-osp-configuration 2 "--stats 'osp/OspSystemStructure.xml' is '.*OspSystemStructure.xml', which the run reads" -- \
  "$cosima" run osp --out r6.csv --stats osp/OspSystemStructure.xml
if cmp -s in.csv in.before && cmp -s prey.fmu prey.before && cmp -s with_ssv/resources/prey.ssv ssv.before \
   && cmp -s osp/predator_OspModelDescription.xml omd.before && cmp -s osp/OspSystemStructure.xml osp.before && [ ! -e r6.csv ] \
   && [ ! -e r3.csv ] && [ ! -e r4.csv ]; then echo "ok   outputs-over-inputs-write-nothing"; else
  echo "FAIL a refused run wrote over what it reads or an output"; failures=$((failures + 1)); fi

# --out - streams the results to standard output (the summary goes to standard error); a reader that
# closes the pipe ends the run with the write error, not after computing it whole with exit 0
"$cosima" run own.json --stop 0.05 --out - 2>/dev/null >stdout.csv
if head -1 stdout.csv | grep -q '^time,prey.p,predator.q$' && [ ! -e ./- ]; then echo "ok   out-dash-is-stdout"; else
  echo "FAIL --out - did not write the results to standard output"; failures=$((failures + 1)); fi
"$cosima" run own.json --stop 500 --dt 1e-3 --out - 2>pipe.err | head -c 100 >/dev/null
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ] && grep -q "standard output.*Broken pipe" pipe.err; then echo "ok   closed-pipe-is-an-error"; else
  echo "FAIL a closed stdout pipe gave exit $status: $(cat pipe.err)"; failures=$((failures + 1)); fi

# SSP export of the B3 FMU scenario, run back: the same results, bitwise
check export-ssp 0 "ssp b3.ssp" -- "$cosima" export-ssp "$examples/b3_lotka_volterra_fmu.json" -o b3.ssp --set stop=2
# a failed export never removes what is at -o: a path that is not a regular file is refused and stays
mkfifo not_a_file.ssp
check export-ssp-not-regular 1 "not_a_file.ssp.*is not a regular file" -- "$cosima" export-ssp "$examples/b3_lotka_volterra_fmu.json" -o not_a_file.ssp
if [ -p not_a_file.ssp ] && [ -z "$(find . -name '.*cosima-*')" ]; then echo "ok   export-ssp-keeps-what-is-there"; else
  echo "FAIL a failed export-ssp removed its -o path or left a temporary file"; failures=$((failures + 1)); fi
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --set stop=2 --out from_json.csv --quiet
check run-ssp 0 "macro-steps" -- "$cosima" run b3.ssp --out from_ssp.csv
if cmp -s from_json.csv from_ssp.csv; then echo "ok   ssp-round-trip-bitwise"; else
  echo "FAIL the exported SSP gives other results"; failures=$((failures + 1)); fi
# the same package unpacked: run as a folder, and as its bare SystemStructure.ssd
mkdir -p unpacked && (cd unpacked && unzip -q ../b3.ssp)
check run-ssd-folder 0 "macro-steps" -- "$cosima" run unpacked --out from_folder.csv
check run-bare-ssd 0 "macro-steps" -- "$cosima" run unpacked/SystemStructure.ssd --out from_ssd.csv
if cmp -s from_json.csv from_folder.csv && cmp -s from_json.csv from_ssd.csv; then echo "ok   ssd-folder-and-file-bitwise"; else
  echo "FAIL the unpacked SSD gives other results"; failures=$((failures + 1)); fi
mkdir -p empty_folder
check folder-without-ssd 1 "'empty_folder' is a directory without a SystemStructure.ssd" -- "$cosima" run empty_folder

# plots: a result against a reference, and a step log
check run-plot 0 "plot +run.png" -- "$cosima" run "$b3" --stop 5 --out r.csv --steps s.csv --plot run.png
"$cosima" run "$b3" --stop 5 --method monolithic --out ref.csv --quiet
check plot-reference 0 "plot overlay.png" -- "$cosima" plot r.csv prey.p --reference ref.csv --steps s.csv -o overlay.png
check plot-svg 0 "plot all.svg" -- "$cosima" plot r.csv -o all.svg
for image in run.png overlay.png; do
  if [ "$(head -c 8 "$image" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "FAIL $image is not a PNG"; failures=$((failures + 1))
  fi
done
grep -q "<svg" all.svg || { echo "FAIL all.svg is not an SVG"; failures=$((failures + 1)); }
check plot-unknown-column 1 "'r.csv' has no column 'prey.x' \(columns: prey.p, predator.q\)" -- "$cosima" plot r.csv prey.x -o x.png
check plot-bad-format 1 "plot 'x.jpg': give a .png or .svg file" -- "$cosima" plot r.csv -o x.jpg

# progress: on a (pseudo-)terminal a live line; --quiet silences it; --progress forces it elsewhere
long_dt=1e-5
[ "$sanitized" = 1 ] && long_dt=1e-4
long=(run "$b3" --dt "$long_dt" --stop 30 --set output.interval=0.1 --out long.csv)
script -qfec "$(printf '%q ' "$cosima" "${long[@]}")" /dev/null >pty.out 2>&1
if grep -qE "t = [0-9.]+ / 30 +[0-9.]+ %  [0-9.e+]+ steps/s  ETA" pty.out; then echo "ok   progress-on-terminal"; else
  echo "FAIL progress-on-terminal:"; cat -v pty.out; failures=$((failures + 1)); fi
script -qfec "$(printf '%q ' "$cosima" "${long[@]}" --quiet)" /dev/null >quiet.out 2>&1
if grep -q "steps/s" quiet.out; then echo "FAIL progress despite --quiet:"; cat -v quiet.out; failures=$((failures + 1)); else
  echo "ok   quiet-has-no-progress"; fi
"$cosima" "${long[@]}" >plain.out 2>&1
if grep -q "steps/s" plain.out; then echo "FAIL progress into a file without --progress"; failures=$((failures + 1)); else
  echo "ok   no-progress-off-terminal"; fi
# off a terminal a line every second and one at the end: a short run has its last line
check progress-forced 0 "t = 30 / 30  100.0 %  [0-9.e+]+ steps/s  ETA 0 s" -- "$cosima" "${long[@]}" --progress --quiet
check progress-forced-short 0 "t = 0.1 / 0.1  100.0 %" -- "$cosima" run "$b3" --stop 0.1 --out short.csv --progress --quiet

# "did you mean": commands, flags, methods, method options, scenario keys, systems, ports, recorded variables
check suggest-command 2 "unknown command 'rnu' .*did you mean 'run'[?]" -- "$cosima" rnu "$b3"
check suggest-flag 2 "did you mean '--method'[?]" -- "$cosima" run "$b3" --mehtod jacobi
check suggest-method 1 "unknown method 'jacobbi' .*did you mean 'jacobi'[?]" -- "$cosima" run "$b3" --method jacobbi --out s.csv
check suggest-option 1 "unknown method option 'method.epsilonn' .*did you mean 'epsilon'[?]" -- \
  "$cosima" run "$b3" --method ifosmondi --set method.epsilonn=1e-3 --out s.csv
check suggest-key 1 "unknown key 'stpo' .*did you mean 'stop'[?]" -- "$cosima" run "$b3" --set stpo=1 --out s.csv
check suggest-system 1 "system 'prei' .*did you mean 'prey'[?]" -- "$cosima" run "$b3" --set systems.prei.parameters.a=1 --out s.csv
check suggest-variable 1 "has no output, state or variable 'pp'; did you mean 'p'[?]" -- "$cosima" run "$b3" --set 'output.variables=["prey.pp"]' --out s.csv
check suggest-none 1 "unknown method 'zzzzzzzz' .*auto:fast[)]$" -- "$cosima" run "$b3" --method zzzzzzzz --out s.csv

echo "cli.ecosystem: $failures failure(s)"
[ "$failures" -eq 0 ]
