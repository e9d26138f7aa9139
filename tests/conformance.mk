# tests/conformance.mk - `make conformance` and `make coverage`
# (included by the top Makefile).
#
# Owns: running the conformance vectors (tests/conformance/) against any
# implementation, and the coverage gate of the core measured with the
# conformance suite alone.
#
#   make conformance [IMPL="any command"] [CONFORMANCE_FLAGS="--tap ..."]
#                    [READINGS="NAME=VALUE ..."]
#       `qsched conformance` (src/conformance.c, the one runner; also
#       installed) runs IMPL on every vector (stream on stdin, trace on
#       stdout); default IMPL is $(BUILD)/qsched.  Prints PASS/FAIL per
#       vector, the first divergence of each failure with the named readings
#       that explain it, the rules whose vectors failed, and "N passed, N
#       failed"; fails if anything failed.
#       CONFORMANCE_FLAGS passes more options: --tap, --junit FILE,
#       --profile P, --input path, -q (docs/implementers.md).
#       READINGS: the readings IMPL follows (spec/readings.md, qsched -d);
#       a trace equal to qsched's under them passes.
#   make coverage
#       builds the core with gcov into build/coverage, runs the suite alone
#       (qsched with --stats, so that the statistics accessors run too; the
#       extra lines do not count in the comparison; and with
#       --check-invariants, so that the core's notes for the incremental
#       checker are taken too), then the golden twins of the named
#       readings (tests/golden/rd-*: the only streams that switch a reading
#       of spec/readings.md, which no implementation's suite contains) and
#       the malformed streams tests/errors/reading-*, prints gcovr's summary
#       of the core, and gates with tests/conformance/tools/coverage.py:
#       fails below COVERAGE_MIN (95) percent of lines or branches, leaving
#       out the code listed with its reason in
#       tests/conformance/coverage-unreachable.txt (unreachable from any
#       event stream; the raw numbers are printed too).
#       "The core" is COVERAGE_CORE: the scheduling code (kernels,
#       parameters, maps, scheduler).  src/check.c, the invariant checker
#       (its failure branches can only be taken by a broken core), and
#       src/state_text.c, its state description and encoding (split from
#       check.c, read by verify and the model checker, not by events), are
#       reported on their own line and not gated.

IMPL ?= $(BUILD)/qsched
COVERAGE_BUILD := build/coverage
COVERAGE_MIN ?= 95
COVERAGE_CORE := $(filter-out src/check.c src/check_changes.c src/state_text.c,$(CORE_SRC))
COVERAGE_FILTER := $(subst $(eval) ,|,$(patsubst src/%.c,%,$(COVERAGE_CORE)))

.PHONY: conformance coverage conformance-regen conformance-index

CONFORMANCE_FLAGS ?=
conformance: $(BUILD)/qsched
	@$(BUILD)/qsched conformance --suite tests/conformance --impl "$(IMPL)" \
	  $(if $(READINGS),--readings "$(READINGS)") $(CONFORMANCE_FLAGS)

# The coverage build compiles a snapshot of the sources (Makefile and src/)
# in $(COVERAGE_TREE), so that gcov reads the very text it measured even
# while src/ is being edited.
COVERAGE_TREE := $(COVERAGE_BUILD)/tree
COVERAGE_QSCHED := $(abspath $(COVERAGE_TREE))/build/qsched
# The blocker index (src/blocker_index.c) works on long job lists with long
# walks only: a second coverage build from the same snapshot, with the
# thresholds of tests/sh/blocker-index.sh's stress build (every list
# that asks a question indexed, the index switched on and off all the
# time; and lists past 256 jobs owning theirs, so that both sides of
# job_index.c's CIX_OWN run), runs long postfix-profile streams; the gate
# counts both builds as one run.
COVERAGE_STRESS_FLAGS := -DCIX_BUILD=4 -DCIX_DROP=2 -DCIX_BUY=0 -DCIX_IDLE_PART=1 -DCIX_OWN=256 -DCIX_SAMPLE=2 -DCIX_SAMPLE_STEPS=4 -DCIX_WORTH=1 -DQSI_BIX_WINDOW=4 -DQSI_BIX_MARKS=8 -DBIX_COLD=2 -DBIX_STEP=4
COVERAGE_STRESS_QSCHED := $(abspath $(COVERAGE_TREE))/build-stress/qsched

