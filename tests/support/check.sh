# Sourced by the command-line tests. Needs $work (a scratch directory); counts into $failures.
#   check NAME EXPECTED_EXIT PATTERN -- command...
# runs the command, and passes when it exits with EXPECTED_EXIT and its output matches PATTERN.
failures=0
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
