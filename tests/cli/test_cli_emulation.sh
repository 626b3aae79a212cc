#!/usr/bin/env bash
# Capability emulation from the command line: a run says what it emulates (stderr and the stats'
# "capabilities"), and gives the same numbers whichever executor carries it out, because the
# emulation lives with the system (in the child process under --executor processes).
set -u
cosima=$1
fmus=$2
examples=$3
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1

withheld=(--set systems.left.interpolate_inputs=false --set systems.left.output_derivatives=false
          --set systems.right.output_derivatives=false --set stop=0.2)
check announced 0 "system 'left' lacks interpolate_inputs, output_derivatives that ifosmondi-jfm reads: cosima emulates it \(4 sub-steps" -- \
  timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --method ifosmondi-jfm "${withheld[@]}" --out seq.csv --stats seq.json
check stats-lists-them 0 '"emulated": \[\s*"interpolate_inputs",\s*"output_derivatives"' -- tr -d '\n' < seq.json
check stats-say-where-derivatives-come-from 0 '"derivatives": "from the outputs at the 5 sub-step points \(y. of order 4' -- cat seq.json
check substeps-option 0 '"substeps": 2' -- \
  sh -c "timeout -s KILL 120 '$cosima' run '$examples/b4_two_mass.json' --method ifosmondi-jfm ${withheld[*]} --set systems.left.emulation_substeps=2 --stats two.json --quiet 2>/dev/null; tr -d '\n ' < two.json | sed 's/\"substeps\":/ \"substeps\": /g'"
for executor in processes threads:2; do
  timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --method ifosmondi-jfm "${withheld[@]}" --executor "$executor" \
    --out other.csv --quiet 2>/dev/null
  if cmp -s seq.csv other.csv; then echo "ok   identical-under-$executor"; else echo "FAIL results differ under $executor"; failures=$((failures + 1)); fi
done
check nothing-emulated-for-jacobi 0 '"emulated": \[\]' -- \
  sh -c "timeout -s KILL 120 '$cosima' run '$examples/b4_two_mass.json' ${withheld[*]} --stats j.json --quiet && tr -d '\n' < j.json"
check oscillator-alone 0 "macro-steps 100" -- timeout -s KILL 120 "$cosima" run /dev/stdin --method ifosmondi <<JSON
{"stop": 5, "method": {"type": "jacobi", "dt": 0.05}, "systems": {"osc": {"fmu": "$fmus/cosima_test_oscillator.fmu"}}}
JSON
# a black box with rollback only (states and linearization withheld): MISSILES probes it by perturbed
# steps with restore, says so, and gives the same numbers in child processes
black_box=(--set systems.prey.state_access=false --set systems.prey.linearization=false
           --set systems.predator.state_access=false --set systems.predator.linearization=false --set stop=2)
check probing-announced 0 "system 'prey': missiles estimates it by perturbed steps with restore" -- \
  timeout -s KILL 120 "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --method missiles "${black_box[@]}" --out probe.csv --stats probe.json
check probing-in-stats 0 '"stand_in": "estimates it by perturbed steps' -- cat probe.json
timeout -s KILL 120 "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --method missiles "${black_box[@]}" --executor processes \
  --out probe_processes.csv --quiet 2>/dev/null
if cmp -s probe.csv probe_processes.csv; then echo "ok   probing-identical-under-processes"; else
  echo "FAIL probing differs under processes"; failures=$((failures + 1)); fi
check probing-needs-rollback 1 "lacks .*state_access.*or probe a system that can be rolled back" -- \
  timeout -s KILL 120 "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --method missiles "${black_box[@]}" --set systems.prey.rollback=false
check auto-says-which 0 "cosima: method ifosmondi-jfm: every system takes variable steps" -- \
  timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --method auto --set stop=0.01 --stats auto.json
check auto-in-stats 0 '"method_choice": "method ifosmondi-jfm' -- cat auto.json
check auto-fast 0 "cosima: method missiles" -- timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --method auto:fast --set stop=0.01
check auto-processes 0 "method +ifosmondi-jfm \(executor processes\)" -- \
  timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --method auto --set stop=0.01 --executor processes
check auto-unknown 1 "ask for \"auto\"" -- timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --method auto:best
check bad-substeps 1 "emulation_substeps" -- timeout -s KILL 120 "$cosima" run "$examples/b4_two_mass.json" --set systems.left.emulation_substeps=0

leftover=$(find "$TMPDIR" -mindepth 1 | head -1)
if [ -n "$leftover" ]; then echo "FAIL unpacked FMU left behind: $leftover"; failures=$((failures + 1)); fi
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all emulation command-line checks passed"
