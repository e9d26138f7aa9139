# Makefile - builds the qsched core library, the CLI, and runs every check.
#
# Owns the top-level targets named in README.md: all, demo, check,
# check-all, install, uninstall, clean, bench; and the libraries
# (libqsched.a, libqsched.so.1 with its soname) and qsched.pc.  Sub-areas
# keep their own rules in */*.mk fragments, included below (coverage,
# conformance, proofs, bmc, fuzz), so each stays small.

CC      ?= cc
CSTD    := -std=c11
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# Link-time optimisation, with gcc only (issue 16): the core is many small
# files whose hot paths call each other's helpers (map look-ups, the index
# repairs, the trace sink), which only the linker can inline; measured in
# docs/performance.md (7% fewer instructions per replay).  The objects
# keep their ordinary code too (-ffat-lto-objects), so that libqsched.a
# links into programs built without -flto.  clang 14 has no fat objects,
# and any OPT given on the command line (sanitizers, coverage, proofs'
# builds) replaces the whole setting.
GCC_LTO := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo -flto=auto -ffat-lto-objects)
# Profile-guided optimisation, with gcc and the default OPT only (issue 16):
# the objects of $(BUILD)/obj/ (the CLI and libqsched.a) are compiled with
# what a training replay measured - which branches are taken, which calls
# and loops are hot - so the hot paths are laid out straight, inlined and
# unrolled where the time goes, and the rest is kept small; with a profile
# -O3's aggressive passes pay off (PGO_OPT: these objects and the CLI's
# link only; every other build keeps OPT's -O2).
# 7 to 16% less CPU time per replay, by shape, and 14 to 17% fewer
# instructions (docs/performance.md, session 16); the outputs are the
# same, since a profile changes no semantics (tests/identity.sh and the
# bench's streams are compared with a build without it).  How: below, at
# "profile-guided optimisation".
# PGO=0 turns it off (the differential tests' extra builds and the model
# checker's do: nobody times them).  The shared library's objects
# ($(BUILD)/pic/) are built without a profile.
PGO     ?= 1
PGO_ON  := $(if $(and $(GCC_LTO),$(filter undefined,$(origin OPT)),$(filter 1,$(PGO))),1)
OPT     ?= -O2 -g $(GCC_LTO)
CFLAGS  ?=
ALL_CFLAGS = $(CSTD) $(WARN) $(OPT) -D_POSIX_C_SOURCE=200809L -Isrc $(CFLAGS)
LDLIBS  := -lm
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
BUILD   ?= build
VERSION := 1.0.0
# The shared library's ABI version: libqsched.so.$(SOMAJOR) is the soname,
# bumped when QSCHED_API_VERSION changes incompatibly.
SOMAJOR := 1
SONAME  := libqsched.so.$(SOMAJOR)
SOFILE  := libqsched.so.$(VERSION)

# The core: no I/O, no hidden state (see src/README.md).
CORE_SRC := src/kernels.c src/params.c src/param_syntax.c src/param_table.c src/map.c src/alloc.c src/sched.c src/concurrency.c \
            src/jobs.c src/preempt.c src/preempt_scan.c src/select.c src/memory.c src/messages.c \
            src/concurrency_trace.c src/assign.c src/batch_order.c src/batch_effects.c \
            src/candidates.c src/job_index.c src/job_place.c src/blocker_index.c src/blocker_region.c src/check.c \
            src/check_changes.c src/state_text.c src/readings.c \
            src/preempt_readings.c
# Around the core: parser, printers, generator, verifier, CLI, simulator.
SIM_SRC  := src/sim.c src/sim_scenario.c src/sim_server.c src/sim_client.c \
            src/sim_policy.c src/sim_metrics.c
CLI_SRC  := src/events.c src/trace.c src/gen.c src/verify.c src/cli.c \
            src/conformance.c src/html.c src/reading_search.c $(SIM_SRC)
MAIN_SRC := src/main.c

CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:src/%.c=$(BUILD)/obj/%.o)
MAIN_OBJ := $(MAIN_SRC:src/%.c=$(BUILD)/obj/%.o)
# the same objects, position-independent, for the shared library
PIC_OBJ  := $(CORE_SRC:src/%.c=$(BUILD)/pic/%.o) \
            $(CLI_SRC:src/%.c=$(BUILD)/pic/%.o)
# where `qsched conformance` looks last for its suite (src/conformance.h)
DEFS     := -DQSCHED_VERSION='"$(VERSION)"' \
            -DQSCHED_CONFORMANCE_DIR='"$(DATADIR)/qsched/conformance"'

.PHONY: all demo check check-all test install uninstall clean bench
all: $(BUILD)/qsched $(BUILD)/libqsched.a $(BUILD)/$(SOFILE)

