# tests/postfix/postfix.mk - differential testing against Postfix's own
# queue manager (issue 14).  Included from the Makefile.
#
# Owns: fetching Debian's source package (tests/postfix/fetch.sh, private
# apt configuration, cached under $(BUILD)/postfix), compiling Postfix's
# src/qmgr files unchanged with the util/global files they need, linking
# them with the harness's infrastructure stubs (tests/postfix/harness/)
# into $(BUILD)/postfix/pfqmgr, and the targets
#   make postfix-harness            build pfqmgr
#   make postfix-diff [STREAMS=N] [SEED=S] [JOBS=J]
#   make postfix-diff-long          >= 10,000 generated streams
# tests/postfix/README.md explains the harness; spec/profiles.md records
# the figures.  No Postfix source is ever copied into the repository:
# everything Postfix lives under $(BUILD) (ignored by git).

PFX_BUILD   := $(BUILD)/postfix
PFX_TREE    := $(PFX_BUILD)/src/src
PFX_STAMP   := $(PFX_BUILD)/VERSION
PFX_DEFS    := -DLINUX6 -DNO_DB -DNO_NIS -DNO_NISPLUS -DNO_PCRE -DNO_LMDB \
               -DNO_EAI -DNO_KQUEUE -DNO_DEVPOLL -DNO_EPOLL
PFX_INC     := -I$(PFX_TREE)/util -I$(PFX_TREE)/global -I$(PFX_TREE)/master
# Postfix's code is compiled as Postfix compiles it, not to our warning
# standard: it is not ours and must stay unchanged.
PFX_CFLAGS  := -O1 -g -w $(PFX_DEFS) $(PFX_INC)

# The queue manager: every file of src/qmgr except qmgr_error.c (the
# retry/error transports, outside the model: tests/postfix/harness/pfh-log.c)
# and qmgr_bounce.c (unused without the error transport).
PFX_QMGR    := qmgr qmgr_active qmgr_defer qmgr_deliver qmgr_enable \
               qmgr_entry qmgr_feedback qmgr_job qmgr_message qmgr_move \
               qmgr_peer qmgr_queue qmgr_scan qmgr_transport
# Pure utility code: memory, strings, streams, tables, attribute protocol.
PFX_UTIL    := mymalloc vstring vbuf vstream vbuf_print htable argv \
               concatenate lowercase alldig allascii split_at split_nameval \
               name_code sane_time attr_print0 attr_scan0 timed_read \
               timed_write argv_split base64_code hash_fnv poll_fd \
               printable strcasecmp_utf8 casefold valid_utf8_string \
               vstring_vstream warn_stat mystrtok
# Pure global code: recipients, DSNs, queue file records, parameters.
PFX_GLOBAL  := recipient_list dsn dsn_buf dsb_scan dsn_util dsn_print \
               rcpt_print msg_stats_print record rec_attr_map verp_sender \
               split_addr mail_conf_int mail_conf_str mail_conf_time \
               mail_conf_bool mail_conf_long conv_time off_cvt

PFX_OBJ     := $(PFX_QMGR:%=$(PFX_BUILD)/obj/qmgr/%.o) \
               $(PFX_UTIL:%=$(PFX_BUILD)/obj/util/%.o) \
               $(PFX_GLOBAL:%=$(PFX_BUILD)/obj/global/%.o)
