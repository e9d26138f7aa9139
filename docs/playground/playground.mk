# docs/playground/playground.mk - `make playground`: the qsched command
# compiled to WebAssembly (the same sources as build/qsched: CORE_SRC,
# CLI_SRC but conformance.c, MAIN_SRC and the embedded viewer) and the playground page that
# runs it, in $(BUILD)/playground/ (index.html, self-contained; qsched.wasm
# beside it for node and other hosts).
#
# Compiler: clang with the wasm32-wasi target, Debian's wasi-libc and lld
# (packages clang, lld, wasi-libc, libclang-rt-*-dev-wasm32).  Override
# with WASM_CC=... or WASI_SYSROOT=... .
WASM_CC ?= clang
WASI_SYSROOT ?=
WASM_CFLAGS = --target=wasm32-wasi $(if $(WASI_SYSROOT),--sysroot=$(WASI_SYSROOT)) \
	-O2 $(CSTD) $(WARN) -D_POSIX_C_SOURCE=200809L -Isrc \
	$(DEFS)
PLAYGROUND := $(BUILD)/playground
# src/conformance.c runs other programs (fork, exec, signals), which WASI
# has not: docs/playground/wasm-stubs.c stands in for it.
WASM_CLI_SRC = $(filter-out src/conformance.c,$(CLI_SRC)) docs/playground/wasm-stubs.c
WASM_SRC = $(CORE_SRC) $(WASM_CLI_SRC) $(MAIN_SRC) $(BUILD)/gen/viewer.c

.PHONY: playground
playground: $(PLAYGROUND)/index.html

$(PLAYGROUND)/qsched.wasm: $(CORE_SRC) $(WASM_CLI_SRC) $(MAIN_SRC) $(BUILD)/gen/viewer.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_CFLAGS) -o $@ $(WASM_SRC) -lm

$(PLAYGROUND)/index.html: $(PLAYGROUND)/qsched.wasm docs/playground/build.sh \
		docs/playground/index.html docs/playground/playground.js \
		docs/playground/playground.css $(VIEWER_SRC) \
		$(wildcard docs/playground/lessons/*.events)
	sh docs/playground/build.sh $(PLAYGROUND)/qsched.wasm $@

# Measured figures of the timeline viewer in Chromium (open time of 1k, 10k
# and 100k-event pages, frame intervals while scrolling): a benchmark.
.PHONY: viewer-bench
viewer-bench: $(BUILD)/qsched
	node tests/browser/bench-viewer.mjs .
