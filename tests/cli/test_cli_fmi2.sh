#!/usr/bin/env bash
# FMI 2.0 from the command line with the strict test FMUs (tests/fmus/): exit status 1 and a message
# naming the file, system and variable for every bad input, and no unpacked FMU left behind.
set -u
cosima=$1
fmus=$2
examples=$3
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1

cat > types.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.25},
 "systems": {"a": {"fmu": "$fmus/cosima_test_types.fmu"}, "b": {"fmu": "$fmus/cosima_test_types.fmu"}},
 "inputs": {"a.u_real": 1.5, "a.u_int": 5, "a.u_bool": false, "a.u_mode": 3, "a.u_text": "x"},
 "connections": [["a.y_real", "b.u_real"], ["a.y_int", "b.u_int"], ["a.y_bool", "b.u_bool"],
                 ["a.y_mode", "b.u_mode"], ["a.y_text", "b.u_text"]]}
JSON
check types-run 0 "macro-steps 4" -- "$cosima" run types.json --out types.csv
check types-csv-has-text 0 '"p:p:x"' -- cat types.csv
sed '1s/.*/{"method": {"type": "jacobi"},/' types.json > default.json  # no stop, no dt
check types-default-experiment 0 "time +\[0, 3\] with dt = 0.25" -- "$cosima" run default.json --out d.csv
check type-mismatch 1 "a.y_real \(Real\) -> b.u_int \(Integer \[-5, 100\]\)" -- "$cosima" run types.json --set 'connections=[["a.y_real", "b.u_int"], ["a.y_real", "b.u_real"], ["a.y_bool", "b.u_bool"], ["a.y_mode", "b.u_mode"], ["a.y_text", "b.u_text"]]'
check integer-wraps-no-more 1 "cosima_test_types.fmu' \(system 'a'\): parameter 'offset' \(Integer \[-10, 10\]\): 3000000000 is outside" -- "$cosima" run types.json --set systems.a.parameters.offset=3e9
check set-constant-input 0 "macro-steps 4" -- "$cosima" run types.json --set inputs.a.u_int=9 --out set.csv
check set-constant-input-out-of-range 1 "constant input 'a.u_int' \(Integer \[-5, 100\]\): 101 is outside" -- "$cosima" run types.json --set inputs.a.u_int=101
check set-input-b6 0 "macro-steps 100" -- "$cosima" run "$examples/b6_tough_case.json" --set inputs.tough.u=1 --out b6.csv
check do-step-error 1 "cosima_test_types.fmu': fmi2DoStep\(t = 0.5, h = 0.25\) returned fmi2Error" -- "$cosima" run types.json --set systems.b.parameters.fail_at=0.5
if grep -q "Illegal call sequence" out; then echo "FAIL a call after fmi2Error reached the FMU"; failures=$((failures + 1)); fi
check do-step-fatal 1 "returned fmi2Fatal" -- "$cosima" run types.json --set systems.b.parameters.fatal_at=0.5
if grep -q "Illegal call sequence" out; then echo "FAIL a call after fmi2Fatal reached the FMU"; failures=$((failures + 1)); fi

cat > nan.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
 "systems": {"n": {"fmu": "$fmus/cosima_test_nan.fmu"}}, "inputs": {"n.u": 0}}
JSON
check nan-named-at-source 1 "system 'n'.*output 'y' is nan at t = 0.5" -- "$cosima" run nan.json --out nan.csv

cat > counter.json <<JSON
{"stop": 10, "method": {"type": "jacobi", "dt": 0.2}, "systems": {"c": {"fmu": "$fmus/cosima_test_counter.fmu",
 "parameters": {"terminate_at": 9}}}}
JSON
check terminate-keeps-last-point 0 "asked to terminate at t = 9 " -- "$cosima" run counter.json --out counter.csv
check terminate-last-row 0 "^9,45," -- tail -1 counter.csv
check log-level-debug 0 "system 'c': \[fmi2OK logEvents\] terminating at t = 9" -- "$cosima" run counter.json --out c.csv --log-level debug
check log-level-scenario 0 "system 'c': \[fmi2OK" -- "$cosima" run counter.json --out c.csv --set log_level=debug
check log-level-bad 2 "--log-level: loud not in \{error,warning,info,debug\}" -- "$cosima" run counter.json --log-level loud

# compare refuses NaN and a result that stops short of its reference
printf 'time,x\n0,1\n1,nan\n' > nan_values.csv
printf 'time,x\n0,1\n1,2\n2,3\n' > reference.csv
printf 'time,x\n0,1\n1,2\n' > short.csv
check compare-nan 1 "'x' is nan at t = 1" -- "$cosima" compare nan_values.csv reference.csv
check compare-short 1 "'short.csv' ends at t = 1, before the reference" -- "$cosima" compare short.csv reference.csv
check compare-good 0 "mean nl2" -- "$cosima" compare reference.csv reference.csv

if [ -n "$(ls -A "$TMPDIR")" ]; then echo "FAIL temporary files left: $(ls "$TMPDIR")"; failures=$((failures + 1)); fi
echo "cli.fmi2: $failures failure(s)"
[ "$failures" -eq 0 ]
