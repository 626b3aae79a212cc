# The two commands of the README, and a few helpers.
#   make demo   install what is missing, build, run the demo scenario (B3, Jacobi vs reference)
#   make test   install what is missing, build with warnings as errors, run every test
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all bootstrap build demo test test-sanitize bench clean

all: build

bootstrap:
	@bash scripts/bootstrap.sh

build: bootstrap
	@cmake -S . -B $(BUILD) -DCOSIMA_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest -j$(JOBS) --output-on-failure

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs both).
test-sanitize: bootstrap
	@cmake -S . -B $(BUILD)-sanitize -DCOSIMA_WERROR=ON -DCOSIMA_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD)-sanitize -j$(JOBS)
	@cd $(BUILD)-sanitize && ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j$(JOBS) --output-on-failure

bench: build
	@$(BUILD)/cosima bench jacobi

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize
