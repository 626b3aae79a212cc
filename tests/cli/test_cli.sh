#!/usr/bin/env bash
# The cosima command as a user runs it: exit codes, files written, messages that name the fault.
set -u
cosima=$1
examples=$2
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1
check run-writes-csv-and-stats 0 "macro-steps 2000" -- "$cosima" run "$examples/b4_two_mass.json" --out b4.csv --stats b4.json
head -1 b4.csv | grep -q '^time,left.x1,left.v1,right.x2,right.v2,right.F$' || { echo "FAIL csv header"; failures=$((failures + 1)); }
for key in macro_steps rejected_steps iterations integrations wall_time_s; do
  grep -q "\"$key\"" b4.json || { echo "FAIL stats key $key"; failures=$((failures + 1)); }
done
check run-monolithic 0 "method     monolithic" -- "$cosima" run "$examples/b4_two_mass.json" --method monolithic --out ref.csv
check compare-json 0 '"mean_nl2"' -- "$cosima" compare b4.csv ref.csv --json
check compare-table 0 "right.F" -- "$cosima" compare b4.csv ref.csv
check set-override 0 "dt = 0.002" -- "$cosima" run "$examples/b4_two_mass.json" --dt 2e-3 --stop 1 --set systems.right.parameters.c3=2e5 --out o.csv
check models 0 "b1.damper" -- "$cosima" models
check executor-threads 0 "executor threads:2" -- "$cosima" run "$examples/oscillator_ring_8.json" --executor threads:2 --out ring.csv
check executor-bad 2 "--executor: unknown executor 'gpu' .executors: sequential" -- "$cosima" run "$examples/oscillator_ring_8.json" --executor gpu --out ring.csv
check missiles-run 0 "method     missiles" -- "$cosima" run "$examples/b3_lotka_volterra.json" --method missiles --stop 1 --out m.csv
check defect-run 0 "method     defect-jacobi" -- "$cosima" run "$examples/b5_rotational_oscillator.json" --method defect-jacobi --set method.tol=0.005 --out d.csv
check choptrey-run 0 "macro-steps 144" -- "$cosima" run "$examples/b7_thermal_zones.json" --dt 150 --set method.extrapolation=choptrey --out b7.csv
check unknown-parameter 1 "no parameter 'DD'" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --set systems.damper.parameters.DD=1
check unknown-key 1 "unknown key 'systems.mass.integratr'" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --set systems.mass.integratr=euler
check unknown-method 1 "unknown method 'newton'" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --method newton
check unknown-option 1 "method.epsilonn" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --set method.epsilonn=1
check missing-file 1 "cannot open scenario 'nowhere.json'" -- "$cosima" run nowhere.json
check algebraic-loop 1 "algebraic loop" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --method gauss-seidel
check bad-usage 2 "not expected: --frobnicate" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --frobnicate
check bad-number 2 "--dt: expects a number, got 'fast'" -- "$cosima" run "$examples/b1_ifosmondi_damper.json" --dt fast
check unconnected 1 "unconnected input: prey.q" -- "$cosima" run "$examples/b3_lotka_volterra.json" --set 'connections=[["prey.p","predator.p"]]'
check bench-quick 0 "prey rel. error" -- "$cosima" bench jacobi --quick --json bench.json
grep -q '"wall_over_integration_time"' bench.json || { echo "FAIL bench json"; failures=$((failures + 1)); }
echo "cli: $failures failure(s)"
[ "$failures" -eq 0 ]
