# tests/conformance.mk - `make conformance` and `make coverage`
# (included by the top Makefile).
#
# Owns: running the conformance vectors (tests/conformance/) against any
# implementation, and the coverage gate of the core measured with the
# conformance suite alone.
#
#   make conformance [IMPL="any command"]
#       runs IMPL on every vector (stream on stdin, trace on stdout);
#       default IMPL is $(BUILD)/qsched.  Prints PASS/FAIL per vector, the
#       first divergence of each failure, and "N passed, N failed"; fails
#       if anything failed.
#   make coverage
#       builds the core with gcov into build/coverage, runs the suite alone
#       and reports line and branch coverage of the core with gcovr; fails
#       below COVERAGE_MIN (95) percent of lines or branches.  "The core"
#       is COVERAGE_CORE: the scheduling code (kernels, parameters, maps,
#       scheduler).  check.c (the invariant checker, whose failure branches
#       only a broken core can take) is reported on its own line, not gated.

IMPL ?= $(BUILD)/qsched
COVERAGE_BUILD := build/coverage
COVERAGE_MIN ?= 95
COVERAGE_CORE := src/kernels.c src/params.c src/map.c src/sched.c
COVERAGE_FILTER := $(subst $(eval) ,|,$(patsubst src/%.c,%,$(COVERAGE_CORE)))

.PHONY: conformance coverage conformance-regen conformance-index

conformance: $(BUILD)/qsched
	@QSCHED=$(abspath $(BUILD)/qsched) sh tests/conformance/run.sh "$(IMPL)"

coverage:
	@$(MAKE) -s BUILD=$(COVERAGE_BUILD) OPT="-O0 -g --coverage" \
	  $(COVERAGE_BUILD)/qsched
	@find $(COVERAGE_BUILD) -name '*.gcda' -exec rm -f {} +
	@QSCHED=$(abspath $(COVERAGE_BUILD)/qsched) sh tests/conformance/run.sh \
	  -q $(abspath $(COVERAGE_BUILD)/qsched)
	@echo "== coverage of the core ($(COVERAGE_CORE)) by the conformance suite"
	@gcovr --root . --object-directory $(COVERAGE_BUILD)/obj \
	  --filter 'src/($(COVERAGE_FILTER))\.c$$' --exclude-unreachable-branches \
	  --print-summary -b | tail -n +4
	@echo "== not gated: src/check.c (invariant checker)"
	@gcovr --root . --object-directory $(COVERAGE_BUILD)/obj \
	  --filter 'src/check\.c$$' --print-summary -o /dev/null
	@gcovr --root . --object-directory $(COVERAGE_BUILD)/obj \
	  --filter 'src/($(COVERAGE_FILTER))\.c$$' --exclude-unreachable-branches \
	  --fail-under-line $(COVERAGE_MIN) --fail-under-branch $(COVERAGE_MIN) \
	  -o /dev/null || { echo "coverage: below $(COVERAGE_MIN)% of lines or branches"; exit 1; }

# Maintainer targets: regenerate the generated vectors (their expected
# traces come from qsched: a regression oracle), and the index and the
# traceability table (from the vector headers).
conformance-regen: $(BUILD)/qsched
	@sh tests/conformance/tools/regen.sh $(BUILD)/qsched

conformance-index:
	@python3 tests/conformance/tools/index.py --write
