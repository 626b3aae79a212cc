#!/usr/bin/env bash
# Model Exchange from the command line: `cosima info` shows both interfaces and what cosima provides,
# ME FMUs run under cosima's integrators, and every misbehaviour exits 1 with a message naming the
# system, the time and the cause — with no unpacked FMU left behind.
set -u
cosima=$1
fmus=$2
examples=$3
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1

check info-both-interfaces 0 "Co-Simulation +identifier=cosima_test_me_both" -- timeout -s KILL 120 "$cosima" info "$fmus/cosima_test_me_both.fmu"
check info-me-provided 0 "linearization and output derivatives by finite differences; rollback by fmi2Get/SetFMUstate" -- timeout -s KILL 120 "$cosima" info "$fmus/cosima_test_me_both.fmu"
check info-me-rule 0 "rollback only until the first event" -- timeout -s KILL 120 "$cosima" info "$fmus/cosima_test_me_ball_nostate.fmu"

cat > ball.json <<JSON
{"stop": 3, "method": {"type": "jacobi", "dt": 0.01},
 "systems": {"ball": {"fmu": "$fmus/cosima_test_me_ball.fmu", "integrator_options": {"rtol": 1e-10, "atol": 1e-12}}}}
JSON
check ball-cvode 0 "macro-steps 300" -- timeout -s KILL 120 "$cosima" run ball.json --out ball.csv
check ball-kick-exact 0 "^1.5,.*,1.5," -- cat ball.csv
for integrator in dopri5 euler; do
  check "ball-$integrator" 0 "macro-steps 300" -- timeout -s KILL 120 "$cosima" run ball.json --set systems.ball.integrator="\"$integrator\"" --out b.csv
done
check ball-exact-refused 1 "integrator 'exact' cannot locate events" -- timeout -s KILL 120 "$cosima" run ball.json --set systems.ball.integrator='"exact"'
check ball-unknown-integrator 1 "system 'ball': unknown integrator 'rk4'" -- timeout -s KILL 120 "$cosima" run ball.json --set systems.ball.integrator='"rk4"'
check ball-as-cs 1 "system 'ball': FMU '.*cosima_test_me_ball.fmu' has no Co-Simulation interface" -- timeout -s KILL 120 "$cosima" run ball.json --set 'systems.ball={"fmu": "'"$fmus"'/cosima_test_me_ball.fmu", "interface": "cs"}'
check ball-cs-integrator 1 "system 'ball' is a Co-Simulation FMU: it embeds its own solver" -- timeout -s KILL 120 "$cosima" run ball.json --set systems.ball.interface='"cs"'
check bad-interface 1 "'systems.ball.interface' is \"xx\"" -- timeout -s KILL 120 "$cosima" run ball.json --set systems.ball.interface='"xx"'
# at rest the ball micro-bounces on its indicator's 1e-10 offset, ~700 events per 0.01 s
check resting-ball-chatters 1 "system 'ball': more than 200 events in the step .*chattering" -- timeout -s KILL 120 "$cosima" run ball.json --stop 6 --set systems.ball.integrator_options.max_events_per_step=200

cat > misbehave.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.1},
 "systems": {"m": {"fmu": "$fmus/cosima_test_me_misbehave.fmu", "parameters": {"mode": 0, "fail_at": 0.55}}},
 "inputs": {"m.u": 0}}
JSON
check mode0 0 "macro-steps 10" -- timeout -s KILL 120 "$cosima" run misbehave.json --out m.csv
check derivative-error 1 "system 'm'.*fmi2GetDerivatives fails at t = 0\.[56][0-9]* >= fail_at = 0\.55" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=1
if grep -q "Illegal call sequence" out; then echo "FAIL a call after fmi2Error reached the FMU"; failures=$((failures + 1)); fi
check no-convergence 1 "event iteration at t = 0.55 did not converge" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=2
check chattering 1 "system 'm': more than 1000 events in the step \[0.5" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=3
check nan 1 "system 'm'.*derivative of state 'x' is nan at t = 0.55" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=4
check terminate 0 "terminateSimulation" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=5 --out t.csv
check event-error 1 "fmi2NewDiscreteStates returned fmi2Error" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=6
check step-error 1 "fmi2CompletedIntegratorStep returned fmi2Error" -- timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=7
for mode in 1 2 3 4 6 7; do
  timeout -s KILL 120 "$cosima" run misbehave.json --set systems.m.parameters.mode=$mode --executor processes >out 2>&1
  if [ $? -ne 1 ]; then echo "FAIL mode $mode under processes: not exit 1"; cat out; failures=$((failures + 1)); fi
done

leftover=$(find "$TMPDIR" -mindepth 1 | head -1)
if [ -n "$leftover" ]; then echo "FAIL unpacked FMU left behind: $leftover"; failures=$((failures + 1)); fi
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all ME command-line checks passed"
