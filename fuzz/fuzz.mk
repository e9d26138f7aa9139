# fuzz/fuzz.mk - build and run the fuzz harnesses (included by Makefile).
#
# Owns the fuzz targets:
#   fuzz-build      AFL++ builds of every harness (persistent mode through
#                   afl-clang-fast -fsanitize=fuzzer, i.e. libAFLDriver):
#                   plain (UB traps), ASan+UBSan, and CmpLog
#   fuzz            run every harness FUZZ_SECONDS seconds (default 60),
#                   one afl-fuzz at a time, nice'd; prints execs, execs/s,
#                   edges, map density, crashes and hangs per harness
#                   (FUZZ_VARIANT=plain|san picks the build fuzzed)
#   fuzz-smoke      the CI smoke: build, FUZZ_SMOKE_SECONDS (default 30)
#                   per harness on the ASan+UBSan build, fail on any
#                   finding; skips with a message without afl-clang-fast
#   fuzz-cmin       shrink the saved corpora (fuzz/corpus/*) with afl-cmin
#                   from the seeds, the old corpus and the last run's queue
#   fuzz-libfuzzer  libFuzzer builds (clang -fsanitize=fuzzer,address,
#                   undefined) of every harness
#   fuzz-replay     replay corpora and crash inputs (fuzz/replay.sh, as
#                   `make check` does)
#   fuzz-dict       regenerate fuzz/dict/events.dict from `qsched -d`
# Every build goes to $(FUZZ_BUILD); the core is compiled into each harness
# with -DQSCHED_CROSSCHECK (the early-stop candidate scan is checked
# against the full scan on every call).

FUZZ_BUILD     ?= build/fuzz
FUZZ_SECONDS   ?= 60
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_VARIANT   ?= plain
# '|'-separated invariant messages of open findings to tolerate while
# fuzzing (see fuzz/run.sh); empty: every finding counts
FUZZ_TOLERATE  ?=
FUZZ_HARNESSES := text struct
FUZZ_AFL_CC    ?= afl-clang-fast
FUZZ_CORE_SRC  := $(CORE_SRC) src/events.c src/trace.c
FUZZ_DEPS      := fuzz/common.c fuzz/common.h fuzz/fuzz.mk $(FUZZ_CORE_SRC) \
                  $(wildcard src/*.h)
FUZZ_FLAGS     := -std=c11 -Wall -Wextra -Werror -Wshadow \
                  -Wstrict-prototypes -Wmissing-prototypes -g \
                  -D_POSIX_C_SOURCE=200809L -DQSCHED_CROSSCHECK -Isrc -Ifuzz \
                  -DQS_CONTRACT_CHECKS
# (-DQS_CONTRACT_CHECKS: the kernels and the proved helpers check their
# ACSL contracts at run time, src/kernels_rtc.h and src/X_rtc.h; a
# violation aborts, which the fuzzer reports.)
FUZZ_SAN       := -fsanitize=address,undefined -fno-sanitize-recover=all \
                  -fno-omit-frame-pointer
# The plain AFL++ build traps on undefined behaviour (no runtime, little
# cost), so UB found by the fastest build is a crash, not silence.
FUZZ_UB_TRAP   := -fsanitize=undefined -fsanitize-trap=undefined
FUZZ_HAVE_AFL  := $(shell command -v $(FUZZ_AFL_CC) >/dev/null 2>&1 && echo yes)

FUZZ_AFL_BINS := $(foreach v,afl afl-san afl-cmplog,\
                   $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/$(v)/fuzz_%))
FUZZ_SAN_BINS := $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/afl-san/fuzz_%)
FUZZ_LF_BINS  := $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/libfuzzer/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-cmin fuzz-libfuzzer fuzz-replay \
        fuzz-dict fuzz-seeds

ifeq ($(FUZZ_HAVE_AFL),yes)
fuzz-build: $(FUZZ_AFL_BINS)
else
fuzz-build:
	@echo "fuzz: $(FUZZ_AFL_CC) not found (Debian package afl++): skipping the AFL++ builds"
endif

$(FUZZ_BUILD)/afl/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	AFL_QUIET=1 $(FUZZ_AFL_CC) $(FUZZ_FLAGS) -O2 -fsanitize=fuzzer \
	  $(FUZZ_UB_TRAP) -o $@ $< fuzz/common.c $(FUZZ_CORE_SRC) -lm

$(FUZZ_BUILD)/afl-san/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	AFL_QUIET=1 $(FUZZ_AFL_CC) $(FUZZ_FLAGS) -O1 -fsanitize=fuzzer \
	  $(FUZZ_SAN) -o $@ $< fuzz/common.c $(FUZZ_CORE_SRC) -lm

$(FUZZ_BUILD)/afl-cmplog/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	AFL_QUIET=1 AFL_LLVM_CMPLOG=1 $(FUZZ_AFL_CC) $(FUZZ_FLAGS) -O2 \
	  -fsanitize=fuzzer -o $@ $< fuzz/common.c $(FUZZ_CORE_SRC) -lm

fuzz-libfuzzer: $(FUZZ_LF_BINS)

$(FUZZ_BUILD)/libfuzzer/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -O1 -fsanitize=fuzzer $(FUZZ_SAN) -o $@ \
	  $< fuzz/common.c $(FUZZ_CORE_SRC) -lm

# Seed directories: hand-written seeds, the saved corpus, and (text) every
# event stream of the test suites that fits the harness's size limit.
fuzz-seeds:
	@sh fuzz/run.sh seeds $(FUZZ_BUILD)

ifeq ($(FUZZ_HAVE_AFL),yes)
fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_VARIANT=$(FUZZ_VARIANT) \
	  FUZZ_TOLERATE='$(FUZZ_TOLERATE)' \
	  sh fuzz/run.sh fuzz $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

fuzz-smoke: $(FUZZ_SAN_BINS)
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_VARIANT=san \
	  FUZZ_TOLERATE='$(FUZZ_TOLERATE)' \
	  sh fuzz/run.sh fuzz $(FUZZ_SMOKE_SECONDS) $(FUZZ_HARNESSES)

fuzz-cmin: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) sh fuzz/run.sh cmin $(FUZZ_HARNESSES)
else
fuzz fuzz-smoke fuzz-cmin:
	@echo "fuzz: $(FUZZ_AFL_CC) not found (Debian package afl++): skipping $@"
endif

fuzz-replay:
	@sh fuzz/replay.sh

fuzz-dict: $(BUILD)/qsched
	sh fuzz/mkdict.sh $(BUILD)/qsched > fuzz/dict/events.dict
