# proofs/bmc.mk - the bounded model checker (issue 7), included by the top
# Makefile.
#
# Owns the targets:
#   bmc          the standard run (make check-all runs it through
#                proofs/bmc-check.sh; make check a run capped at 10000
#                states per group, tests/run.sh): 108 mixes x 2 families, under 10
#                minutes on 2 cores; report on stdout, counterexample and
#                witness streams in build/bmc/out/
#   bmc-deep     the documented longer run (deeper, bigger messages, more
#                states per group); figures in proofs/README.md
#   bmc-mutants  the seeded mutants of proofs/bmc/mutants/*.patch, each
#                built from a patched copy of src/ and caught
# Everything is built under build/bmc (the checker links the core objects
# it compiles itself, so a concurrent `make` of build/ cannot disturb it).
# See proofs/README.md, section "Bounded model checking".

BMC_OUT      := build/bmc
BMC_SRC      := $(wildcard proofs/bmc/*.c)
BMC_CORE_OBJ := $(patsubst src/%.c,$(BMC_OUT)/core/%.o,$(CORE_SRC) src/events.c)
BMC_TOOL_OBJ := $(patsubst proofs/bmc/%.c,$(BMC_OUT)/tool/%.o,$(BMC_SRC))
BMC_JOBS     ?= 2
BMC_FLAGS    ?=

.PHONY: bmc bmc-deep bmc-mutants bmc-tools

# The core as the checker runs it checks the ACSL contracts of the kernels
# and of the proved helpers at every call (-DQS_CONTRACT_CHECKS,
# src/kernels_rtc.h and src/X_rtc.h): a violation aborts.
$(BMC_OUT)/core/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DQS_CONTRACT_CHECKS -c -o $@ $<

$(BMC_OUT)/tool/%.o: proofs/bmc/%.c proofs/bmc/bmc.h $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iproofs/bmc -c -o $@ $<

$(BMC_OUT)/qsched-bmc: $(BMC_TOOL_OBJ) $(BMC_CORE_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# the CLI under build/bmc too, to replay the counterexamples
bmc-tools: $(BMC_OUT)/qsched-bmc
	@$(MAKE) --no-print-directory BUILD=$(BMC_OUT) PGO=0 $(BMC_OUT)/qsched

bmc: bmc-tools
	@rm -rf $(BMC_OUT)/out
	@nice -n 5 ./$(BMC_OUT)/qsched-bmc --jobs $(BMC_JOBS) \
	  --out $(BMC_OUT)/out $(BMC_FLAGS); rc=$$?; \
	  sh proofs/bmc/replay.sh $(BMC_OUT)/qsched $(BMC_OUT)/out || rc=1; \
	  exit $$rc

bmc-deep: bmc-tools
	@rm -rf $(BMC_OUT)/deep
	@nice -n 5 ./$(BMC_OUT)/qsched-bmc --deep --jobs $(BMC_JOBS) \
	  --out $(BMC_OUT)/deep $(BMC_FLAGS); rc=$$?; \
	  sh proofs/bmc/replay.sh $(BMC_OUT)/qsched $(BMC_OUT)/deep || rc=1; \
	  exit $$rc

bmc-mutants:
	@sh proofs/bmc/mutants.sh
