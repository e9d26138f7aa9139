#!/bin/sh
# tests/sh/teach-explain.sh - the concurrency scheduler explains itself
# (issue 18 item 1): `safety`, `success`, `cohort`, `failure` and `backoff`
# lines (spec/trace.md), checked against the document's pseudocode
# recomputed here from the lines' own inputs, never against qsched:
#   - g(N), f(N) from the form and N = the window before (x, x/N,
#     x/sqrt(N)); success += g and "while (success >= 1)" (postfix: success
#     + g/2 >= 1, S-PFX-2) with its steps, failure -= f and the reversed
#     "while (failure < 0)", the clamp to the limit, the floor at 1;
#   - the safety rule window < busy + initial, with busy counted here from
#     the deliver lines and the stream's done lines (document profile: the
#     finishing delivery no longer counts; postfix: it does, S-PFX-6), and
#     Postfix's stop at a non-zero limit (S-PFX-3);
#   - fail_cohorts += 1/window and the dead test (> limit; postfix >= a
#     non-zero limit, S-PFX-1); revival at death + minimal_backoff_time;
#   - every `window` line follows a success or failure line with the same
#     old and new window, every `dead` a cohort line that says dead, every
#     `revive` a backoff line, and every done on a live destination gets
#     exactly one explanation (safety or cohort), on a dead one a backoff;
#   - removing these lines gives the trace of the same stream without
#     --explain's concurrency lines, and the default trace is unchanged.
# Streams: every golden stream, the playground's lessons and 40 generated
# streams (mixes concurrency and dead, both profiles).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ls tests/golden/*.events docs/playground/lessons/*.events > "$t/list"
for seed in $(seq 1 20); do
    for mix in concurrency dead; do
        build/qsched gen --seed "$seed" --mix "$mix" --size medium > "$t/gen-$mix-$seed.events"
        echo "$t/gen-$mix-$seed.events" >> "$t/list"
    done
done
QS=build/qsched python3 - "$t/list" <<'PY'
import json, math, os, re, subprocess, sys

QS = os.environ['QS']
streams = [l.strip() for l in open(sys.argv[1]) if l.strip()]
num = r'(-?[0-9.e+-]+)'
R = {
 'safety': re.compile(r'^safety (\S+?):(\S+) window=(\d+) busy=(\d+) initial=(\d+)( limit=(\d+))?: (.*)$'),
 'step': re.compile(r'^(success|failure) (\S+?):(\S+) ([gf])=(\S+) (?:success|failure)=' + num + r'([+-])' + num + '=' + num + r': (.*)$'),
 'cohort': re.compile(r'^cohort (\S+?):(\S+) fail_cohorts=' + num + r'\+1/(\d+)=' + num + r' limit=(\d+): (.*)$'),
 'backoff': re.compile(r'^backoff (\S+?):(\S+) (.*)$'),
}
def fmt(v):
    if v == 0: return '0'
    for p in range(1, 18):
        s = '%.*g' % (p, v)
        if float(s) == v: return s
def form_value(text, n):
    """g=... / f=... text: returns (value, problem)."""
    m = re.fullmatch(r'(\S+)/concurrency=(\S+)/(\d+)=(\S+)', text)
    if m:
        if int(m.group(3)) != n: return None, f'N={m.group(3)} is not the window {n}'
        return float(m.group(1)) / n, None
    m = re.fullmatch(r'(\S+)/sqrt_concurrency=(\S+)/sqrt\((\d+)\)=(\S+)', text)
    if m:
        if int(m.group(3)) != n: return None, f'N={m.group(3)} is not the window {n}'
        return float(m.group(1)) / math.sqrt(n), None
    return float(text), None
def param(lines, name, default):
    v = default
    for l in lines:
        l = l.split('#')[0]
        if '=' in l:
            k, val = [x.strip() for x in l.split('=', 1)]
            if k == name: v = val
    return v
def seconds(v):
    m = re.fullmatch(r'(\d+)([smhdw]?)', v)
    return int(m.group(1)) * {'': 1, 's': 1, 'm': 60, 'h': 3600, 'd': 86400, 'w': 604800}[m.group(2)]

fails = 0; nlines = 0; nstreams = 0
def bad(name, msg):
    global fails
    fails += 1
    if fails <= 20: print(f'FAIL teach-explain/{name}: {msg}')

