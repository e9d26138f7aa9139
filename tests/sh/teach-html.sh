#!/bin/sh
# tests/sh/teach-html.sh - `qsched --format html` and `--format view-json`
# (src/html.c), without a browser (tests/sh/teach-browser.sh opens them).
#
# Owns: the page is self-contained (no URL at all in it, data escaped so no
# stream text can close its <script>), deterministic, and honest about bad
# input (exit 2, FILE:LINE: reason, the valid prefix); the data model agrees
# with the text trace on every golden stream, checked against the trace
# lines themselves: its records are exactly `qsched --explain`'s lines, its
# default-level records exactly `qsched`'s, one event per stream line with
# a verb, one delivery per deliver line ending at its own `done` event,
# each destination's window after a `window T:D OLD NEW` line is NEW, a
# dead destination is dead after its `dead` line and alive after `revive`.
# ok() only echoes, so "A && ok || bad" is an if-then-else here.
# shellcheck disable=SC2015
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
q=build/qsched
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok teach-html/$1"; }
bad() { echo "FAIL teach-html/$1: $2"; }

if $q --format html tests/scenarios/demo.events > "$t/a.html" 2>"$t/err"; then ok exit-0; else bad exit-0 "$(cat "$t/err")"; fi
grep -q '<html' "$t/a.html" && ok is-html || bad is-html "no <html"
if grep -q '://' "$t/a.html"; then bad no-url "$(grep -o '.\{20\}://.\{20\}' "$t/a.html" | head -2)"; else ok no-url; fi
if grep -Eiq '<(link|iframe|img|object|embed)[ >]|<script[^>]* src=' "$t/a.html"; then bad no-external "an element loads a resource"; else ok no-external; fi
$q --format html tests/scenarios/demo.events > "$t/b.html" 2>/dev/null
cmp -s "$t/a.html" "$t/b.html" && ok deterministic || bad deterministic "two runs differ"

# a stream whose comments try to close the data's <script>
printf '# </script><script>alert(1)</script> <!-- & "\n' > "$t/x.events"
printf 'arrive M1 smtp:a # </script>\nselect\n' >> "$t/x.events"
$q --format html "$t/x.events" > "$t/x.html" 2>/dev/null
n=$(grep -o '</script' "$t/x.html" | wc -l)
[ "$n" -eq 2 ] && ok escaped || bad escaped "$n </script in the page, want 2 (data and viewer)"

# bad input: exit 2, the same message as the text trace, the valid prefix
for ev in tests/errors/*.events; do
    name=$(basename "$ev" .events)
    $q "$ev" > "$t/e.txt" 2>"$t/e.err"; rc1=$?
    $q --format view-json "$ev" > "$t/e.json" 2>"$t/e2.err"; rc2=$?
    if [ $rc1 -ne $rc2 ] || ! cmp -s "$t/e.err" "$t/e2.err"; then
        bad "errors/$name" "exit $rc2 / '$(head -1 "$t/e2.err")', text trace: exit $rc1 / '$(head -1 "$t/e.err")'"; continue
    fi
    python3 - "$t/e.json" "$t/e.txt" "$(head -1 "$t/e.err")" <<'PY' && ok "errors/$name" || bad "errors/$name" "data does not hold the valid prefix and the error"
import json, sys
d = json.load(open(sys.argv[1]))
want = open(sys.argv[2]).read()
got = '\n'.join(l for l, lev in zip(d['recText'].split('\n'), d['recLevel']) if lev == 'd') if d['recLevel'] else ''
sys.exit(0 if d['error'] == sys.argv[3] and got + ('\n' if got else '') == want else 1)
PY
done
$q --format html /nonexistent.events > /dev/null 2>&1; [ $? -eq 2 ] && ok missing-file || bad missing-file "exit not 2"
if [ -w /dev/full ]; then
    $q --format html tests/scenarios/demo.events > /dev/full 2>"$t/full.err"; rc=$?
    # qsched(1): an output error is exit 4, never 0 with a truncated page
    [ $rc -eq 4 ] && grep -q 'cannot write to standard output' "$t/full.err" && ok write-error || bad write-error "exit $rc: $(cat "$t/full.err")"
fi
$q --format htm tests/scenarios/demo.events > /dev/null 2>"$t/f.err"; rc=$?
[ $rc -eq 2 ] && grep -q 'html' "$t/f.err" && ok unknown-format || bad unknown-format "exit $rc"

# profile: from --profile and from the stream
$q --format view-json --profile postfix tests/scenarios/demo.events | grep -q '"profile":"postfix"' && ok profile-option || bad profile-option "not postfix"
(echo 'profile postfix'; cat tests/scenarios/demo.events) > "$t/p.events"
$q --format view-json "$t/p.events" | grep -q '"profile":"postfix"' && ok profile-line || bad profile-line "not postfix"

# the data against the text trace, on every golden stream: the three
# outputs of each stream are written first, then one python3 reads them
# all (one process per stream was most of this test's time)
: > "$t/goldens"
for ev in tests/golden/*.events; do
    name=$(basename "$ev" .events)
    args=$(sed -n '1s/^# args: *//p' "$ev" | sed 's/--format [a-z-]*//; s/--explain//; s/--stats//')
    # shellcheck disable=SC2086
    $q $args --format view-json "$ev" > "$t/$name.json" 2>/dev/null || { bad "golden/$name" "view-json failed"; continue; }
    # shellcheck disable=SC2086
    $q $args --explain "$ev" > "$t/$name.explain" 2>/dev/null
    # shellcheck disable=SC2086
    $q $args "$ev" > "$t/$name.default" 2>/dev/null
    echo "$name $t/$name.json $t/$name.explain $t/$name.default $ev" >> "$t/goldens"