$(BUILD)/obj/%.o: src/%.c $(wildcard src/*.h) $(if $(PGO_ON),$(BUILD)/pgo/trained)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(if $(PGO_ON),$(PGO_OPT) $(PGO_USE) -dumpbase $*) $(DEFS) -c -o $@ $<

$(BUILD)/pic/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEFS) -fPIC -c -o $@ $<

# The timeline viewer's page, style and script (src/viewer/), embedded in
# the binary for --format html (src/html.c).
VIEWER_SRC := src/viewer/page.html src/viewer/viewer.css src/viewer/viewer.js
$(BUILD)/gen/viewer.c: $(VIEWER_SRC) src/viewer/embed.sh
	@mkdir -p $(dir $@)
	sh src/viewer/embed.sh $(VIEWER_SRC) > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/viewer.o: $(BUILD)/gen/viewer.c src/html.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/pic/viewer.o: $(BUILD)/gen/viewer.c src/html.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<
CLI_OBJ += $(BUILD)/obj/viewer.o
PIC_OBJ += $(BUILD)/pic/viewer.o

$(BUILD)/libqsched.a: $(CORE_OBJ) $(CLI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

# libqsched.so.1.0.0, soname libqsched.so.1, with the two links a system
# installs (libqsched.so.1 for the loader, libqsched.so for the linker).
$(BUILD)/$(SOFILE): $(PIC_OBJ)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)
	ln -sf $(SOFILE) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libqsched.so

$(BUILD)/qsched: $(MAIN_OBJ) $(BUILD)/libqsched.a
	$(CC) $(ALL_CFLAGS) $(if $(PGO_ON),$(PGO_OPT)) -o $@ $^ $(LDLIBS)

# ---- profile-guided optimisation (PGO_ON, see OPT above) ----
# 1. The same sources, with the same options, are built instrumented
#    under $(BUILD)/pgo/obj/ (-fprofile-generate); that qsched links every
#    object itself, not through the archive, so that each one writes its
#    profile.  The viewer's generated page is not instrumented: it links
#    the ordinary $(BUILD)/obj/viewer.o, which needs no profile.
# 2. $(BUILD)/pgo/trained: it generates and replays the training streams,
#    `qsched gen` streams of every bench mix, seed 7 (the bench's is 1),
#    200,000 events in the postfix profile and 20,000 in the document
#    profile, then the hand-written conformance vectors.  (200,000, not
#    50,000 as until session 25: transports -0.8%, blockers -0.5%
#    instructions, for a build about 15 s longer; longer streams reach
#    the states of a long replay - long job lists, many dead
#    destinations - that a short one barely enters.)  A generated
#    stream that fails to generate or replay stops the build; a vector
#    may fail (some are malformed on purpose, and exit 2).  Each object's
#    counts land in $(BUILD)/pgo/obj/NAME.gcda.
# 3. The objects of $(BUILD)/obj/ are compiled with -fprofile-use, told
#    (-dumpdir, -dumpbase) that their auxiliary name is the instrumented
#    object's: gcc finds NAME.gcda by that name and keys a static
#    function's counts with it, so a profile copied elsewhere would not
#    match.  gcc's -Wmissing-profile stays on (an error under -Werror):
#    an object or a function without its counts stops the build, so a
#    training that wrote nothing cannot pass unnoticed.
#    -fprofile-partial-training optimises what no training run reached as
#    if there were no profile, so a stream unlike the training ones is
#    not made slower for it.
PGO_OPT := -O3
PGO_GEN := $(PGO_OPT) -fprofile-generate -fprofile-update=single
PGO_USE := -fprofile-use -fprofile-partial-training -dumpdir $(BUILD)/pgo/obj/
PGO_OBJ := $(patsubst src/%.c,$(BUILD)/pgo/obj/%.o,$(CORE_SRC) $(CLI_SRC) $(MAIN_SRC))
PGO_MIXES := fifo preempt concurrency dead memory blockers local mixed \
             transports bulk overrides sort large queue heavy

$(BUILD)/pgo/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PGO_GEN) $(DEFS) -c -o $@ $<

$(BUILD)/pgo/qsched: $(PGO_OBJ) $(BUILD)/obj/viewer.o
	$(CC) $(ALL_CFLAGS) $(PGO_GEN) -o $@ $^ $(LDLIBS)

$(BUILD)/pgo/trained: $(BUILD)/pgo/qsched
	@rm -f $(BUILD)/pgo/obj/*.gcda
	@mkdir -p $(BUILD)/pgo/train
	@set -e; q=$(BUILD)/pgo/qsched; d=$(BUILD)/pgo/train; \
	for mix in $(PGO_MIXES); do \
	  $$q gen --seed 7 --mix $$mix --profile postfix --size 200000 >$$d/p-$$mix.events; \
	  $$q gen --seed 7 --mix $$mix --profile document --size 20000 >$$d/d-$$mix.events; \
	  $$q $$d/p-$$mix.events >/dev/null; \
	  $$q $$d/d-$$mix.events >/dev/null; \
	done; \
	for v in tests/conformance/hand/*.events; do $$q "$$v" >/dev/null 2>&1 || :; done
	@touch $@

demo: $(BUILD)/qsched
	@echo "== qsched --explain tests/scenarios/demo.events"
	@$(BUILD)/qsched --explain --stats tests/scenarios/demo.events
	@echo "== the stats' bounds (spec/trace.md \"--stats\", spec/memory.md S-MEM-9):"
	@echo "   peak_in_core   the most recipients in memory at once, in total or on one transport"
	@echo "   bound          the document's upper-bound formula for that total or transport;"
	@echo "                  an estimate: some valid streams exceed it (S-MEM-9)"
	@echo "   s_inv_8_bound  a bound that always holds (S-INV-8): peak_in_core <= s_inv_8_bound"

# make check: the suites that must pass before every commit, in about 8
# to 10 minutes on 2 shared cores (tests/run.sh prints each suite's time; the
# last line is "N passed, N failed").  tests/deps.sh installs missing
# tools (Debian, as root) first.
# make check-all: the heavy runs that make check leaves out (tests/run.sh
# --heavy): the full proofs, all mutants, the model checker's full standard
# run, a short differential fuzz, the fuzz smoke.  CI (.ci/run) runs both.
check: all
	@sh tests/deps.sh
	@sh tests/run.sh

check-all: all
	@sh tests/deps.sh
	@sh tests/run.sh --heavy

test: check

# make install / uninstall honour PREFIX and DESTDIR (and BINDIR, LIBDIR,
# INCLUDEDIR, DATADIR, MANDIR): the CLI, both libraries, the header,
# qsched.pc for pkg-config, the man pages, the conformance suite that
# `qsched conformance` runs, and the implementers' guide with its adapters.
INSTALL_DOC := $(DATADIR)/doc/qsched
CONF_DIRS   := hand gen
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(INSTALL_DOC)/adapters \
	  $(CONF_DIRS:%=$(DESTDIR)$(DATADIR)/qsched/conformance/%)
	install -m 755 $(BUILD)/qsched $(DESTDIR)$(BINDIR)/qsched
	install -m 644 $(BUILD)/libqsched.a $(DESTDIR)$(LIBDIR)/libqsched.a
	install -m 755 $(BUILD)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SOFILE)
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libqsched.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	  src/qsched.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/qsched.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/qsched.pc
	install -m 644 src/qsched.h $(DESTDIR)$(INCLUDEDIR)/qsched.h
	install -m 644 docs/qsched.1 $(DESTDIR)$(MANDIR)/man1/qsched.1
	install -m 644 docs/qsched.3 $(DESTDIR)$(MANDIR)/man3/qsched.3
	install -m 644 tests/conformance/INDEX.md \
	  $(DESTDIR)$(DATADIR)/qsched/conformance/INDEX.md
	for d in $(CONF_DIRS); do \
	  install -m 644 -t $(DESTDIR)$(DATADIR)/qsched/conformance/$$d \
	    tests/conformance/$$d/*.events tests/conformance/$$d/*.expected \
	  || exit 1; done
	install -m 644 docs/implementers.md $(DESTDIR)$(INSTALL_DOC)/
	install -m 644 -t $(DESTDIR)$(INSTALL_DOC)/adapters \
	  tests/conformance/adapters/*.py tests/conformance/adapters/*.go

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/qsched $(DESTDIR)$(LIBDIR)/libqsched.a \
	  $(DESTDIR)$(LIBDIR)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	  $(DESTDIR)$(LIBDIR)/libqsched.so \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/qsched.pc \
	  $(DESTDIR)$(INCLUDEDIR)/qsched.h $(DESTDIR)$(MANDIR)/man1/qsched.1 \
	  $(DESTDIR)$(MANDIR)/man3/qsched.3
	rm -rf $(DESTDIR)$(DATADIR)/qsched $(DESTDIR)$(INSTALL_DOC)

clean:
	rm -rf $(BUILD)

bench: $(BUILD)/qsched
	@sh tests/bench.sh

-include proofs/proofs.mk
-include fuzz/fuzz.mk
-include proofs/bmc.mk
-include tests/conformance.mk
-include tests/experiments.mk
-include docs/playground/playground.mk
-include tests/postfix/postfix.mk
