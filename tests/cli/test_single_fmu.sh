#!/usr/bin/env bash
# One FMU in one command, as FMPy users start: `cosima run X.fmu` with the FMU's DefaultExperiment,
# inputs at their start values, FMPy's defaults where the FMU is silent (said as guessed, on stderr
# and in the stats), --start-values, --interface; and the Reference FMUs (../shared/reference-fmus,
# skipped with a reason in a clone without it) against the reference results their project ships.
set -u
cosima=$1
fmus=$2        # the tests' C FMUs
references=$3  # the Reference FMUs, when present
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1

# any variable recorded, by name or glob: a parameter (m1), derivatives of states (der(s1), der(v1)),
# an input (F), parameters of the other FMU (c2, c3), through Co-Simulation and Model Exchange
cat > record.json <<JSON
{"start": 0, "stop": 0.1, "method": {"type": "jacobi", "dt": 1e-2},
 "systems": {"m1": {"fmu": "$fmus/cosima_test_mass1.fmu"}, "m2": {"fmu": "$fmus/cosima_test_mass2.fmu"}},
 "connections": [["m1.s1_out", "m2.s1"], ["m1.v1_out", "m2.v1"], ["m1.a1_out", "m2.a1"], ["m2.F", "m1.F"]],
 "output": {"variables": ["m1.m?", "m1.der(*)", "m1.F", "m2.c?", "m1.s1_out"]}}
JSON
for interface in cs me; do
  "$cosima" run record.json --set "systems.m1.interface=\"$interface\"" --set "systems.m2.interface=\"$interface\"" \
    --out "record_$interface.csv" --quiet
  check "record-glob-header-$interface" 0 "^time,m1.m1,m1.der\(s1\),m1.der\(v1\),m1.F,m2.c2,m2.c3,m1.s1_out$" -- head -1 "record_$interface.csv"
  # at t = 0: m1 = 1, der(s1) = v1 = 0, der(v1) = (−c1·s1 + F)/m1 = 40 with F = c2·0.5 = 50
  check "record-glob-start-$interface" 0 "^0,1,0,40,50,100,10,1$" -- sed -n 2p "record_$interface.csv"
done
# the same variables from systems in child processes: bitwise the rows of the run in process
"$cosima" run record.json --set 'systems.m1.interface="cs"' --set 'systems.m2.interface="cs"' --executor processes \
  --out record_processes.csv --quiet
check record-processes 0 "^same$" -- sh -c "cmp record_cs.csv record_processes.csv && echo same"
check record-no-match 1 "output variable pattern 'm1.zz\*' matches no variable of any system" -- \
  "$cosima" run record.json --set 'output.variables=["m1.zz*"]' --out x.csv
check record-unknown 1 "system 'm1' has no output, state or variable 'c11'; did you mean 'c1'" -- \
  "$cosima" run record.json --set 'output.variables=["m1.c11"]' --out x.csv

# 20-sim's habit: the FMU restores its parameters' defaults in fmi2SetupExperiment; the values of
# --start-values and --set are set after it (the peers' call order) and are what the FMU runs with
"$cosima" run "$fmus/cosima_test_reset_params.fmu" --stop 1 --dt 0.1 --start-values k=3 n=7 flag=true label=set u=2 \
  --out reset.csv --quiet
check reset-start-values 0 "^1,3,7,1,\"set\",2,(6|5[.]9999)" -- tail -1 reset.csv
"$cosima" run "$fmus/cosima_test_reset_params.fmu" --stop 1 --dt 0.1 --out reset_set.csv --quiet \
  --set systems.cosima_test_reset_params.parameters.k=3
check reset-set 0 "^1,3,2,0,\"default\",1,(3|2[.]9999)" -- tail -1 reset_set.csv

# one FMU whose output declares a dependency on its input, alone (the input at its start value 1):
# settled at each communication point, then stepped; x = exp((1.5 - 1)·t) exactly per step
for method in jacobi gauss-seidel; do
  "$cosima" run "$fmus/cosima_test_lotka.fmu" --method "$method" --stop 0.01 --dt 1e-3 --set output.interval=0.01 \
    --set systems.cosima_test_lotka.parameters.a=1.5 --out "lotka_$method.csv" --quiet 2>/dev/null
  check "feedthrough-alone-$method" 0 "^0.01,1.00501252085940" -- tail -1 "lotka_$method.csv"
done

# an FMU with a DefaultExperiment (stop 20, step 1e-2): its experiment, nothing guessed
check vanderpol-alone 0 "time +\[0, 20\] with dt = 0.01" -- "$cosima" run "$fmus/cosima_test_vanderpol.fmu" --out v.csv --stats v.json
check vanderpol-columns 0 "^time,cosima_test_vanderpol[.]" -- head -1 v.csv
check vanderpol-nothing-guessed 1 "^0$" -- grep -c guessed v.json
"$cosima" run "$fmus/cosima_test_vanderpol.fmu" --stop 1 --start-values mu=3 --out v3.csv --quiet 2>/dev/null
"$cosima" run "$fmus/cosima_test_vanderpol.fmu" --stop 1 --out v1.csv --quiet 2>/dev/null
check vanderpol-start-value 1 "differ" -- cmp v3.csv v1.csv
check vanderpol-me 0 "macro-steps 100 " -- "$cosima" run "$fmus/cosima_test_vanderpol.fmu" --interface me --stop 1 --out vme.csv
check interface-not-an-fmu 2 "--interface is for an FMU run on its own" -- "$cosima" run scenario.json --interface me