done
python3 - "$t/goldens" > "$t/goldens.out" 2>&1 <<'PY'
import json, sys, re
class Fail(Exception):
    pass
def fail(msg):
    raise Fail(msg)
def check(d, explain, default, stream):
    recs = d['recText'].split('\n') if d['recLevel'] else []
    lev = d['recLevel']
    if '\n'.join(recs) + ('\n' if recs else '') != explain: fail('records differ from qsched --explain')
    if ''.join(r + '\n' for r, l in zip(recs, lev) if l == 'd') != default: fail('default records differ from qsched')
    verbs = ('at', 'arrive', 'select', 'done')
    evlines = [i + 1 for i, l in enumerate(stream) if l.split('#')[0].split()[:1] and l.split('#')[0].split()[0] in verbs]
    if d['evLine'] != evlines: fail('events are not the stream lines with a verb')
    ev_of_rec = [i for i, n in enumerate(d['evRecs']) for _ in range(n)]
    names, dests = d['names'], d['dests']
    destkey = {(names[d['transports'][dests[2 * k]]], names[dests[2 * k + 1]]): k for k in range(len(dests) // 2)}
    states = {}
    ds = d['destState']
    for k in range(0, len(ds), 6):
        states.setdefault(ds[k + 1], []).append(ds[k:k + 6])
    def at(dest, ev):
        last = None
        for s in states.get(dest, []):
            if s[0] <= ev: last = s
        return last
    evtext = d['evText'].split('\n') if d['events'] else []
    dv = d['deliveries']
    dn = 0
    for r, e in zip(recs, ev_of_rec):
        w = r.split(' ')
        if w[0] == 'deliver':
            h, msg, tdest, n = int(w[1][1:]), w[2], w[3], int(w[4])
            t, dst = tdest.split(':', 1)
            rec = dv[7 * dn:7 * dn + 7]; dn += 1
            if rec[0] != h or names[rec[2]] != msg or rec[1] != destkey[(t, dst)] or rec[3] != n or rec[4] != e:
                fail(f'delivery {r} recorded as {rec}')
            if rec[5] >= 0 and not re.match(rf'\s*done D{h} (ok|fail|defer)', evtext[rec[5]]):
                fail(f'D{h} ends at event "{evtext[rec[5]]}"')
        elif w[0] in ('window', 'revive', 'dead'):
            t, dst = w[1].split(':', 1)
            s = at(destkey[(t, dst)], e)
            if w[0] == 'window' and not (s and s[2] == int(w[3]) and s[5] == 0):
                # the queue may be gone (S-CON-13) or dead by the end of the event
                if not (s and (s[2] == -1 or s[5] == 1)):
                    fail(f'{r}: state after the event {s}')
            if w[0] == 'dead' and not (s and s[5] == 1):
                if not (s and s[2] == -1): fail(f'{r}: state after the event {s}')
            if w[0] == 'revive' and s and s[5] == 1:
                fail(f'{r}: still dead after the event')
    if dn * 7 != len(dv): fail('more deliveries than deliver lines')
for line in open(sys.argv[1]):
    name, fj, fe, fd, fs = line.split()
    try:
        check(json.load(open(fj)), open(fe).read(), open(fd).read(),
              open(fs).read().split('\n'))
        print(f"ok teach-html/golden/{name}")
    except Fail as e:
        print(f"FAIL teach-html/golden/{name}: {e}")
    except Exception as e:  # a malformed page is a failure of this stream
        print(f"FAIL teach-html/golden/{name}: {type(e).__name__}: {e}")
PY
cat "$t/goldens.out"
# one verdict per golden written, or the python3 itself failed: a golden
# without its line would otherwise vanish from the count unnoticed
[ "$(grep -c '^\(ok\|FAIL\) teach-html/golden/' "$t/goldens.out")" -eq "$(wc -l < "$t/goldens")" ] &&
    ok goldens-all-checked || bad goldens-all-checked "$(wc -l < "$t/goldens") goldens, verdicts: $(grep -c '^\(ok\|FAIL\) teach-html/golden/' "$t/goldens.out")"
