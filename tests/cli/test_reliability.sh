#!/usr/bin/env bash
# Nothing lost, nothing hangs: FMUs that crash, abort, exit or hang, in child processes and in
# process; interrupts; outputs opened before the run; validation. Each failure must end with a
# non-zero exit, a message naming the system, FMU, call and time, the rows computed so far on disk,
# and no temporary directory left.
set -u
cosima=$1
fmus=$2
examples=$3
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1

no_temp_left() {
  if [ -n "$(ls -A "$TMPDIR")" ]; then echo "FAIL $1: temporary files left: $(ls "$TMPDIR")"; failures=$((failures + 1)); rm -rf "${TMPDIR:?}"/*; fi
}
# the last row of a CSV is at t ≥ $2
rows_reach() {
  local last
  last=$(tail -1 "$1" | cut -d, -f1)
  if ! awk -v t="$last" -v want="$2" 'BEGIN { exit !(t + 0 >= want + 0) }'; then
    echo "FAIL $3: the CSV ends at t = $last, before $2"; failures=$((failures + 1))
  else
    echo "ok   $3: rows up to t = $last"
  fi
}

# FILE → "COLUMNS LAST_TIME" of data_2 in a MAT v4 trajectory (observer/mat_results.hpp); fails when
# the file holds fewer bytes than its matrices announce
mat_rows() {
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
at = 0
while at < len(data):
    kind, rows, cols, imaginary, name_length = struct.unpack_from('<5i', data, at)
    at += 20
    name = data[at:at + name_length - 1].decode()
    at += name_length
    size = {0: 8, 20: 4, 51: 1}[kind] * rows * cols
    if at + size > len(data):
        sys.exit(f"{name}: {size} bytes announced, {len(data) - at} there")
    if name == 'data_2':
        print(cols, struct.unpack_from('<d', data, at + (cols - 1) * rows * 8)[0] if cols else 'none')
        break
    at += size
PY
}
# a MAT file's rows reach t ≥ $2
mat_reach() {
  local found
  found=$(mat_rows "$1")
  if awk -v t="${found#* }" -v want="$2" 'BEGIN { exit !(t + 0 >= want + 0) }'; then echo "ok   $3: $found"; else
    echo "FAIL $3: the MAT file holds '$found', not up to t = $2"; failures=$((failures + 1)); fi
}

misbehave() {  # mode → a scenario with the misbehaving FMU beside a well-behaved one
  cat > "m$1.json" <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
 "systems": {"m": {"fmu": "$fmus/cosima_test_misbehave.fmu", "parameters": {"mode": $1, "at": 0.5}},
             "n": {"fmu": "$fmus/cosima_test_nan.fmu", "parameters": {"nan_at": 10}}},
 "inputs": {"n.u": 0}, "output": {"interval": 0.01}}
JSON
}

# --- child processes: every misbehaviour is survived and named -------------------------------------
for spec in "1:died of SIGSEGV in fmi2DoStep at t = 0.5" "2:died of SIGABRT in fmi2DoStep at t = 0.5" \
            "3:exited with status 70 in fmi2DoStep at t = 0.5" "4:no answer within 2 s \(--fmu-timeout\); its process was killed in fmi2DoStep at t = 0.5"; do
  mode=${spec%%:*}
  misbehave "$mode"
  # the timeout is what mode 4 tests; for the others it only must not overtake the child's own end
  # (under ASan an exit() runs LeakSanitizer first, seconds on a loaded machine)
  fmu_timeout=$([ "$mode" = 4 ] && echo 2 || echo 30)
  check "processes-mode-$mode" 1 "system 'm' \(FMU '.*cosima_test_misbehave.fmu'\): .*${spec#*:}" -- \
    timeout 60 "$cosima" run "m$mode.json" --executor processes --fmu-timeout "$fmu_timeout" --out "p$mode.csv"
  rows_reach "p$mode.csv" 0.49 "processes-mode-$mode-rows"
  no_temp_left "processes-mode-$mode"
done
# a stray write over the process's shared mappings: the mailbox's frame is refused by name, and the
# sibling forked before it ("a") was not hit (each child maps its own mailbox only)
cat > m8.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01},
 "systems": {"a": {"fmu": "$fmus/cosima_test_nan.fmu", "parameters": {"nan_at": 10}},
             "m": {"fmu": "$fmus/cosima_test_misbehave.fmu", "parameters": {"mode": 8, "at": 0.5}}},
 "inputs": {"a.u": 0}, "output": {"interval": 0.01}}
JSON
check processes-mode-8 1 "system 'm' \(FMU '.*cosima_test_misbehave.fmu'\): its process [0-9]+ sent a malformed reply \(frame [0-9]+ where [0-9]+ was due" -- \
  timeout 60 "$cosima" run m8.json --executor processes --out p8.csv --stats p8.json
check processes-mode-8-stats 0 '"error": "system .m. .*malformed reply' -- cat p8.json
rows_reach p8.csv 0.49 processes-mode-8-rows
no_temp_left processes-mode-8
# a process that wrote to its socket and exited: its death is seen at once (not after the timeout)
misbehave 9
start=$(date +%s)
check processes-mode-9 1 "system 'm' \(FMU '.*cosima_test_misbehave.fmu'\): its process [0-9]+ exited with status 70 in fmi2DoStep at t = 0.5" -- \
  timeout 60 "$cosima" run m9.json --executor processes --fmu-timeout 30 --out p9.csv
check processes-mode-9-at-once 0 "at once" -- sh -c "[ \$(( \$(date +%s) - $start )) -lt 20 ] && echo at once"
rows_reach p9.csv 0.49 processes-mode-9-rows
no_temp_left processes-mode-9
export COSIMA_TEST_MISBEHAVE_IN_INSTANTIATE=1
misbehave 0
check processes-instantiate 1 "system 'm' .*died of SIGSEGV in fmi2Instantiate" -- timeout 60 "$cosima" run m0.json --executor processes --out i.csv
unset COSIMA_TEST_MISBEHAVE_IN_INSTANTIATE
no_temp_left processes-instantiate

cat > nan.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01}, "systems": {"n": {"fmu": "$fmus/cosima_test_nan.fmu"}},
 "inputs": {"n.u": 0}}
JSON
check processes-nan 1 "system 'n'.*output 'y' is nan at t = 0.5" -- "$cosima" run nan.json --executor processes --out nan.csv
rows_reach nan.csv 0.49 processes-nan-rows
no_temp_left processes-nan

# bitwise the same results out of process
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 2 --out sequential.csv --quiet
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 2 --out processes.csv --quiet --executor processes
check processes-bitwise 0 "same" -- sh -c "cmp sequential.csv processes.csv && echo same"
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 2 --out processes1.csv --quiet --executor processes:1
check processes-one-bitwise 0 "same" -- sh -c "cmp sequential.csv processes1.csv && echo same"
no_temp_left processes-bitwise

# PETSc (ifosmondi-jfm) starts MPI as a singleton: its session directory goes too
check petsc-run 0 "macro-steps" -- "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 0.1 --method ifosmondi-jfm --out jfm.csv
no_temp_left petsc-mpi-session

# --- in process: one line naming the call, the streamed rows, the stats, nothing left -------------
# (5: a stack overflow, handled on the alternate stack; 6: under the FMU's own SIGSEGV handler)
for spec in "1:SIGSEGV" "2:SIGABRT" "3:called exit\(\)" "5:SIGSEGV" "6:SIGSEGV"; do
  mode=${spec%%:*}
  misbehave "$mode"
  (ulimit -c 0; exec "$cosima" run "m$mode.json" --out "i$mode.csv" --stats "i$mode.json") >"$work/out" 2>&1
  code=$?
  if [ "$code" -eq 0 ] || ! grep -qE "cosima: (fatal|error): .*${spec#*:}.* (in )?fmi2DoStep of system 'm' \(FMU '.*cosima_test_misbehave.fmu'\) at t = 0.5" "$work/out" \
     || ! grep -q '"terminated_early": true' "i$mode.json"; then
    echo "FAIL in-process-mode-$mode: exit $code, output:"; cat "$work/out"; cat "i$mode.json"; failures=$((failures + 1))
  else
    echo "ok   in-process-mode-$mode (exit $code)"
  fi
  rows_reach "i$mode.csv" 0.49 "in-process-mode-$mode-rows"
  no_temp_left "in-process-mode-$mode"
done

# MAT results are streamed as CSV rows are: a crash in process keeps the rows so far
misbehave 1
(ulimit -c 0; exec "$cosima" run m1.json --out i1.mat --stats i1m.json) >"$work/out" 2>&1
mat_reach i1.mat 0.49 in-process-crash-mat-rows
no_temp_left in-process-crash-mat

# a crash in fmi2FreeInstance after a run that went well: never exit 0
misbehave 7
(ulimit -c 0; exec "$cosima" run m7.json --out i7.csv --stats i7.json) >"$work/out" 2>&1
code=$?
if [ "$code" -eq 0 ] || ! grep -q "SIGSEGV in fmi2Terminate/fmi2FreeInstance of system 'm' .* at t = 1" "$work/out"; then
  echo "FAIL teardown-crash-in-process: exit $code"; cat "$work/out"; failures=$((failures + 1))
else
  echo "ok   teardown-crash-in-process (exit $code)"
fi
no_temp_left teardown-crash-in-process

# deaths no handler of cosima's sees — an FMU that set SIGSEGV back to its default action and crashed,
# a SIGKILL in an FMU call (mode 4 hangs in it from t = 0.5 on): the watcher names the call and removes the unpacked FMUs. The run's parent
# here reaps it only after the watcher is gone (end of file on stderr), as the watcher reads the
# signal from the zombie; a shell that reaps at once may leave the signal unnamed ("ended").
unreaped() {  # [--kill-after SECONDS] COMMAND... → its stderr, then exit 128 + signal or its status
  python3 - "$@" <<'PY'
import os, resource, signal, subprocess, sys, threading
args = sys.argv[1:]
p = subprocess.Popen(args[2:] if args[0] == "--kill-after" else args, stderr=subprocess.PIPE,
                     preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
if args[0] == "--kill-after":
    threading.Timer(float(args[1]), lambda: os.kill(p.pid, signal.SIGKILL)).start()
seen = p.stderr.read()  # until the process and its watcher are gone
sys.stdout.write(seen.decode(errors="replace"))
code = p.wait()
sys.exit(128 - code if code < 0 else code)
PY
}
misbehave 10
unreaped "$cosima" run m10.json --out i10.csv --stats i10.json >"$work/out" 2>&1
code=$?
if [ "$code" -ne 139 ] || ! grep -qE "^cosima: fatal: process [0-9]+ died of SIGSEGV in fmi2DoStep of system 'm' \(FMU '.*cosima_test_misbehave.fmu'\) at t = 0.5, past cosima's crash handler, which the FMU had replaced; seen by cosima's watcher: the unpacked FMUs were removed" "$work/out" \
   || [ -e i10.csv ] || ! ls i10.csv.incomplete-* >/dev/null 2>&1; then
  echo "FAIL in-process-mode-10: exit $code, output:"; cat "$work/out"; ls; failures=$((failures + 1))
else
  echo "ok   in-process-mode-10 (exit $code; the CSV named incomplete)"
fi
no_temp_left in-process-mode-10
rm -f i10.csv.incomplete-* i10.json.incomplete-*
misbehave 4
check sigkill-in-a-call 137 "^cosima: fatal: process [0-9]+ was killed by SIGKILL in fmi2DoStep of system 'm' .* at t = 0.5; seen by cosima's watcher" -- \
  unreaped --kill-after 2 "$cosima" run m4.json --out k.csv
no_temp_left sigkill-in-a-call
rm -f k.csv.incomplete-*
# a run that ends well: the watcher says nothing
check watcher-silent 0 "^0$" -- sh -c "'$cosima' run '$examples/b3_lotka_volterra_fmu.json' --stop 0.1 --out silent.csv --quiet 2>&1 | wc -c"
check teardown-crash-processes 1 "system 'm' .*died of SIGSEGV while shutting down in fmi2Terminate/fmi2FreeInstance at t = 1" -- \
  "$cosima" run m7.json --executor processes --out p7.csv --stats p7.json
check teardown-crash-processes-stats 0 '"error": "system .m. .*died of SIGSEGV' -- cat p7.json
no_temp_left teardown-crash-processes

# LOG COMMAND…: runs COMMAND in the background (output to LOG), sends SIGINT after 2 s and again
# 0.5 s later; returns its exit code
forced_exit() {
  local log=$1 pid
  shift
  "$@" >"$log" 2>&1 &
  pid=$!
  sleep 2
  kill -INT $pid
  sleep 0.5
  kill -INT $pid
  wait $pid
}

# an FMU hung in fmi2DoStep: the first SIGINT waits for the step, the second forces the exit — with
# the rows computed so far, the stats, no child left and no temporary directory
misbehave 4
for executor in sequential processes; do
  # by its path in this test's own directory: another checkout's run of this test is not counted below
  forced_exit "$work/out" "$cosima" run "$work/m4.json" --executor "$executor" --out "h_$executor.csv" --stats "h_$executor.json"
  code=$?
  # in process, the line names the call that hangs
  stuck=$([ "$executor" = sequential ] && echo ", the run stuck in fmi2DoStep of system 'm' (FMU '.*cosima_test_misbehave.fmu') at t = 0.5;" || echo ";")
  if [ "$code" -ne 130 ] || ! grep -q "forced exit by a second SIGINT$stuck" "$work/out" || ! grep -q '"terminated_early": true' "h_$executor.json" \
     || pgrep -f "cosima run $work/m4.json" >/dev/null; then
    echo "FAIL forced-exit-$executor: exit $code"; cat "$work/out"; cat "h_$executor.json"; failures=$((failures + 1))
  else
    echo "ok   forced-exit-$executor (exit 130)"
  fi
  rows_reach "h_$executor.csv" 0.49 "forced-exit-$executor-rows"
  no_temp_left "forced-exit-$executor"
done
# ... and a MAT file's too
forced_exit "$work/out_mat" "$cosima" run "$work/m4.json" --out h.mat --stats h_mat.json
check forced-exit-mat-says-on-disk 0 "computed so far are on disk" -- cat "$work/out_mat"
mat_reach h.mat 0.49 forced-exit-mat-rows
no_temp_left forced-exit-mat

# SIGKILL, where nothing can be undone: no file is left under the name asked for, only files named
# for what they are (README: what a killed run leaves)
echo old > k.csv
mkdir -p killed_tmp  # (a killed run leaves its unpacked FMUs too: in a TMPDIR of its own here)
TMPDIR=$work/killed_tmp "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --dt 1e-5 --stop 100000 --out k.csv --quiet >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
check sigkill-names-what-it-leaves 0 "^k.csv.incomplete-[A-Za-z0-9]{6} k.csv.previous-[A-Za-z0-9]{6} $" -- \
  sh -c "LC_ALL=C ls -A | grep '^k\.csv' | tr '\n' ' '"
check sigkill-keeps-the-earlier-file 0 "^old$" -- sh -c "cat k.csv.previous-*"
rm -rf k.csv.incomplete-* k.csv.previous-* killed_tmp

# --- interrupts -------------------------------------------------------------------------------------
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --dt 1e-5 --stop 100000 --out int.csv --stats int.json \
  --set output.interval=0.01 >"$work/out" 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
code=$?
if [ "$code" -ne 130 ] || ! grep -q '"terminated_early": true' int.json || ! grep -q "interrupted by SIGINT" int.json || [ "$(wc -l < int.csv)" -lt 2 ]; then
  echo "FAIL sigint: exit $code"; cat "$work/out"; cat int.json; failures=$((failures + 1))
else
  echo "ok   sigint: exit 130, $(($(wc -l < int.csv) - 1)) rows, terminated_early"
fi
no_temp_left sigint
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --dt 1e-5 --stop 100000 --out term.csv --stats term.json >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
code=$?
check sigterm 143 "code 143" -- sh -c "echo code $code; exit $code"
check sigterm-stats 0 "interrupted by SIGTERM" -- cat term.json
no_temp_left sigterm
# a closed terminal (SIGHUP) stops the run like SIGINT: rows, stats, exit 129
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --dt 1e-5 --stop 100000 --out hup.csv --stats hup.json >/dev/null 2>&1 &
pid=$!
sleep 1
kill -HUP $pid
wait $pid
code=$?
check sighup 129 "code 129" -- sh -c "echo code $code; exit $code"
check sighup-stats 0 "interrupted by SIGHUP" -- cat hup.json
no_temp_left sighup
# a full disk (ENOSPC) is a named write error: exit 1, the stats say why, nothing left behind
check enospc-out 1 "error while writing '/dev/full': No space left on device" -- \
  "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 10 --out /dev/full --stats full.json
check enospc-out-stats 0 '"error": "error while writing ./dev/full.: No space left on device"' -- cat full.json
no_temp_left enospc-out
# a small file system filled up (needs mount: root; skipped otherwise): results and stats on it
mkdir -p small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
  check enospc-disk 1 "error while writing '.*small/r.csv': No space left on device" -- \
    "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 100 --dt 1e-3 --out small/r.csv --stats small/r.json
  check enospc-disk-rows 0 "^time," -- head -1 small/r.csv
  # the last row is whole: a newline at the end, as many cells as the header
  check enospc-disk-last-row-whole 0 "^whole$" -- sh -c "[ \"\$(tail -c1 small/r.csv | od -An -c | tr -d ' ')\" = '\\n' ] && \
    [ \$(head -1 small/r.csv | tr -cd , | wc -c) -eq \$(tail -1 small/r.csv | tr -cd , | wc -c) ] && echo whole"
  rm -f small/r.csv small/r.json
  check enospc-disk-mat 1 "error while writing '.*small/r.mat': No space left on device" -- \
    "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 100 --dt 1e-3 --out small/r.mat
  check enospc-disk-mat-whole 0 "^[0-9]+ [0-9.]+$" -- mat_rows small/r.mat
  no_temp_left enospc-disk
  umount small
else
  echo "skip enospc-disk: cannot mount a small tmpfs here (not root)"
fi

# --- smaller points: a missing TMPDIR is named; a table of ±1e308 is no NaN -------------------------
check missing-tmpdir 1 "TMPDIR='/nonexistent-cosima-tmp' is not a folder, and cosima unpacks FMUs there" -- \
  env TMPDIR=/nonexistent-cosima-tmp "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 0.1 --out tmpdir.csv
printf 'time,q\n0,1e308\n1,-1e308\n' > huge.csv
echo '{"stop": 1, "method": {"type": "jacobi", "dt": 0.25}, "systems": {"src": {"csv": "huge.csv"}}}' > huge.json
check huge-slope-named 1 "rows 1-2: 'q' goes from 1e\+308 to -1e\+308 in 1 s, a slope beyond a double's range" -- \
  "$cosima" run huge.json --out huge.csv.out --set output.format='"csv"'
check huge-held 0 "^0.5,1e\+308$" -- sh -c "'$cosima' run huge.json --set 'systems.src.interpolation=\"hold\"' --out huge_held.csv --quiet && \
  grep '^0.5,' huge_held.csv"
check huge-held-last 0 "^1,-1e\+308$" -- tail -1 huge_held.csv

# --- outputs replace the previous ones only with rows: created beside, renamed over ------------------
cat > nan0.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01}, "systems": {"n": {"fmu": "$fmus/cosima_test_nan.fmu", "parameters": {"nan_at": 0}}},
 "inputs": {"n.u": 0}}
JSON
mkdir -p kept && echo old > kept/r.csv && chmod 600 kept/r.csv && ln -sf r.csv kept/link.csv
check kept-failed-before-rows 1 "output 'y' is nan at t = 0" -- "$cosima" run nan0.json --out kept/r.csv --stats kept/r.json
check kept-results 0 "^old$" -- cat kept/r.csv
check kept-failed-stats 0 '"error": "system .n. at t = 0: output .y. is nan' -- cat kept/r.json
check kept-nothing-beside 0 "^link.csv r.csv r.json $" -- sh -c "LC_ALL=C ls -A kept | tr '\n' ' '"
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 0.5 --out kept/link.csv --quiet
check replaced-through-link 0 "^link.csv -> r.csv 600 502$" -- \
  sh -c "echo \$(readlink kept/link.csv | sed 's/^/link.csv -> /') \$(stat -c %a kept/r.csv) \$(wc -l < kept/r.csv)"
check replaced-nothing-beside 0 "^link.csv r.csv r.json $" -- sh -c "LC_ALL=C ls -A kept | tr '\n' ' '"

# --- outputs opened first, output grid ----------------------------------------------------------------
check out-path-first 1 "cannot write '/nonexistent/x.csv'" -- "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 1000 --out /nonexistent/x.csv
check stats-path-first 1 "cannot write '/nonexistent/x.json'" -- "$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 1000 --stats /nonexistent/x.json
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 1 --dt 0.01 --set output.interval=0.01 --out grid.csv --quiet
check output-grid-every-step 0 "^101$" -- sh -c "tail -n +2 grid.csv | wc -l"
"$cosima" run "$examples/b3_lotka_volterra_fmu.json" --stop 1 --dt 0.001 --set output.interval=0.1 --out grid2.csv --quiet
check output-grid-interval 0 "^11$" -- sh -c "tail -n +2 grid2.csv | wc -l"

check threads-capped 0 "capped at threads:2, the number of systems" -- "$cosima" run "$examples/b3_lotka_volterra.json" --executor threads:8 --stop 1 --out capped.csv

# --- validation left over ------------------------------------------------------------------------------
b1="$examples/b1_ifosmondi_damper.json"
check epsilon-zero 1 "method.epsilon = 0 must be positive" -- "$cosima" run "$b1" --method ifosmondi-jfm --set method.epsilon=0
check rtol-negative 1 "'rtol' = -1 must be positive" -- "$cosima" run "$b1" --set systems.mass.integrator_options.rtol=-1
check interval-negative 1 "output.interval' must be a finite number ≥ 0" -- "$cosima" run "$b1" --set output.interval=-1
check steps-per-call-zero 1 "steps_per_call' must be an integer in \[1" -- "$cosima" run "$b1" --set systems.mass.integrator_options.steps_per_call=0
check memory-negative 1 "method.memory must be an integer in \[1" -- "$cosima" run "$b1" --method jacobi --set method.memory=-3
printf '{\n  "stop": 1,\n  "systems": {,}\n}\n' > syntax.json
check json-line-column 1 "not valid JSON: parse error at line 3, column 15" -- "$cosima" run syntax.json
mkdir -p adir.fmu
check scenario-directory 1 "is a directory" -- "$cosima" run "$work"
check fmu-directory 1 "cannot open FMU '.*adir.fmu': it is a directory" -- "$cosima" info adir.fmu

no_temp_left end
echo "cli.reliability: $failures failure(s)"
[ "$failures" -eq 0 ]
