# tests/experiments.mk - `make experiments` (issue 17): the simulator
# reproduces SCHEDULER_README's measurements.  Writes build/experiments/*.tsv,
# docs/experiments/*.svg and docs/experiments.md (generated; commit the
# docs).  The tolerances are tested by tests/sh/sim-figures.sh in make check.
.PHONY: experiments
experiments: $(BUILD)/qsched
	@QSCHED=$(CURDIR)/$(BUILD)/qsched sh tests/sim/experiments.sh