# The runner is the ordinary build: only the implementation under test,
# the coverage build, writes coverage data.
coverage: $(BUILD)/qsched
	@rm -rf $(COVERAGE_TREE) && mkdir -p $(COVERAGE_TREE)
	@cp -R Makefile src $(COVERAGE_TREE)/
	@$(MAKE) -s -C $(COVERAGE_TREE) BUILD=build OPT="-O0 -g --coverage" build/qsched
	@QSCHED=$(abspath $(BUILD)/qsched) sh tests/conformance/run.sh \
	  -q "$(COVERAGE_QSCHED) --stats --check-invariants"
	@# the vectors again at the explain level (not compared: the suite is
	@# the default level): the core builds explain records only when they
	@# are asked for (qs_sched_set_explain), so only such a run reaches them
	@for f in tests/conformance/hand/*.events tests/conformance/gen/*.events; do \
	  $(COVERAGE_QSCHED) --explain $$f >/dev/null 2>&1; done; true
	@echo "== the named readings: the rd goldens, -d, verify --readings"
	@for f in tests/golden/rd-*.events; do \
	  $(COVERAGE_QSCHED) --stats --check-invariants \
	    $$(sed -n '1s/^# args: *//p' $$f) $$f >/dev/null || exit 1; done
	@for f in tests/errors/reading-*.events; do \
	  $(COVERAGE_QSCHED) $$f >/dev/null 2>&1; [ $$? -eq 2 ] || exit 1; done
	@echo "== long job lists with long walks: the blocker index (src/blocker_index.c)"
	@$(MAKE) -s -C $(COVERAGE_TREE) BUILD=build-stress OPT="-O0 -g --coverage" \
	  CFLAGS="$(COVERAGE_STRESS_FLAGS)" build-stress/qsched
	@for g in "queue 1 3000 20000" "heavy 1 3000 20000" "large 3 300 20000" \
	    "large 5 300 20000" "mixed 2 0 20000" "transports 1 0 20000" \
	    "bulk 1 0 6000" "blockers 1 0 6000" "local 1 0 6000"; do set -- $$g; \
	  b=; [ $$3 -gt 0 ] && b="--backlog $$3"; \
	  $(BUILD)/qsched gen --seed $$2 --mix $$1 --profile postfix $$b \
	    --size $$4 >$(COVERAGE_TREE)/bix.events || exit 1; \
	  $(COVERAGE_QSCHED) --stats --check-invariants $(COVERAGE_TREE)/bix.events \
	    >/dev/null || exit 1; \
	  $(COVERAGE_STRESS_QSCHED) --stats --check-invariants $(COVERAGE_TREE)/bix.events \
	    >/dev/null || exit 1; done
	@$(COVERAGE_QSCHED) -d >/dev/null
	@$(COVERAGE_QSCHED) verify --readings tests/golden/rd-idle-window-discard.events \
	  tests/golden/rd-idle-window-keep.expected >/dev/null; [ $$? -eq 1 ]
	@# gcovr -o writes its report by replacing the file: never point it at
	@# /dev/null (as root that turns the device into a regular file).
	@echo "== gcovr: the core ($(COVERAGE_CORE)), all code"
	@cd $(COVERAGE_TREE) && gcovr --root . --object-directory build/obj \
	  --filter 'src/($(COVERAGE_FILTER))\.c$$' --print-summary -o build/gcovr-core.txt
	@echo "== gcovr: src/check.c, src/check_changes.c, src/state_text.c (invariant checker, not gated)"
	@cd $(COVERAGE_TREE) && gcovr --root . --object-directory build/obj \
	  --filter 'src/(check|check_changes|state_text)\.c$$' --print-summary -o build/gcovr-check.txt
	@echo "== gate: the core without code no event stream can reach"
	@cd $(COVERAGE_TREE) && python3 $(abspath tests/conformance/tools/coverage.py) \
	  build/obj:build-stress/obj $(COVERAGE_MIN) $(COVERAGE_CORE)

