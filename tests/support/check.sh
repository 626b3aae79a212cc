# Sourced by the command-line tests: makes the scratch directory $work (removed at exit) with a
# private TMPDIR inside, and counts into $failures.
#   check NAME EXPECTED_EXIT PATTERN -- command...
# runs the command, and passes when it exits with EXPECTED_EXIT and its output matches PATTERN.
failures=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
check() {
  local name=$1 expected=$2 pattern=$3
  shift 4
  "$@" >"$work/out" 2>&1
  local code=$?
  if [ "$code" -ne "$expected" ] || ! grep -qE -- "$pattern" "$work/out"; then
    echo "FAIL $name: exit $code (expected $expected), output:"; cat "$work/out"; failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
