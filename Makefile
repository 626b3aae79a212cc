# The two commands of the README, and a few helpers.
#   make demo   install what is missing, build, run the demo scenario (B3, Jacobi vs reference)
#   make test   install what is missing, build with warnings as errors, run every test
#   make fuzz   build the libFuzzer harnesses (clang, build-fuzz/) and run each for 60 s
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 10
FUZZ_HARNESSES := fuzz_scenario fuzz_model_description fuzz_fmu_archive fuzz_csv fuzz_ssd fuzz_frames \
  fuzz_python_scenario

.PHONY: all bootstrap build demo test test-sanitize fuzz-build fuzz fuzz-smoke bench clean

all: build

bootstrap:
	@bash scripts/bootstrap.sh

build: bootstrap
	@cmake -S . -B $(BUILD) -DCOSIMA_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# the demo needs the cosima command only: a fresh clone builds that, not the tests and test FMUs
demo: bootstrap
	@cmake -S . -B $(BUILD) -DCOSIMA_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target cosima
	@bash scripts/demo.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest -j$(JOBS) --output-on-failure

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs both), less the bench
# smokes (bench.*.quick: `make test` runs them; under ASan they repeat the library paths the unit
# tests cover at ten times the cost, ~4 min of CI). use_tls=0: LeakSanitizer's tracer dies of SIGSEGV
# reading the stale dynamic TLS of a module unloaded before the leak check (Open MPI's components, at
# PETSc's MPI_Finalize); not scanning TLS can only add reports, never hide a leak.
# -O1 -g1: ASan's advised level, with line tables for the reports; it compiles 2.3x faster than -O2 -g.
# Also left out: what compares the cosima binary with something outside it, which ASan changes —
# house.global_scope (the ASan runtime must come first in the global scope), the conformance suites
# (fmusim cannot load FMUs built with ASan; the equivalence runs' MPI and timing budgets) and
# exec.equivalence (whole-process runs per executor, 4x slower under ASan than its timeouts allow).
test-sanitize: bootstrap
	@cmake -S . -B $(BUILD)-sanitize -DCOSIMA_WERROR=ON -DCOSIMA_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
	@cmake --build $(BUILD)-sanitize -j$(JOBS)
	@cd $(BUILD)-sanitize && ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:use_tls=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j$(JOBS) --output-on-failure \
	  -E '^(bench[.].*|house[.]global_scope|conformance[.].*|exec[.]equivalence)$$'

# libFuzzer harnesses (tests/fuzz/) over the input readers (cosima_parse), the process executor's
# frames and the Python module's dict → JSON conversion, under ASan + UBSan:
# `make fuzz` runs each for 60 s, `make fuzz-smoke` (CI) for FUZZ_SECONDS. Only the harnesses and
# what they link are built.
fuzz-build: bootstrap
	@cmake -S . -B $(BUILD)-fuzz -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOSIMA_FUZZ=ON -DBUILD_TESTING=OFF -DCOSIMA_WERROR=ON >/dev/null
	@cmake --build $(BUILD)-fuzz -j$(JOBS) --target $(FUZZ_HARNESSES)

fuzz: fuzz-build
	@bash tests/fuzz/run.sh $(BUILD)-fuzz 60

fuzz-smoke: fuzz-build
	@bash tests/fuzz/run.sh $(BUILD)-fuzz $(FUZZ_SECONDS)

bench: build
	@$(BUILD)/cosima bench jacobi

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize $(BUILD)-fuzz
