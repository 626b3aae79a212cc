#!/usr/bin/env bash
# The MPI executor with 3 ranks (rank 0 orchestrates, ranks 1–2 own the systems): results identical
# to the sequential run for every method, FMUs loaded on the workers, and failures — a system
# error on a worker, a killed worker, too few ranks — that end the run with an error, never a hang.
set -u
cosima=$1
examples=$2
fmus=$3
test_fmus=$4
source "$(dirname "$0")/../support/check.sh"
export COSIMA_FMU_PATH="$fmus"
mpirun=(mpirun --oversubscribe -n 3)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
cd "$work" || exit 1

same_as_sequential() {  # same_as_sequential EXECUTOR NAME SCENARIO -- cosima run options...
  local executor=$1 name=$2 scenario=$3 out=${1%%:*}.csv  # mpi.csv, processes.csv
  shift 4
  local launch=()
  [ "$executor" = mpi ] && launch=("${mpirun[@]}")
  "$cosima" run "$scenario" "$@" --out seq.csv --quiet >"$work/out" 2>&1 || { echo "FAIL $name (sequential):"; cat "$work/out"; failures=$((failures + 1)); return; }
  timeout 120 "${launch[@]}" "$cosima" run "$scenario" "$@" --executor "$executor" --out "$out" --quiet >"$work/out" 2>&1 \
    || { echo "FAIL $name ($executor):"; cat "$work/out"; failures=$((failures + 1)); return; }
  if cmp -s seq.csv "$out"; then echo "ok   $name"; else echo "FAIL $name: results differ"; failures=$((failures + 1)); fi
}
identical() { same_as_sequential mpi "$@"; }  # identical NAME SCENARIO -- options: under MPI

for method in jacobi gauss-seidel ifosmondi-jfm missiles; do
  identical "chain-$method" "$examples/oscillator_chain_8.json" -- --method "$method"
  identical "ring-$method" "$examples/oscillator_ring_8.json" -- --method "$method"
done
identical ring-hybrid-costarica "$examples/oscillator_ring_8.json" -- --method ifosmondi-jfm --set systems.osc3.rollback=false
identical ring-defect-jacobi "$examples/oscillator_ring_8.json" -- --method defect-jacobi --set method.m=1 --set method.n=1
identical b3-fmus-jfm "$examples/b3_lotka_volterra_fmu.json" -- --method ifosmondi-jfm --dt 1e-2 --stop 2
identical b4-fmus-missiles "$examples/b4_two_mass_fmu.json" -- --method missiles --stop 0.2
# variables beyond outputs and states (parameters, derivatives), read on the workers
identical b3-fmus-variables "$examples/b3_lotka_volterra_fmu.json" -- --stop 0.5 \
  --set 'output.variables=["prey.p", "prey.alpha", "predator.*"]'

# the processes executor speaks orders too: the C¹ methods' plain entries (polynomial inputs,
# estimator updates) reach it through PlainBatch::to_orders
processes_identical() { same_as_sequential processes:2 "$@"; }
processes_identical processes-ring-missiles "$examples/oscillator_ring_8.json" -- --method missiles
processes_identical processes-ring-jfm "$examples/oscillator_ring_8.json" -- --method ifosmondi-jfm
processes_identical processes-ring-hybrid-costarica "$examples/oscillator_ring_8.json" -- --method ifosmondi-jfm \
  --set systems.osc3.rollback=false
processes_identical processes-b4-fmus-missiles "$examples/b4_two_mass_fmu.json" -- --method missiles --stop 0.2

# FMI 3.0 64-bit integers near 2^64, exact through the workers (a step counter, a constant, a parameter),
# and a String connection
cat > wide.json <<JSON
{"stop": 0.3, "method": {"type": "jacobi", "dt": 0.1},
 "systems": {"a": {"fmu": "$test_fmus/cosima_fmi3_types.fmu", "parameters": {"ubig": 18446744073709551615}},
             "b": {"fmu": "$test_fmus/cosima_fmi3_types.fmu"}},
 "inputs": {"a.u_UInt64": 18446744073709551515, "a.u_String": "hi"},
 "connections": [["a.count", "b.u_UInt64"], ["a.y_String", "b.u_String"]],
 "output": {"variables": ["a.count", "b.u_UInt64", "b.count", "a.ubig", "b.y_String"]}}
JSON
identical uint64-exact-jacobi wide.json -- --method jacobi
check uint64-exact-values 0 "^0.29999999999999999,18446744073709551518,18446744073709551517,18446744073709551520,18446744073709551615,\"hi!!\"$" -- tail -1 mpi.csv
identical uint64-exact-gauss-seidel wide.json -- --method gauss-seidel

# a system that fails on a worker: rank 0 reports it, names the system, exits non-zero
check worker-fmu-error 1 "system 'prey'.*(fmi2Error|failed)" -- timeout 120 "${mpirun[@]}" "$cosima" run \
  "$examples/b3_lotka_volterra_fmu.json" --executor mpi --dt 0.1 --stop 1 --set systems.prey.fmu=test_breaks.fmu \
  --set 'connections=[["prey.y", "predator.p"], ["predator.q", "prey.u"]]' --set 'output.variables=["predator.q"]'
# a worker that cannot build its system: named before any step
check worker-build-error 1 "system 'prey': .*nothere.fmu" -- timeout 120 "${mpirun[@]}" "$cosima" run \
  "$examples/b3_lotka_volterra_fmu.json" --executor mpi --set systems.prey.fmu="$work/nothere.fmu"
# one rank is not enough
check one-rank 1 "at least one worker" -- timeout 60 mpirun -n 1 $( [ "$(id -u)" -eq 0 ] && echo --allow-run-as-root ) \
  "$cosima" run "$examples/oscillator_chain_8.json" --executor mpi

# a killed worker ends the job: non-zero, and no hang (timeout would exit 124)
timeout 120 "${mpirun[@]}" "$cosima" run "$examples/oscillator_chain_8.json" --executor mpi --stop 1000 \
  --set systems.osc5.step_cost=0.001 --out long.csv --quiet >"$work/killed" 2>&1 &
runner=$!
victim=""
for _ in $(seq 1 300); do  # up to 30 s: the ranks start slower beside other tests (ASan)
  sleep 0.1
  for pid in $(pgrep -f "oscillator_chain_8.json --executor mpi --stop 1000" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2'; then victim=$pid; fi
  done
  [ -n "$victim" ] && break
done
if [ -z "$victim" ]; then
  echo "FAIL killed-worker: no worker of rank 2 found"; failures=$((failures + 1)); kill "$runner" 2>/dev/null
else
  sleep 0.5
  kill -9 "$victim"
  wait "$runner"
  code=$?
  if [ "$code" -eq 0 ] || [ "$code" -eq 124 ]; then
    echo "FAIL killed-worker: exit $code (0: not noticed, 124: hung)"; cat "$work/killed"; failures=$((failures + 1))
  else
    echo "ok   killed-worker (exit $code): $(grep -m1 -iE 'signal|killed|abort' "$work/killed")"
  fi
fi
exit $((failures > 0))