# an FMU without DefaultExperiment: stop = start + 1 and dt = (stop − start)/500, both guessed
check gain-guessed-stop 0 "guessed stop = 1: start [+] 1" -- "$cosima" run "$fmus/cosima_test_gain_bare.fmu" --out g.csv --stats g.json
check gain-guessed-dt 0 "guessed method.dt = 0.002: [(]stop − start[)]/500" -- "$cosima" run "$fmus/cosima_test_gain_bare.fmu" --out g.csv --stats g.json
check gain-guessed-stats 0 '"guessed": \[' -- cat g.json
check gain-rows 0 "^501$" -- sh -c "tail -n +2 g.csv | wc -l"
# a stop given on the command line is not guessed
check gain-stop-given 0 "guessed method.dt = 0.004" -- sh -c "\"$cosima\" run \"$fmus/cosima_test_gain_bare.fmu\" --stop 2 --out g2.csv 2>&1 | grep guessed"
check gain-stop-not-guessed 1 "^0$" -- sh -c "\"$cosima\" run \"$fmus/cosima_test_gain_bare.fmu\" --stop 2 --out g2.csv 2>&1 | grep -c 'guessed stop'"
# y = k u + q u² + b with u at its start 0: y = b; --start-values sets b (a name with dots would be one key)
check gain-start-values 0 "^1,7$" -- sh -c "\"$cosima\" run \"$fmus/cosima_test_gain_bare.fmu\" --start-values b=7 --out - --quiet 2>/dev/null | tail -1 | cut -d, -f1,2"
echo '{"stop": 1, "systems": {"prey": {"model": "b3.prey"}}, "inputs": {"prey.q": 1}}' > b3.json
check start-values-need-an-fmu 1 "start values and input files are for an FMU run on its own" -- "$cosima" run b3.json --start-values a=1
# --input drives the inputs from a CSV, as FMPy's input files: u linear from 0 to 2 over [0, 1],
# y = 0.5 u + 1 (k = 0.5, q = 0, b = 1). A Co-Simulation step holds the input of its start (as
# FMPy sets inputs before each doStep): the row at 0.5 has y = 0.5·u(0.25) + 1 = 1.25 and u(0.5) = 1
printf 'time,u\n0,0\n1,2\n' > u.csv
"$cosima" run "$fmus/cosima_test_gain_bare.fmu" --input u.csv --dt 0.25 --out driven.csv --quiet 2>/dev/null
check input-drives 0 "^0.5,1.25,1$" -- grep "^0.5," driven.csv
check input-drives-end 0 "^1,1.75,2$" -- tail -1 driven.csv
printf 'time,w\n0,0\n1,2\n' > w.csv
check input-unknown-column 1 "column 'w' names no input of FMU .* [(]inputs: u[)]" -- "$cosima" run "$fmus/cosima_test_gain_bare.fmu" --input w.csv --out w_out.csv

# FMI 1.0 FMUs alone (tests/fmus/fmi1): Model Exchange with a state and a time event, Co-Simulation
check fmi1-info 0 "model +cosima_test_fmi1_ball_me [(]FMI 1[.]0, " -- "$cosima" info "$fmus/cosima_test_fmi1_ball_me.fmu"
check fmi1-ball 0 "macro-steps 500 " -- "$cosima" run "$fmus/cosima_test_fmi1_ball_me.fmu" --out ball.csv
# at t = 1: one bounce (t = 0.4515), the time event at 0.5 passed (phase 1), no contact
check fmi1-ball-end 0 "^1,1,1,0$" -- tail -1 ball.csv
"$cosima" run "$fmus/cosima_test_fmi1_mass1_cs.fmu" --stop 0.1 --out m1.csv --quiet 2>/dev/null
"$cosima" run "$fmus/cosima_test_fmi1_mass1_cs.fmu" --stop 0.1 --start-values c1=20 --out m1c.csv --quiet 2>/dev/null
check fmi1-cs-start-value 1 "differ" -- cmp m1.csv m1c.csv
check fmi1-cs-negated-alias 0 "^0,1,0,-10,-1$" -- sed -n 2p m1.csv

# the Reference FMUs alone equal the reference results shipped by their project (FMI 2.0 CS)
if [ -d "$references/fmi2" ]; then
  for pair in BouncingBall:b Dahlquist:d VanDerPol:v Stair:s Feedthrough:f Resource:r; do
    name=${pair%%:*} system=${pair##*:}
    "$cosima" run "$references/fmi2/$name.fmu" --out "$name.csv" --quiet 2>/dev/null
    sed -i "1s/\b$name\./$system./g" "$name.csv"
    check "reference-$name" 0 "mean nl2 [0-9.]+e-(1[2-9]|[2-9][0-9])|mean nl2 0[.]0000e[+]00" -- \
      "$cosima" compare "$name.csv" "$references/refs/${name}_$system.csv"
  done
  # the iterative methods on FMUs nobody here wrote: MISSILES probes Feedthrough without perturbing
  # its Integer, Boolean and Enumeration inputs; IFOSMONDI ends where Stair asks to terminate (t = 9)
  check missiles-held-inputs 0 "macro-steps" -- "$cosima" run "$references/fmi2/Feedthrough.fmu" --method missiles --out fm.csv
  check ifosmondi-terminate 0 "run ended early: .*asked to terminate" -- "$cosima" run "$references/fmi2/Stair.fmu" --method ifosmondi --out si.csv
  # ... with its values there (the FMU alone: the row of fmi2LastSuccessfulTime), as its reference results end
  check ifosmondi-terminate-rows 0 "^9,10$" -- tail -1 si.csv
else
  echo "skip reference FMUs: $references is not here (a clone without ../shared)"
fi
exit $((failures > 0))
