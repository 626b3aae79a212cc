#!/usr/bin/env bash
# MATLAB v4 results (--out x.mat, output.format): read back with scipy.io.loadmat, names and values
# equal to the CSV of the same run; unknown extensions, contradictions and String columns refused by
# name; a failed run keeps the rows computed so far.
set -u
cosima=$1
examples=$2
fmus=$3
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1
checker="$(dirname "$0")/check_mat.py"
b3="$examples/b3_lotka_volterra_fmu.json"

"$cosima" run "$b3" --stop 2 --out r.csv --quiet
check mat-run 0 "results +r.mat" -- "$cosima" run "$b3" --stop 2 --out r.mat
if /usr/bin/python3 -c "import scipy.io" 2>/dev/null; then
  check mat-equals-csv 0 "^same: 3 variables, 2001 rows$" -- /usr/bin/python3 "$checker" r.mat r.csv
  "$cosima" run "$b3" --stop 2 --method missiles --set output.interval=0.1 --out m.csv --quiet
  "$cosima" run "$b3" --stop 2 --method missiles --set output.interval=0.1 --out m.mat --quiet
  check mat-equals-csv-missiles 0 "^same: 3 variables, 21 rows$" -- /usr/bin/python3 "$checker" m.mat m.csv
  cp "$b3" b3.json
  check mat-from-format 0 "results +b3.mat" -- "$cosima" run b3.json --stop 2 --set output.format='"mat"'
else
  echo "skip mat-equals-csv: /usr/bin/python3 has no scipy (Debian's python3-scipy; make bootstrap installs it)"
fi
check mat-format-contradicts 1 "results file 'm2.csv' is .csv but output.format is \"mat\"" -- \
  "$cosima" run "$b3" --stop 2 --set output.format='"mat"' --out m2.csv
check unknown-extension 1 "results file 'r.txt': '.txt' is not a results format: .csv or .mat" -- \
  "$cosima" run "$b3" --stop 2 --out r.txt
check no-extension 1 "results file 'results': no extension is not a results format" -- "$cosima" run "$b3" --stop 2 --out results
check bad-format 1 "'output.format' is \"xlsx\": \"csv\" or \"mat\"" -- "$cosima" run "$b3" --set output.format='"xlsx"'
check mat-to-stdout 1 "MAT results need a file" -- "$cosima" run "$b3" --stop 2 --set output.format='"mat"' --out -
check mat-no-plot 2 "--plot draws CSV results" -- "$cosima" run "$b3" --stop 2 --out p.mat --plot p.svg
check mat-device 0 "results +/dev/null" -- "$cosima" run "$b3" --stop 2 --out /dev/null

# a run that fails keeps its rows in the MAT file too
cat > nan.json <<JSON
{"stop": 1, "method": {"type": "jacobi", "dt": 0.01}, "systems": {"n": {"fmu": "$fmus/cosima_test_nan.fmu", "parameters": {"nan_at": 0.5}}},
 "inputs": {"n.u": 0}}
JSON
check mat-failed-run 1 "output 'y' is nan at t = 0.5" -- "$cosima" run nan.json --out nan.mat
if /usr/bin/python3 -c "import scipy.io" 2>/dev/null; then
  check mat-failed-rows 0 "^50$" -- /usr/bin/python3 -c "import scipy.io; print(scipy.io.loadmat('nan.mat')['data_2'].shape[1])"
fi
# descriptions and units as the FMU declares them ("description [unit]", as Dymola writes them)
vdp="$fmus/cosima_test_vanderpol.fmu"
check mat-descriptions-run 0 "results +v.mat" -- "$cosima" run "$vdp" --stop 1 --out v.mat \
  --set 'output.variables=["cosima_test_vanderpol.x0","cosima_test_vanderpol.x1","cosima_test_vanderpol.mu"]'
if /usr/bin/python3 -c "import scipy.io" 2>/dev/null; then
  check mat-descriptions 0 "^Time in \[s\]|Position of the oscillator \[m\]||Damping$" -- /usr/bin/python3 -c \
    "import scipy.io; m = scipy.io.loadmat('v.mat', chars_as_strings=False); print('|'.join(''.join(c).rstrip() for c in m['description'].T))"
  "$cosima" run "$vdp" --stop 1 --out vp.mat --executor processes --quiet --set 'output.variables=["cosima_test_vanderpol.x0"]'
  check mat-descriptions-processes 0 "^Time in \[s\]|Position of the oscillator \[m\]$" -- /usr/bin/python3 -c \
    "import scipy.io; m = scipy.io.loadmat('vp.mat', chars_as_strings=False); print('|'.join(''.join(c).rstrip() for c in m['description'].T))"
fi
check nothing-beside 0 "^0$" -- sh -c "ls -A | grep -c cosima- || true"

echo "cli.mat_results: $failures failure(s)"
[ "$failures" -eq 0 ]
