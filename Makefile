# Makefile - builds the qsched core library, the CLI, and runs every check.
#
# Owns the top-level targets named in README.md: all, demo, check, install,
# clean, bench, coverage, conformance, proofs, bmc, fuzz.  Sub-areas keep
# their own rules in */*.mk fragments, included below, so each stays small.

CC      ?= cc
CSTD    := -std=c11
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT     ?= -O2 -g
CFLAGS  ?=
ALL_CFLAGS = $(CSTD) $(WARN) $(OPT) -D_POSIX_C_SOURCE=200809L -Isrc $(CFLAGS)
LDLIBS  := -lm
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
VERSION := 1.0.0

# The core: no I/O, no hidden state (see src/README.md).
CORE_SRC := src/kernels.c src/params.c src/map.c src/sched.c src/concurrency.c \
            src/jobs.c src/preempt.c src/select.c src/memory.c src/messages.c \
            src/assign.c src/check.c src/readings.c
# Around the core: parser, printers, generator, verifier, CLI.
CLI_SRC  := src/events.c src/trace.c src/gen.c src/verify.c src/cli.c \
            src/reading_search.c
MAIN_SRC := src/main.c

CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:src/%.c=$(BUILD)/obj/%.o)
MAIN_OBJ := $(MAIN_SRC:src/%.c=$(BUILD)/obj/%.o)

.PHONY: all demo check test install clean bench
all: $(BUILD)/qsched $(BUILD)/libqsched.a

$(BUILD)/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DQSCHED_VERSION='"$(VERSION)"' -c -o $@ $<

$(BUILD)/libqsched.a: $(CORE_OBJ) $(CLI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(BUILD)/qsched: $(MAIN_OBJ) $(BUILD)/libqsched.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

demo: $(BUILD)/qsched
	@echo "== qsched --explain tests/scenarios/demo.events"
	@$(BUILD)/qsched --explain --stats tests/scenarios/demo.events

# make check: installs nothing itself unless tools are missing (see
# tests/deps.sh), then runs every suite; the last line is "N passed, N failed".
check: all
	@sh tests/deps.sh
	@sh tests/run.sh

test: check

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 755 $(BUILD)/qsched $(DESTDIR)$(PREFIX)/bin/qsched
	install -m 644 $(BUILD)/libqsched.a $(DESTDIR)$(PREFIX)/lib/libqsched.a
	install -m 644 src/qsched.h $(DESTDIR)$(PREFIX)/include/qsched.h
	install -m 644 docs/qsched.1 $(DESTDIR)$(PREFIX)/share/man/man1/qsched.1
	install -m 644 docs/qsched.3 $(DESTDIR)$(PREFIX)/share/man/man3/qsched.3

clean:
	rm -rf $(BUILD)

bench: $(BUILD)/qsched
	@sh tests/bench.sh

-include proofs/proofs.mk
-include fuzz/fuzz.mk
-include proofs/bmc.mk
-include tests/conformance.mk
