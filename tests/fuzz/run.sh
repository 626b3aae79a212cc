#!/usr/bin/env bash
# Runs each libFuzzer harness of a fuzz build (make fuzz / make fuzz-smoke) for SECONDS, one after
# the other, each on a fresh copy of its seed corpus (BUILD/corpus/<harness>; the tree's corpus is
# never written), with its dictionary. Prints the executions per harness; exits non-zero when any
# harness found a crash, a sanitizer report, a leak, a timeout or an out-of-memory.
#   bash tests/fuzz/run.sh BUILD SECONDS
# Logs: BUILD/fuzz-logs/<harness>.log; reproducers: BUILD/fuzz-artifacts/<harness>/ (re-run one
# with `BUILD/tests/fuzz/<harness> FILE`).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run.sh BUILD SECONDS}
seconds=${2:?usage: run.sh BUILD SECONDS}
build=$(cd "$build" && pwd)
harnesses=(fuzz_scenario fuzz_model_description fuzz_fmu_archive fuzz_csv fuzz_ssd fuzz_frames fuzz_python_scenario)
# long enough for the nesting seeds (a scenario nested 10⁵ deep is 200 kB) to be kept and mutated
max_len=${FUZZ_MAX_LEN:-262144}

# The harnesses write their input to a file and FmuArchive unpacks: on a tmpfs that is ~40x faster
# than on disk. Each harness makes its private folder there; a crash leaves it, so remove them all.
scratch=$(mktemp -d "${FUZZ_TMPDIR:-/dev/shm}/cosima-fuzz-run.XXXXXX" 2>/dev/null || mktemp -d "$build/fuzz-tmp.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/fuzz-logs"
stamp=$build/fuzz-logs/.started
touch "$stamp"
failed=()
for h in "${harnesses[@]}"; do
  exe=$build/tests/fuzz/$h
  [ -x "$exe" ] || { echo "fuzz: $exe is not built"; exit 2; }
  corpus=$build/corpus/$h
  artifacts=$build/fuzz-artifacts/$h
  tmp=$scratch/$h
  log=$build/fuzz-logs/$h.log
  rm -rf "$corpus" "$tmp"
  mkdir -p "$corpus" "$artifacts" "$tmp"
  cp tests/fuzz/corpus/"$h"/* "$corpus"/
  dict=()
  [ -f "tests/fuzz/$h.dict" ] && dict=(-dict="tests/fuzz/$h.dict")
  # the embedded interpreter's own allocations (interned objects, caches, modules) outlive every input
  # and look like leaks to LeakSanitizer: fuzz_python_scenario alone runs without its leak check
  leaks=1
  [ "$h" = fuzz_python_scenario ] && leaks=0
  # TMPDIR: the harness makes its private folder there
  TMPDIR=$tmp ASAN_OPTIONS=detect_leaks=$leaks:detect_stack_use_after_return=1:strict_string_checks=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$exe" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 -max_len="$max_len" \
    "${dict[@]}" -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  [ -n "$runs" ] || runs=$(grep -o '^Done [0-9]* runs' "$log" | grep -o '[0-9]\+' | tail -1)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tr -d '#' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    printf 'fuzz: %-24s %9s executions in %ss (%s, corpus %s inputs): no finding\n' "$h" "${runs:-?}" "$seconds" "${cov:-cov: ?}" "$units"
  else
    printf 'fuzz: %-24s %9s executions, FINDING (exit %s), log %s\n' "$h" "${runs:-?}" "$rc" "$log"
    grep -m3 -E 'ERROR: |runtime error|deadly signal|uncaught exception|fuzz harness:|Test unit written' "$log" | sed 's/^/  /'
    # the stack from the first frame outside libFuzzer, the sanitizers, libc and libstdc++
    grep -E '^ *#[0-9]+ 0x' "$log" | grep -vE 'fuzzer::|__sanitizer_|__asan_|__ubsan|libc\.so|libstdc\+\+|pthread_kill|raise|abort' |
      sed -E ':a; s/<[^<>]*>//g; ta; s/ \(BuildId: [0-9a-f]*\)//; s/ 0x[0-9a-f]+ in / /; s/\(([^()]*)\)//g; s/^ */  /' |
      cut -c1-200 | head -8
    find "$artifacts" -type f -newer "$stamp" | sed 's/^/  reproducer: /'
    failed+=("$h")
  fi
done
if ((${#failed[@]} > 0)); then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#harnesses[@]} harnesses ran ${seconds}s each without a finding"
