#!/usr/bin/env bash
# FMI 3.0 from the command line with the strict test FMUs (tests/fmus/fmi3/): `cosima info`, every
# type and arrays in a CSV, the same results through the processes executor (the wire carries FMI
# 3.0 ports), a crash in fmi3DoStep in process and in a child process, clocks refused; exit status 1
# and a message naming the file, system and call for every failure, no unpacked FMU left behind.
set -u
cosima=$1
fmus=$2
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1

no_temp_left() {
  if [ -n "$(ls -A "$TMPDIR")" ]; then echo "FAIL $1: temporary files left: $(ls "$TMPDIR")"; failures=$((failures + 1)); rm -rf "${TMPDIR:?}"/*; fi
}

check info-types 0 "ua +vr=51 +Float64 \[3\] +input" -- "$cosima" info "$fmus/cosima_fmi3_types.fmu"
check info-matrix 0 "M +vr=54 +Float64 \[2,3\] +output" -- "$cosima" info "$fmus/cosima_fmi3_types.fmu"
check info-int8-range 0 "u_Int8 +vr=12 +Int8 \[-100, 100\]" -- "$cosima" info "$fmus/cosima_fmi3_types.fmu"
check info-both-interfaces 0 "Model Exchange  identifier=cosima_fmi3_me" -- "$cosima" info "$fmus/cosima_fmi3_me.fmu"
check info-event-mode 0 "hasEventMode=true mightReturnEarlyFromDoStep=true" -- "$cosima" info "$fmus/cosima_fmi3_events.fmu"
check info-clocks 0 "Clocks \(tick\): cosima refuses" -- "$cosima" info "$fmus/cosima_fmi3_clocked.fmu"

cat > types.json <<JSON
{"stop": 0.3, "method": {"type": "jacobi", "dt": 0.1},
 "systems": {"a": {"fmu": "$fmus/cosima_fmi3_types.fmu"}, "b": {"fmu": "$fmus/cosima_fmi3_types.fmu"}},
 "inputs": {"a.u_Float32": 0.25, "a.u_Float64": 1, "a.u_Int8": -8, "a.u_UInt8": 200, "a.u_Int16": -1000,
            "a.u_UInt16": 60000, "a.u_Int32": -100000, "a.u_UInt32": 4000000000, "a.u_Int64": -5000000000,
            "a.u_UInt64": 1000000000000, "a.u_Boolean": false, "a.u_String": "hi", "a.u_Binary": "00ff10",
            "a.u_Enumeration": 2, "a.ua[1]": 1, "a.ua[2]": 2, "a.ua[3]": 3},
 "connections": [["a.ya", "b.ua"], ["a.y_Float32", "b.u_Float32"], ["a.y_Float64", "b.u_Float64"],
                 ["a.y_Int8", "b.u_Int8"], ["a.y_UInt8", "b.u_UInt8"], ["a.y_Int16", "b.u_Int16"],
                 ["a.y_UInt16", "b.u_UInt16"], ["a.y_Int32", "b.u_Int32"], ["a.y_UInt32", "b.u_UInt32"],
                 ["a.y_Int64", "b.u_Int64"], ["a.y_UInt64", "b.u_UInt64"], ["a.y_Boolean", "b.u_Boolean"],
                 ["a.y_String", "b.u_String"], ["a.y_Binary", "b.u_Binary"], ["a.y_Enumeration", "b.u_Enumeration"]]}
JSON
check types-run 0 "macro-steps 3" -- "$cosima" run types.json --out types.csv
check csv-matrix-header-quoted 0 '"a.M\[1,1\]","a.M\[1,2\]"' -- head -1 types.csv
check csv-binary-and-string 0 '"hi!!","00ff10"' -- tail -1 types.csv
# Strings and Binaries out of process too: the same CSV through worker processes
check types-processes-bitwise 0 "^same$" -- \
  sh -c "'$cosima' run types.json --executor processes --out types_p.csv --quiet 2>/dev/null && cmp types.csv types_p.csv && echo same"
check int8-range 1 "constant input 'a.u_Int8' \(Integer \[-100, 100\]\): 120 is outside" -- "$cosima" run types.json --set inputs.a.u_Int8=120
check shapes-differ 1 "connection a.M -> b.ua: the arrays differ in shape" -- "$cosima" run types.json --set 'connections=[["a.M", "b.ua"]]'

# an Enumeration by item name, as the README promises; an unknown name is refused with the items
cat > enum.json <<JSON
{"stop": 0.2, "method": {"type": "jacobi", "dt": 0.1}, "systems": {"a": {"fmu": "$fmus/cosima_fmi3_types.fmu"}},
 "inputs": {"a.u_Enumeration": "blue"}, "output": {"variables": ["a.y_Enumeration"]}}
JSON
check enum-by-name 0 "macro-steps 2" -- "$cosima" run enum.json --out enum.csv
check enum-by-name-value 0 "^0.20000000000000001,3$" -- tail -1 enum.csv
check enum-unknown-name 1 "\"blu\" is no item of it \(items: red = 1, green = 2, blue = 3\); did you mean 'blue'" -- \
  "$cosima" run enum.json --set 'inputs.a.u_Enumeration="blu"' --out enum.csv
# 64-bit integers are exact over their whole range: a constant, a parameter and a counter near 2^64
# (count = u_UInt64 + steps) through a connection, in process, out of process and through an SSP package
cat > wide.json <<JSON
{"stop": 0.3, "method": {"type": "jacobi", "dt": 0.1},
 "systems": {"a": {"fmu": "$fmus/cosima_fmi3_types.fmu", "parameters": {"ubig": 18446744073709551614}},
             "b": {"fmu": "$fmus/cosima_fmi3_types.fmu"}},
 "inputs": {"a.u_UInt64": 18446744073709551515, "a.u_Int64": -9223372036854775807},
 "connections": [["a.count", "b.u_UInt64"], ["a.y_Int64", "b.u_Int64"]],
 "output": {"variables": ["a.count", "b.u_UInt64", "b.count", "b.y_Int64", "a.ubig"]}}
JSON
check uint64-exact 0 "^0.29999999999999999,18446744073709551518,18446744073709551517,18446744073709551520,-9223372036854775805,18446744073709551614$" -- \
  sh -c "'$cosima' run wide.json --out wide.csv --quiet 2>/dev/null; tail -1 wide.csv"
check uint64-processes-bitwise 0 "^same$" -- \
  sh -c "'$cosima' run wide.json --executor processes --out wide_p.csv --quiet 2>/dev/null && cmp wide.csv wide_p.csv && echo same"
check uint64-export-ssp 0 "ssp wide.ssp" -- "$cosima" export-ssp wide.json -o wide.ssp
check uint64-ssp-bitwise 0 "^same$" -- sh -c "'$cosima' run wide.ssp --out wide_ssp.csv --quiet 2>/dev/null && cmp wide.csv wide_ssp.csv && echo same"
check uint64-out-of-range 1 "constant input 'a.u_Int64' \(Integer\): 18446744073709551615 is outside the range of its type \[-9223372036854775808, 9223372036854775807\]" -- \
  "$cosima" run wide.json --set inputs.a.u_Int64=18446744073709551615 --out wide.csv
check uint64-start-value 0 "^0.20000000000000001,18446744073709551615,18446744073709551615$" -- \
  sh -c "'$cosima' run '$fmus/cosima_fmi3_types.fmu' --start-values u_UInt64=18446744073709551614 --set 'output.variables=[\"cosima_fmi3_types.y_UInt64\", \"cosima_fmi3_types.ubig\"]' --set stop=0.2 --set method.dt=0.1 --out sv.csv --quiet 2>/dev/null; tail -1 sv.csv"
# the item name survives an SSP round trip (ssv:Enumeration value="blue"), bitwise
check enum-export-ssp 0 "ssp enum.ssp" -- "$cosima" export-ssp enum.json -o enum.ssp
check enum-ssp-bitwise 0 "^same$" -- sh -c "'$cosima' run enum.ssp --out enum_ssp.csv --quiet 2>/dev/null && cmp enum.csv enum_ssp.csv && echo same"
no_temp_left types

# out of process: the ME ball (integrated by cosima in the child) driven by the CS event FMU (event mode in
# the child), bitwise the same as in process
cat > ball.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
 "systems": {"ball": {"fmu": "$fmus/cosima_fmi3_me.fmu", "interface": "me", "integrator": "cvode"},
             "ramp": {"fmu": "$fmus/cosima_fmi3_events.fmu"}},
 "connections": [["ramp.x", "ball.u"]]}
JSON
check ball-run 0 "macro-steps 100" -- "$cosima" run ball.json --out ball.csv
check processes-run 0 "macro-steps 100" -- "$cosima" run ball.json --executor processes --out ball_p.csv
check processes-bitwise 0 "same" -- sh -c "cmp ball.csv ball_p.csv && echo same"
no_temp_left ball

cat > m.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
 "systems": {"m": {"fmu": "$fmus/cosima_fmi3_misbehave.fmu", "parameters": {"mode": 4, "at": 0.5}}},
 "output": {"interval": 0.01}}
JSON
(ulimit -c 0; exec timeout 60 "$cosima" run m.json --out m.csv) >"$work/out" 2>&1
code=$?
if [ "$code" -eq 0 ] || ! grep -qE "cosima: fatal: SIGSEGV in fmi3DoStep of system 'm' \(FMU '.*cosima_fmi3_misbehave.fmu'\) at t = 0.5" "$work/out"; then
  echo "FAIL crash-in-process: exit $code, output:"; cat "$work/out"; failures=$((failures + 1))
else
  echo "ok   crash-in-process (exit $code)"
fi
rm -rf "${TMPDIR:?}"/*  # a process killed by a signal cannot tidy up: that is what 'processes' is for
check crash-in-child 1 "system 'm' \(FMU '.*cosima_fmi3_misbehave.fmu'\): .*died of SIGSEGV in fmi3DoStep at t = 0.5" -- \
  timeout 60 "$cosima" run m.json --executor processes --out mp.csv
check crash-rows-kept 0 "^0.5," -- tail -1 mp.csv
check error-status 1 "fmi3DoStep\(t = 0.5[0-9]*, h = 0.01[0-9]*\) returned fmi3Error" -- "$cosima" run m.json --set systems.m.parameters.mode=1
no_temp_left misbehave

cat > clocked.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.1}, "systems": {"c": {"fmu": "$fmus/cosima_fmi3_clocked.fmu"}}}
JSON
check clocks-refused 1 "does not import FMI 3.0 Clocks \(clock variables: tick\)" -- "$cosima" run clocked.json
no_temp_left clocked

echo "cli.fmi3: $failures failure(s)"
[ "$failures" -eq 0 ]
