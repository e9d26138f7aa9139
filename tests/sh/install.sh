#!/bin/sh
# tests/sh/install.sh - `make install` / `make uninstall`, the shared
# library, qsched.pc, and the installed conformance runner (issue 19).
#
# Owns: that an installation (PREFIX and DESTDIR honoured) holds the CLI,
# libqsched.a and libqsched.so.1.0.0 with soname libqsched.so.1 and its
# two links, the header, qsched.pc, the man pages, the conformance suite
# and the implementers' guide with its adapters; that pkg-config gives the
# flags that compile and link the qsched(3) example against the shared
# and the static library; that the installed `qsched conformance` finds
# its own suite from anywhere and runs it; that the Go adapter of
# docs/implementers.md builds with `#cgo pkg-config: qsched` and passes
# the whole suite (path mode); and that `make uninstall` removes every
# file it installed.  Prints ok/FAIL/SKIP lines.
# run.sh: slow (not in the --quick loop)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }
expect() { n=$1; shift; if "$@"; then ok "$n"; else no "$n" "$*"; fi; }

# 1. a staged install: DESTDIR prefixes every path, PREFIX is what the
#    installed files say
P=/opt/qsched-test
R=$t/root
if ! make -s install PREFIX=$P DESTDIR="$R" >"$t/inst.log" 2>&1; then
    no install "make install failed: $(tail -3 "$t/inst.log")"
    exit 1
fi
for f in bin/qsched lib/libqsched.a lib/libqsched.so.1.0.0 include/qsched.h \
    lib/pkgconfig/qsched.pc share/man/man1/qsched.1 share/man/man3/qsched.3 \
    share/qsched/conformance/INDEX.md share/doc/qsched/implementers.md \
    share/doc/qsched/adapters/adapter.py share/doc/qsched/adapters/adapter.go; do
    expect "install-$f" test -f "$R$P/$f"
