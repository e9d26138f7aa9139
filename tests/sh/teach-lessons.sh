#!/bin/sh
# tests/sh/teach-lessons.sh - the playground's lessons
# (docs/playground/lessons/) are the guide's streams and show what the
# document says they show.
#
# Owns: (1) each lesson's stream is the stream docs/guide.md builds for its
# section (the guide's snippets are run by docs/guide-src/build.py, which
# keeps them with GUIDE_STREAMS); (2) the document's facts, derived from
# SCHEDULER_README, not from qsched: the delivery sequences 11112211113311
# and 11221111331111, the preemption stack 7 on 4 on 1 with the job list
# "M7 M4 M1 M2 M3 M5 M6 M8", the blocker story's completion order 1, 7, 2,
# 4, the worked example's batch of 1 + minimum = 4, the old scheduler's
# 5-10-20; (3) the 421-limiter lesson obeys its server (a delivery that
# finds 5 sessions open fails at once, every other one succeeds) and its
# defer rates match the document's theoretical 1/(1+roundup(1/feedback)):
# 1/2, 1/4, 1/6; and it is what gen-421.sh writes with this qsched.
# ok() only echoes, so "A && ok || bad" is an if-then-else here.
# shellcheck disable=SC2015
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
q=build/qsched
L=docs/playground/lessons
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok teach-lessons/$1"; }
bad() { echo "FAIL teach-lessons/$1: $2"; }
strip() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"; }

for f in "$L"/[0-9]*.events; do
    id=$(basename "$f" .events)
    head -1 "$f" | grep -q '^# lesson: ' || bad "$id/title" "no '# lesson:' first line"
    $q "$f" >/dev/null 2>"$t/err" && ok "$id/runs" || bad "$id/runs" "$(head -1 "$t/err")"
done

# (1) the guide's streams
mkdir "$t/gs"
if GUIDE_STREAMS="$t/gs" python3 docs/guide-src/build.py "$top/build" "$t/guide.md" 2>"$t/err"; then
    for pair in 01-first-contact:hello 02-old-scheduler:old 03-linear-growth:lin 04-safety:safety \
                05-dead-revive:dead 06-seq-11112211113311:seq 06-seq-11221111331111:seq50 \
                07-preemption-stack:stack 08-blocker-story:block 09-memory-worked-example:worked; do
        lesson=${pair%%:*}; g=${pair#*:}
        if [ -f "$t/gs/$g.events" ] && strip "$L/$lesson.events" > "$t/a" && strip "$t/gs/$g.events" > "$t/b" && cmp -s "$t/a" "$t/b"; then
            ok "$lesson/is-guide-stream"
        else
            bad "$lesson/is-guide-stream" "differs from the guide's $g.events"
        fi
    done
else
    bad guide-streams "$(tail -2 "$t/err")"
fi

# (2) the document's facts
seq_of() { $q "$1" | awk '/^deliver/ {sub(/^M/, "", $3); printf "%s", $3} END {print ""}'; }
s=$(seq_of "$L/06-seq-11112211113311.events")
[ "$s" = 11112211113311 ] && ok seq-k2 || bad seq-k2 "sequence $s"
s=$(seq_of "$L/06-seq-11221111331111.events")
[ "$s" = 11221111331111 ] && ok seq-discount50 || bad seq-discount50 "sequence $s"
$q --explain "$L/07-preemption-stack.events" > "$t/stack"
if grep -q '^preempt smtp M1 by M4: .* level=1$' "$t/stack" && grep -q '^preempt smtp M4 by M7: .* level=2$' "$t/stack"; then
    ok stack-levels; else bad stack-levels "no 4-on-1 (level 1) and 7-on-4 (level 2)"; fi
$q --format view-json "$L/07-preemption-stack.events" | python3 -c '
import json, sys
d = json.load(sys.stdin); n = d["names"]
pics = [[(n[a[k]], a[k + 1]) for k in range(2, len(a), 3)] for a in d["moments"]]
want = [("M7", 2), ("M4", 1), ("M1", 0), ("M2", 0), ("M3", 0), ("M5", 0), ("M6", 0), ("M8", 0)]
sys.exit(0 if want in pics else 1)' && ok stack-picture || bad stack-picture "no moment with the job list M7(2) M4(1) M1 M2 M3 M5 M6 M8"
order=$($q --explain "$L/08-blocker-story.events" | awk '/^leave M[1247] / {sub(/^M/, "", $2); printf "%s", $2}')
[ "$order" = 1724 ] && ok blocker-story || bad blocker-story "completion order $order, want 1724"
$q --explain "$L/09-memory-worked-example.events" | grep -q '^read M 4 unread=96 limit=4$' && ok worked-example || bad worked-example "no batch of 1 + minimum = 4"
w=$($q "$L/02-old-scheduler.events" | awk '/^window/ {printf "%s-", $4}')
case $w in *10-*20-) ok old-5-10-20 ;; *) bad old-5-10-20 "windows $w" ;; esac

# (3) the 421 limiter
f=$L/10-feedback-421.events
$q "$f" > "$t/421.trace"
if python3 - "$f" "$t/421.trace" > "$t/py.out" <<'PY'
import sys
from math import ceil, sqrt
stream = [l.split('#')[0].split() for l in open(sys.argv[1])]
trace = [l.split() for l in open(sys.argv[2])]
# walk the stream and the trace together: each select answers one line
ti = 0
open_ = {}; outcome = {}; started = {}; fails = {}; delivs = {}
problems = []
for i, w in enumerate(stream):
    if not w: continue
    if w[0] == 'select':
        while trace[ti][0] not in ('deliver', 'idle'): ti += 1
        r = trace[ti]; ti += 1
        if r[0] == 'deliver':
            h, tr = r[1], r[3].split(':')[0]
            delivs[tr] = delivs.get(tr, 0) + 1
            full = len(open_.setdefault(tr, set())) >= 5
            nxt = stream[i + 1] if i + 1 < len(stream) else []
            if full:
                fails[tr] = fails.get(tr, 0) + 1
                if nxt != ['done', h, 'fail']: problems.append(f'{h} found 5 open sessions but is not failed at once')
            else:
                open_[tr].add(h); started[h] = tr
                if nxt[:2] == ['done', h]: problems.append(f'{h} found a free session but ends at once')
    elif w[0] == 'done' and w[1] in started:
        tr = started.pop(w[1]); open_[tr].discard(w[1])
        if w[2] != 'ok': problems.append(f'{w[1]} had a session but ended {w[2]}')
theory = {'fixed': 1 / (1 + ceil(1 / 1)), 'sqrt': 1 / (1 + ceil(sqrt(5))), 'inv': 1 / (1 + ceil(5))}
for tr, want in theory.items():
    rate = fails.get(tr, 0) / max(1, delivs.get(tr, 0))
    print(f'{tr}: {fails.get(tr, 0)}/{delivs.get(tr, 0)} deferred = {rate:.3f}, theory {want:.3f}')
    if abs(rate - want) > 0.04: problems.append(f'{tr} defer rate {rate:.3f} far from the theoretical {want:.3f}')
for p in problems[:5]: print('PROBLEM', p)
sys.exit(1 if problems else 0)
PY
then
    ok "421-limiter ($(tr '\n' ';' < "$t/py.out"))"
else
    bad 421-limiter "$(grep -m3 PROBLEM "$t/py.out" | tr '\n' ';')"
fi
sh "$L/gen-421.sh" "$q" 60 > "$t/421.events" && cmp -s "$t/421.events" "$f" && ok 421-regenerates || bad 421-regenerates "gen-421.sh $q 60 writes a different stream: regenerate $f"