PFH_SRC     := $(wildcard tests/postfix/harness/*.c)
PFH_OBJ     := $(PFH_SRC:tests/postfix/harness/%.c=$(PFX_BUILD)/obj/harness/%.o)
PFQMGR      := $(PFX_BUILD)/pfqmgr
# The harness is ours: our warning standard, with Postfix's headers as
# system headers.
PFH_CFLAGS  := -std=c11 -D_DEFAULT_SOURCE $(WARN) $(OPT) $(PFX_DEFS) \
               $(PFX_INC:-I%=-isystem %) -isystem $(PFX_TREE)/qmgr

.PHONY: postfix-fetch postfix-harness postfix-diff postfix-diff-long

$(PFX_STAMP):
	sh tests/postfix/fetch.sh $(BUILD)

postfix-fetch: $(PFX_STAMP)

$(PFX_BUILD)/obj/qmgr/%.o: $(PFX_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(PFX_CFLAGS) $(if $(filter qmgr,$*),-Dmain=pfh_postfix_qmgr_main) \
	  -c -o $@ $(PFX_TREE)/qmgr/$*.c

$(PFX_BUILD)/obj/util/%.o: $(PFX_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(PFX_CFLAGS) -c -o $@ $(PFX_TREE)/util/$*.c

$(PFX_BUILD)/obj/global/%.o: $(PFX_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(PFX_CFLAGS) -c -o $@ $(PFX_TREE)/global/$*.c

$(PFX_BUILD)/obj/harness/%.o: tests/postfix/harness/%.c \
    tests/postfix/harness/pfh.h $(PFX_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(PFH_CFLAGS) \
	  -DPFH_DEBIAN_VERSION='"$(shell cat $(PFX_STAMP) 2>/dev/null)"' \
	  -c -o $@ $<

$(PFQMGR): $(PFH_OBJ) $(PFX_OBJ)
	$(CC) $(OPT) -o $@ $^

postfix-harness: $(PFQMGR)

# A debugging aid: qsched's accounting in the format of pfqmgr --state.
$(PFX_BUILD)/qstate: tests/postfix/qstate.c $(BUILD)/libqsched.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libqsched.a $(LDLIBS)

# The differential runs (tests/postfix/diff.sh).  STREAMS generated streams
# from SEED, over every mix of `qsched gen`, plus every conformance vector
# and every regression vector; the last line is
# "postfix-diff: S streams, D decisions, K diverged".
STREAMS ?= 200
SEED    ?= 1
postfix-diff: $(BUILD)/qsched $(PFQMGR)
	@nice -n 10 sh tests/postfix/diff.sh -n $(STREAMS) -s $(SEED)

# >= 10,000 generated streams, sizes 400, 400, 400 and 2000 events in turn
# (figures: spec/profiles.md), plus every vector.
postfix-diff-long: $(BUILD)/qsched $(PFQMGR)
	@nice -n 10 sh tests/postfix/diff.sh -n 10400 -s 100000 \
	  -z "400 400 400 2000" --quiet

# ---- the differential fuzz harness (fuzz/fuzz_postfix.c) ----
# AFL++ builds of qsched and Postfix's queue manager in one program; every
# input runs in a fresh process (fork server).  Postfix's own files get
# AFL++'s coverage (and ASan in the san build) but not our warning flags or
# UBSan: they are not ours.  fuzz-postfix runs it FUZZ_POSTFIX_SECONDS
# (default 600); fuzz-postfix-smoke is the short run of `make check-all`
# (tests/postfix/check-all.sh, hook postfix-fuzz of tests/run.sh); the
# figures of a long run are in fuzz/README.md.
FUZZ_POSTFIX_SECONDS ?= 600
FUZZ_BUILD ?= build/fuzz
PFX_FUZZ_PFXSRC := $(PFX_QMGR:%=qmgr/%) $(PFX_UTIL:%=util/%) \
                   $(PFX_GLOBAL:%=global/%)
PFX_FUZZ_HARNESS := $(filter-out tests/postfix/harness/pfh-main.c,$(PFH_SRC))
PFX_FUZZ_CORE := $(CORE_SRC) src/events.c src/trace.c
# Our files: the harness sees Postfix's headers only (src/events.h would
# hide Postfix's events.h), the core and the fuzz driver see src/ only.
PFX_FUZZ_OURS := -std=c11 -Wall -Wextra -Werror -g
PFX_FUZZ_HINC := -D_DEFAULT_SOURCE $(PFX_DEFS) $(PFX_INC:-I%=-isystem %) \
                 -isystem $(PFX_TREE)/qmgr
PFX_FUZZ_QINC := -D_POSIX_C_SOURCE=200809L -Isrc

.PHONY: fuzz-postfix-build fuzz-postfix fuzz-postfix-smoke

# $(1): variant (afl, afl-san); $(2): flags for Postfix's files;
# $(3): flags for ours
define PFX_FUZZ_VARIANT
$(FUZZ_BUILD)/$(1)/pfx/%.o: $(PFX_STAMP)
	@mkdir -p $$(dir $$@)
	AFL_QUIET=1 $(FUZZ_AFL_CC) -O1 -g -w $(PFX_DEFS) $(PFX_INC) $(2) \
	  $$(if $$(filter qmgr/qmgr,$$*),-Dmain=pfh_postfix_qmgr_main) \
	  -c -o $$@ $(PFX_TREE)/$$*.c

$(FUZZ_BUILD)/$(1)/pfh/%.o: tests/postfix/harness/%.c \
    tests/postfix/harness/pfh.h $(PFX_STAMP)
	@mkdir -p $$(dir $$@)
	AFL_QUIET=1 $(FUZZ_AFL_CC) $(PFX_FUZZ_OURS) $(PFX_FUZZ_HINC) $(3) \
	  -DPFH_DEBIAN_VERSION='"$$(shell cat $(PFX_STAMP))"' -c -o $$@ $$<

$(FUZZ_BUILD)/$(1)/fuzz_postfix: fuzz/fuzz_postfix.c $(PFX_FUZZ_CORE) \
    $(wildcard src/*.h) \
    $(PFX_FUZZ_HARNESS:tests/postfix/harness/%.c=$(FUZZ_BUILD)/$(1)/pfh/%.o) \
    $(PFX_FUZZ_PFXSRC:%=$(FUZZ_BUILD)/$(1)/pfx/%.o)
	@mkdir -p $$(dir $$@)
	AFL_QUIET=1 $(FUZZ_AFL_CC) $(PFX_FUZZ_OURS) $(PFX_FUZZ_QINC) $(3) \
	  -o $$@ fuzz/fuzz_postfix.c $(PFX_FUZZ_CORE) \
	  $(PFX_FUZZ_HARNESS:tests/postfix/harness/%.c=$(FUZZ_BUILD)/$(1)/pfh/%.o) \
	  $(PFX_FUZZ_PFXSRC:%=$(FUZZ_BUILD)/$(1)/pfx/%.o) -lm
endef
$(eval $(call PFX_FUZZ_VARIANT,afl,,-O2 -fsanitize=undefined -fsanitize-trap=undefined))
$(eval $(call PFX_FUZZ_VARIANT,afl-san,-fsanitize=address,-O1 $(FUZZ_SAN)))

fuzz-postfix-build: $(FUZZ_BUILD)/afl/fuzz_postfix $(FUZZ_BUILD)/afl-san/fuzz_postfix

fuzz-postfix: fuzz-postfix-build
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_VARIANT=plain \
	  sh fuzz/run.sh fuzz $(FUZZ_POSTFIX_SECONDS) postfix

# CI: a short run on the ASan build; any finding fails.  Under CI=true
# failing to obtain or build Postfix fails too; elsewhere it is reported.
fuzz-postfix-smoke:
	@if $(MAKE) -s fuzz-postfix-build >$(BUILD)/fuzz-postfix-build.log 2>&1; then \
	  FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_VARIANT=san \
	  sh fuzz/run.sh fuzz $(FUZZ_SMOKE_SECONDS) postfix; \
	elif [ "$$CI" = true ]; then \
	  tail -5 $(BUILD)/fuzz-postfix-build.log; \
	  echo "FAIL fuzz-postfix-smoke: cannot build the Postfix harness"; exit 1; \
	else \
	  echo "fuzz-postfix-smoke: skipped (cannot build the Postfix harness: $$(tail -1 $(BUILD)/fuzz-postfix-build.log))"; \
	fi