# Maintainer targets: regenerate the generated vectors (their expected
# traces come from qsched: a regression oracle), and the index and the
# traceability table (from the vector headers).
conformance-regen: $(BUILD)/qsched
	@$(MAKE) -s BUILD=build/conf-asan CC=clang \
	  OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
	  build/conf-asan/qsched
	@python3 tests/conformance/tools/regen.py $(BUILD)/qsched \
	  build/conf-asan/qsched
	@python3 tests/conformance/tools/index.py --write

conformance-index:
	@python3 tests/conformance/tools/index.py --write

# A deliberately broken qsched (tests/conformance/broken/*.patch applied to
# a copy of the sources): the suite must fail it with a useful report.
# Built without link-time optimisation: the diff harness below renames its
# objects' symbols with objcopy, which does not reach the symbols inside
# gcc's LTO sections (the final link would take those, under their old
# names).
BROKEN_TREE := build/broken/tree
build/broken/qsched: $(wildcard src/*.c src/*.h) tests/conformance/broken/refund-sign.patch
	@rm -rf $(BROKEN_TREE) && mkdir -p $(BROKEN_TREE)
	@cp -R Makefile src $(BROKEN_TREE)/
	@patch -s -p1 -d $(BROKEN_TREE) < tests/conformance/broken/refund-sign.patch
	@$(MAKE) -s -C $(BROKEN_TREE) BUILD=build OPT="-O2 -g" build/qsched
	@cp $(BROKEN_TREE)/build/qsched $@

.PHONY: conformance-broken
conformance-broken: build/broken/qsched
	@echo "== the suite against a qsched with a refund bug (must fail)"
	@$(BUILD)/qsched conformance --suite tests/conformance \
	  --impl "$(abspath build/broken/qsched)"; test $$? -ne 0

# The example differential harness (fuzz/diff-harness.c, fuzz/diff-README.md)
# against the broken copy: its objects are merged into one and every global
# symbol renamed other_* so that both copies link into one program.
DIFF_BUILD := build/diff
DIFF_OBJS := $(patsubst src/%.c,%,$(CORE_SRC)) events trace
$(DIFF_BUILD)/other.o: build/broken/qsched
	@mkdir -p $(DIFF_BUILD)
	@ld -r -o $(DIFF_BUILD)/other-all.o \
	  $(DIFF_OBJS:%=$(BROKEN_TREE)/build/obj/%.o)
	@nm -g --defined-only $(DIFF_BUILD)/other-all.o | \
	  awk '{print $$3, "other_" $$3}' > $(DIFF_BUILD)/other.syms
	@objcopy --redefine-syms=$(DIFF_BUILD)/other.syms \
	  $(DIFF_BUILD)/other-all.o $@

$(DIFF_BUILD)/diff-harness: fuzz/diff-harness.c fuzz/diff-other-qsched.c \
  $(DIFF_BUILD)/other.o $(BUILD)/libqsched.a
	@mkdir -p $(DIFF_BUILD)
	$(CC) $(ALL_CFLAGS) -o $@ fuzz/diff-harness.c fuzz/diff-other-qsched.c \
	  $(DIFF_BUILD)/other.o $(BUILD)/libqsched.a $(LDLIBS)

.PHONY: diff-harness
diff-harness: $(DIFF_BUILD)/diff-harness
	@$(DIFF_BUILD)/diff-harness --seed 1 --count 50 \
	  --out $(DIFF_BUILD)/diff-first.events; test $$? -eq 1
