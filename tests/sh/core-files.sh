#!/bin/sh
# tests/sh/core-files.sh - the core's files stay short and annotated.
#
# Owns the layout rules of the core (the Makefile's CORE_SRC): every file
# opens with its header comment (what it owns, which part of the document
# it implements, why it exists), has at most 650 lines - short enough to
# read whole, which is why files were split (job_index.c from
# candidates.c, alloc.c from sched.c) - and, over the whole core, comment
# lines are at least 40% of the non-blank lines, ACSL contracts not
# counted.  A line with code and a comment counts as code.  Issue 16's
# session 20 took concurrency.c to 662 lines unnoticed by `make check`:
# this test is why that cannot happen again.
#
# That the check can fail: the same count on copies of the core with a
# file grown past the limit, a header removed, and the comments of the
# largest file removed, must each fail.
# Prints ok/FAIL lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
core=$(sed -n '/^CORE_SRC *:=/,/^[^ ]/p' Makefile | sed '$d' |
    sed 's/^CORE_SRC *:=//; s/\\$//' | tr -s ' \n' '  ')
set -- $core
[ $# -ge 20 ] || { echo "FAIL core-list: only $# files in CORE_SRC"; exit 0; }

# count DIR FILE...: prints what falls short, one line each, then the
# comment figure; exit status 1 if anything falls short
cat >"$t/count.py" <<'PY'
import os, re, sys
top, files = sys.argv[1], sys.argv[2:]
comments = code = 0
short = []
for f in files:
    text = open(os.path.join(top, f)).read()
    lines = text.splitlines()
    if not text.lstrip().startswith('/*'):
        short.append(f + ': no header comment')
    if len(lines) > 650:
        short.append('%s: %d lines (at most 650)' % (f, len(lines)))
    text = re.sub(r'/\*@.*?\*/', '', text, flags=re.S)  # ACSL blocks
    text = re.sub(r'//@.*', '', text)                    # ACSL lines
    inside = False
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        has_comment = has_code = False
        i = 0
        while i < len(s):
            if inside:
                j = s.find('*/', i)
                has_comment = True
                if j < 0:
                    break
                inside = False
                i = j + 2
            elif s.startswith('/*', i):
                inside = has_comment = True
                i += 2
            elif s.startswith('//', i):
                has_comment = True
                break
            else:
                has_code = has_code or not s[i].isspace()
                i += 1
        if has_code:
            code += 1
        elif has_comment:
            comments += 1
ratio = comments / max(1, comments + code)
if ratio < 0.40:
    short.append('comment lines %.1f%% of the core (at least 40%%)' % (100 * ratio))
for s in short:
    print(s)
print('%d files, comment lines %.1f%%' % (len(files), 100 * ratio))
sys.exit(1 if short else 0)
PY

if out=$(python3 "$t/count.py" . "$@"); then
    echo "ok core-files ($(echo "$out" | tail -1))"
else
    echo "FAIL core-files: $(echo "$out" | head -3 | tr '\n' ';')"
fi

# the mutants: copies of the core, each with one rule broken
mutant() {
    name=$1 file=$2
    shift 2
    rm -rf "$t/m"
    mkdir -p "$t/m/src"
    cp src/*.c src/*.h "$t/m/src/"
    "$@" "$t/m/$file"
    if cmp -s "$file" "$t/m/$file"; then
        echo "FAIL mutant-$name-applies: $file unchanged"
    elif python3 "$t/count.py" "$t/m" $core >/dev/null; then
        echo "FAIL mutant-$name-caught: the count passed"
    else
        echo "ok mutant-$name-caught"
    fi
}
grow() { seq 1 700 | sed 's/.*/int qs_pad_&;/' >>"$1"; }
behead() { sed -i '1,/\*\//d' "$1"; }
uncomment() {
    python3 - "$1" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t = re.sub(r'/\*(?!@).*?\*/', '', t, flags=re.S)
open(p, 'w').write(t)
PY
}
mutant too-long src/sched.c grow
mutant no-header src/map.c behead
# the comments of the 8 largest files gone: the core falls below 40%
rm -rf "$t/m"
mkdir -p "$t/m/src"
cp src/*.c src/*.h "$t/m/src/"
for f in $(wc -l "$@" | sort -n | sed '$d' | tail -8 | awk '{print $2}'); do
    uncomment "$t/m/$f"
done
if python3 "$t/count.py" "$t/m" $core >/dev/null; then
    echo "FAIL mutant-uncommented-caught: the count passed"
else
    echo "ok mutant-uncommented-caught"
fi