done
expect install-link-soname test "$(readlink "$R$P/lib/libqsched.so.1")" = libqsched.so.1.0.0
expect install-link-dev test "$(readlink "$R$P/lib/libqsched.so")" = libqsched.so.1
soname=$(readelf -d "$R$P/lib/libqsched.so.1.0.0" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
expect "install-soname ($soname)" test "$soname" = libqsched.so.1
count() { echo $#; }
nsrc=$(count tests/conformance/hand/*.events tests/conformance/gen/*.events)
ninst=$(count "$R$P"/share/qsched/conformance/*/*.events)
nexp=$(count "$R$P"/share/qsched/conformance/*/*.expected)
expect "install-suite ($ninst vectors)" test "$ninst" -eq "$nsrc" -a "$nexp" -eq "$nsrc"
expect install-pc-prefix grep -qx "prefix=$P" "$R$P/lib/pkgconfig/qsched.pc"
if grep -q "$R" "$R$P/lib/pkgconfig/qsched.pc"; then no install-pc-no-destdir "DESTDIR leaked into qsched.pc"; else
    ok install-pc-no-destdir; fi
# the staged runner finds its own suite (relative to its executable)
(cd / && "$R$P/bin/qsched" conformance --impl "$R$P/bin/qsched" -q \
    "$R$P"/share/qsched/conformance/hand/ev-*.events) >"$t/st.out" 2>&1
expect install-staged-runner grep -q ' passed, 0 failed$' "$t/st.out"

# 2. a real install into a PREFIX: pkg-config, both libraries, the runner
P2=$t/prefix
make -s install PREFIX="$P2" >"$t/inst2.log" 2>&1 || no install-prefix "$(tail -3 "$t/inst2.log")"
if command -v pkg-config >/dev/null 2>&1; then
    PKG_CONFIG_PATH=$P2/lib/pkgconfig
    export PKG_CONFIG_PATH
    expect pkgconfig-modversion test "$(pkg-config --modversion qsched)" = 1.0.0
    expect pkgconfig-cflags test "$(pkg-config --cflags qsched | sed "s/ *$//")" = "-I$P2/include"
    expect pkgconfig-libs test "$(pkg-config --libs qsched | sed "s/ *$//")" = "-L$P2/lib -lqsched"
    expect pkgconfig-static sh -c "pkg-config --static --libs qsched | grep -q -- '-lm'"
    # the example of qsched(3), compiled with pkg-config's flags
    cat >"$t/ex.c" <<'EOF'
#include <stdio.h>
#include <qsched.h>
static void sink(void *ctx, const qs_trace *r)
{
    char line[256];
    (void)ctx;
    if (qs_trace_text(r, 0, line, sizeof line))
        puts(line);
}
int main(void)
{
    char err[256];
    qs_delivery d;
    qs_group g = {"smtp", NULL, "a.example", 2};
    qs_params *p = qs_params_new();
    qs_sched *s = qs_sched_new(p, QS_PROFILE_DOCUMENT, sink, NULL, err, sizeof err);
    if (!s || qs_arrive(s, "M1", &g, 1, err, sizeof err) < 0 ||
        qs_select(s, NULL, &d, err, sizeof err) != 1)
        return 1;
    qs_sched_free(s);
    qs_params_free(p);
    return 0;
}
EOF
    # shellcheck disable=SC2046
    if ${CC:-cc} -std=c11 -o "$t/ex-shared" "$t/ex.c" $(pkg-config --cflags --libs qsched) 2>"$t/cc.err"; then
        LD_LIBRARY_PATH=$P2/lib "$t/ex-shared" >"$t/ex.out" 2>&1
        expect pkgconfig-shared-runs test "$(cat "$t/ex.out")" = "deliver D1 M1 smtp:a.example 2"
        expect pkgconfig-shared-linked sh -c "LD_LIBRARY_PATH=$P2/lib ldd $t/ex-shared | grep -q 'libqsched.so.1 => $P2/lib/libqsched.so.1'"
    else
        no pkgconfig-shared "does not compile: $(head -3 "$t/cc.err")"
    fi
    # shellcheck disable=SC2046
    if ${CC:-cc} -std=c11 -static-libgcc -o "$t/ex-static" "$t/ex.c" $(pkg-config --cflags qsched) \
        "$P2/lib/libqsched.a" $(pkg-config --static --libs-only-l qsched | sed 's/-lqsched//') 2>"$t/cc.err"; then
        "$t/ex-static" >"$t/ex.out" 2>&1
        expect static-runs test "$(cat "$t/ex.out")" = "deliver D1 M1 smtp:a.example 2"
    else
        no static "does not compile: $(head -3 "$t/cc.err")"
    fi
else
    echo "SKIP pkgconfig: pkg-config not installed"
fi
# the installed runner, from another directory, finds the installed suite
(cd "$t" && "$P2/bin/qsched" conformance --impl "$P2/bin/qsched" -q) >"$t/run.out" 2>&1
expect "installed-runner ($(tail -1 "$t/run.out"))" test "$(tail -1 "$t/run.out")" = "$nsrc passed, 0 failed"

# 3. the Go adapter of docs/implementers.md, built with cgo and pkg-config
#    against this installation, passes the whole suite in path mode
if command -v go >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1; then
    mkdir -p "$t/go"
    cp "$P2/share/doc/qsched/adapters/adapter.go" "$t/go/"
    if (cd "$t/go" && GOTOOLCHAIN=local GOPROXY=off GOFLAGS="" \
        GOCACHE=${GOCACHE:-$top/build/go-cache} \
        go build -o adapter adapter.go) >"$t/go.log" 2>&1; then
        LD_LIBRARY_PATH=$P2/lib "$P2/bin/qsched" conformance --input path \
            --impl "$t/go/adapter" -q >"$t/go.out" 2>&1
        grep -A20 "^FAIL" "$t/go.out" | head -20 | sed "s/^/    /"
        expect "go-adapter ($(tail -1 "$t/go.out"))" test "$(tail -1 "$t/go.out")" = "$nsrc passed, 0 failed"
    else
        no go-adapter "go build failed: $(tail -3 "$t/go.log" | tr '\n' ' ')"
    fi
else
    echo "SKIP go-adapter: go or pkg-config not installed (Debian packages golang-go, pkg-config)"
fi

# 4. uninstall removes every file and link that install wrote
make -s uninstall PREFIX=$P DESTDIR="$R" >"$t/un.log" 2>&1
left=$(find "$R" ! -type d | head -5)
expect "uninstall-staged${left:+ (left: $left)}" test -z "$left"
make -s uninstall PREFIX="$P2" >/dev/null 2>&1
left=$(find "$P2" ! -type d | head -5)
expect "uninstall-prefix${left:+ (left: $left)}" test -z "$left"
