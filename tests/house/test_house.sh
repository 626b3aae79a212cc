#!/usr/bin/env bash
# The house rules of docs/architecture.md: the checkers pass on the tree, and each one fails on a
# tree that breaks its rule (an upward include; code outside its layer's namespace; a front end past
# the facade; a function over the limit; a file off .clang-format).
set -u
root=$1
failures=0
expect() {  # name, wanted exit status, command...
  local name=$1 want=$2
  shift 2
  local output
  output=$("$@" 2>&1)
  local code=$?
  if [ "$code" -ne "$want" ]; then
    echo "FAIL $name: exit $code, wanted $want"; echo "$output" | tail -5; failures=$((failures + 1))
  else
    echo "ok   $name: $(echo "$output" | tail -1)"
  fi
}
named() {  # name, what the output must say, command...
  local name=$1 wanted=$2
  shift 2
  if "$@" | grep -qF "$wanted"; then
    echo "ok   $name: named"
  else
    echo "FAIL $name: the output does not say: $wanted"; failures=$((failures + 1))
  fi
}
expect layers 0 python3 "$root/scripts/check_layers.py" "$root"
expect function-length 0 python3 "$root/scripts/check_function_length.py" "$root"
expect format 0 bash "$root/scripts/check_format.sh" "$root"

bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
mkdir -p "$bad/src/exec" "$bad/src/methods"
printf '#include "methods/coupling_method.hpp"\n' > "$bad/src/exec/upward.hpp"
printf '#pragma once\n' > "$bad/src/methods/coupling_method.hpp"
expect layers-refuse-upward 1 python3 "$root/scripts/check_layers.py" "$bad"
rm "$bad/src/exec/upward.hpp"
printf '#include "exec/x.hpp"\n' > "$bad/src/methods/down.hpp"
expect layers-allow-downward 0 python3 "$root/scripts/check_layers.py" "$bad"
printf 'namespace cosima::exec {\n}\n' > "$bad/src/methods/foreign.hpp"
named namespace-refuse "src/methods/foreign.hpp:1: declares namespace cosima::exec" \
  python3 "$root/scripts/check_layers.py" "$bad"
rm "$bad/src/methods/foreign.hpp"
mkdir -p "$bad/python"
printf '#include "exec/executor.hpp"\n' > "$bad/python/module.cpp"
named facade-refuse 'python/module.cpp:1: includes "exec/executor.hpp", past the facade' \
  python3 "$root/scripts/check_layers.py" "$bad"
rm "$bad/python/module.cpp"
{ echo 'namespace cosima {'; echo 'int long_one(int x) {'; for i in $(seq 1 85); do echo "  x += $i;"; done; echo '  return x;'; echo '}'; echo '}'; } > "$bad/src/methods/long.cpp"
named function-length-refuse "src/methods/long.cpp:2: long_one is 88 lines" \
  python3 "$root/scripts/check_function_length.py" "$bad"
if command -v clang-format > /dev/null; then
  cp "$root/.clang-format" "$bad/"
  mkdir -p "$bad/models" "$bad/bench" "$bad/python" "$bad/tests"
  printf 'int  f( int x ){return x;}\n' > "$bad/src/methods/ugly.cpp"
  expect format-refuse 1 bash "$root/scripts/check_format.sh" "$bad"
fi
echo "house: $failures failure(s)"
exit $((failures > 0))