for path in streams:
    name = os.path.basename(path).replace('.events', '')
    src = open(path).read().split('\n')
    first = src[0]
    args = first[len('# args:'):].split() if first.startswith('# args:') else []
    args = [a for a in args if a not in ('--explain', '--stats', '--check-invariants')]
    for i, a in enumerate(list(args)):
        if a == '--format': args[i:i + 2] = []
    profiles = ['document', 'postfix'] if '--profile' not in args else [None]
    for prof in profiles:
        pargs = args + (['--profile', prof] if prof else [])
        p = subprocess.run([QS, '--format', 'view-json'] + pargs + [path], capture_output=True, text=True)
        if p.returncode != 0: continue
        d = json.loads(p.stdout)
        nstreams += 1
        postfix = d['profile'] == 'postfix'
        # named readings (spec/readings.md) a stream may set: the busy count
        # of the safety rule (R-17; postfix default: S-PFX-6) and a success
        # on a dead destination (R-15; postfix default: S-PFX-8)
        fb_before = param(src, 'qsched_reading_feedback_busy',
                          'before' if postfix else 'after') == 'before'
        revives = param(src, 'qsched_reading_dead_success',
                        'revives' if postfix else 'ignored') == 'revives'
        backoff = seconds(param(src, 'minimal_backoff_time', '300s'))
        recs = d['recText'].split('\n') if d['recLevel'] else []
        evs = d['evText'].split('\n') if d['events'] else []
        tag = f'{name}/{d["profile"]}'
        inflight = {}      # handle -> dest
        busy = {}          # dest -> deliveries in flight
        dead_until = {}
        r0 = 0
        for e, nrec in enumerate(d['evRecs']):
            ev = evs[e].split('#')[0].split()
            lines = recs[r0:r0 + nrec]; r0 += nrec
            done_dest = None
            if ev and ev[0] == 'done' and int(ev[1][1:]) in inflight:
                done_dest = inflight[int(ev[1][1:])]
            explained = 0
            pending = None   # the explained (old, new) window change
            for k, l in enumerate(lines):
                w = l.split(' ')
                nlines += 1 if w[0] in ('safety', 'success', 'failure', 'cohort', 'backoff') else 0
                where = f'{tag} event {e + 1} "{evs[e]}": {l}'
                if w[0] == 'deliver':
                    h = int(w[1][1:]); dest = w[3]
                    inflight[h] = dest; busy[dest] = busy.get(dest, 0) + 1
                elif w[0] == 'safety':
                    m = R['safety'].match(l)
                    if not m: bad(tag, f'unparsable: {l}'); continue
                    dest = m.group(1) + ':' + m.group(2)
                    win, b, init = int(m.group(3)), int(m.group(4)), int(m.group(5))
                    explained += 1
                    if dest != done_dest: bad(tag, f'{where}: not the destination of the done')
                    want_busy = busy.get(dest, 0) - (0 if fb_before else 1)
                    if b != want_busy: bad(tag, f'{where}: busy {b}, deliveries in flight {want_busy}')
                    if postfix != (m.group(6) is not None): bad(tag, f'{where}: limit shown iff postfix')
                    lim = int(m.group(7) or 0)
                    allowed = win < b + init and not (postfix and lim > 0 and win >= lim)
                    if m.group(8).endswith('no positive feedback') == allowed: bad(tag, f'{where}: verdict wrong')
                    if allowed and (k + 1 >= len(lines) or not lines[k + 1].startswith('success ' + dest + ' ')):
                        bad(tag, f'{where}: no success line follows')
                elif w[0] in ('success', 'failure'):
                    m = R['step'].match(l)
                    if not m: bad(tag, f'unparsable: {l}'); continue
                    up = m.group(1) == 'success'
                    dest = m.group(2) + ':' + m.group(3)
                    before, val_s, total = float(m.group(6)), float(m.group(8)), float(m.group(9))
                    rest = m.group(10)
                    wm = re.search(r'window (\d+)(?:([+-])(\d+)=(-?\d+))?(?:, (?:clamped to limit|raised to) (\d+))?(?: (?:success|failure)=(\S+) (?:success|failure)=0)?$', rest)
                    if not wm: bad(tag, f'{where}: no window result'); continue
                    old = int(wm.group(1))
                    val, why = form_value(m.group(5), old)
                    if why: bad(tag, f'{where}: {why}'); continue
                    if val != val_s: bad(tag, f'{where}: value {val_s}, the form gives {fmt(val)}')
                    s = before + val if up else before - val
                    if s != total: bad(tag, f'{where}: sum {total}, want {fmt(s)}')
                    steps, win = 0, old
                    # the pseudocode's loops (S-CON-4, S-CON-7; S-PFX-2 guard)
                    while (s + (val / 2 if postfix else 0) >= 1) if up else (s - (val / 2 if postfix else 0) < 0):
                        steps += 1; win += 1 if up else -1; s += -1 if up else 1
                    lim = None
                    new = win
                    if up:
                        # S-EV-2/S-EV-3: TRANSPORT_ overrides; `local` has its own default 2
                        tname = dest.split(':')[0]
                        L = int(param(src, tname + '_destination_concurrency_limit',
                                      '2' if tname == 'local' else
                                      param(src, 'default_destination_concurrency_limit', '20')))
                        if L > 0 and new > L: new = L
                    elif new < 1: new = 1
                    got_steps = int(wm.group(3) or 0)
                    got_new = int(wm.group(5) or wm.group(4) or wm.group(1))
                    if got_steps != steps or got_new != new:
                        bad(tag, f'{where}: {steps} step(s) to window {new} by the pseudocode')
                    if steps and float(wm.group(6)) != s: bad(tag, f'{where}: counter after {wm.group(6)}, want {fmt(s)}')
                    if steps == 0 and ('>=' in rest.split(':')[0]) == up: bad(tag, f'{where}: test verdict wrong')
                    pending = (dest, old, new) if new != old else None
                    if not up: explained += 0
                elif w[0] == 'window':
                    if not pending or pending != (w[1], int(w[2]), int(w[3])):
                        bad(tag, f'{where}: not preceded by a success/failure line for {w[1]} {w[2]} -> {w[3]}')
                    pending = None
                elif w[0] == 'cohort':
                    m = R['cohort'].match(l)
                    if not m: bad(tag, f'unparsable: {l}'); continue
                    dest = m.group(1) + ':' + m.group(2)
                    explained += 1
                    before, win, after, lim = float(m.group(3)), int(m.group(4)), float(m.group(5)), int(m.group(6))
                    if before + 1.0 / win != after: bad(tag, f'{where}: {fmt(before)}+1/{win} is {fmt(before + 1.0 / win)}')
                    dead = (lim > 0 and after >= lim) if postfix else after > lim
                    said = m.group(7).endswith(': dead')
                    if said != dead: bad(tag, f'{where}: dead is {dead} by the pseudocode')
                    nxt = lines[k + 1] if k + 1 < len(lines) else ''
                    if dead and nxt != f'dead {dest}': bad(tag, f'{where}: no dead line follows')
                    if not dead and not nxt.startswith(f'failure {dest} '): bad(tag, f'{where}: no failure line follows')
                elif w[0] == 'dead':
                    if k == 0 or not lines[k - 1].startswith('cohort ' + w[1] + ' ') or not lines[k - 1].endswith(': dead'):
                        bad(tag, f'{where}: not preceded by a cohort line that says dead')
                    m = re.fullmatch(r'backoff (\S+) dead at (\d+): revives at (\d+) = (\d+)\+(\d+) \(minimal_backoff_time\)', lines[k + 1] if k + 1 < len(lines) else '')
                    now = d['evTime'][e]
                    if not m or int(m.group(2)) != now or int(m.group(3)) != now + backoff or int(m.group(5)) != backoff:
                        bad(tag, f'{where}: backoff line missing or not {now}+{backoff}')
                    dead_until[w[1]] = now + backoff
                elif w[0] == 'revive':
                    prev = lines[k - 1] if k else ''
                    now = d['evTime'][e]
                    if prev == f'backoff {w[1]} revive time {dead_until.get(w[1])} <= now {now}: backoff over':
                        if not (dead_until[w[1]] <= now and ev[0] == 'at'): bad(tag, f'{where}: revived early')
                    elif not (revives and prev == f'backoff {w[1]} success while dead: revives now ({now}), not at {dead_until.get(w[1])}'):
                        bad(tag, f'{where}: not preceded by its backoff line (prev: {prev})')
                    dead_until.pop(w[1], None)
                elif w[0] == 'backoff' and 'while dead' in l:
                    dest = w[1]
                    explained += 1
                    if dest not in dead_until: bad(tag, f'{where}: destination not dead')
                    okd = ev[2] in ('ok', 'defer')
                    if okd and not revives and l != f'backoff {dest} success while dead: ignored, revives at {dead_until.get(dest)}':
                        bad(tag, f'{where}: want the document profile to ignore it')
                    if not okd and l != f'backoff {dest} failure while dead: no feedback, revives at {dead_until.get(dest)}':
                        bad(tag, f'{where}: want no feedback')
            if pending: bad(tag, f'{tag} event {e + 1}: window change {pending} without a window line')
            if done_dest is not None:
                if explained != 1: bad(tag, f'{tag} event {e + 1} "{evs[e]}": {explained} feedback explanations, want 1')
                h = int(ev[1][1:])
                busy[inflight.pop(h)] -= 1
        # without the new lines: the same trace as --explain minus them, and
        # the default trace is unchanged
        ex = subprocess.run([QS, '--explain'] + pargs + [path], capture_output=True, text=True).stdout
        df = subprocess.run([QS] + pargs + [path], capture_output=True, text=True).stdout
        kept = ''.join(l + '\n' for l, lev in zip(recs, d['recLevel']) if lev == 'd')
        if kept != df: bad(tag, 'default-level records differ from the default trace')
        if ex != d['recText'] + '\n': bad(tag, '--explain differs from the viewer data')
if fails == 0:
    print(f'ok teach-explain ({nstreams} runs, {nlines} concurrency explain lines checked)')
sys.exit(1 if fails else 0)
PY
