#!/bin/sh
# concurrency-model.sh - differential test of the concurrency scheduler
# against an independent executable model of the pseudocode (rules S-CON-*,
# S-PFX-1..9).
#
# Owns: a second, deliberately naive implementation of "Pseudocode for the
# Postfix 2.5 concurrency scheduler" and of the postfix-profile differences
# listed in issue 3 (item 5), written from the document and the issue text
# only, for ONE destination; random streams for that destination (seeded
# xorshift, no wall clock); and the comparison of qsched's trace with the
# model's, line by line (message ids dropped: which message's entry goes
# next is the job scheduler's business, not the concurrency scheduler's).
# The model also keeps Postfix's queue life cycle: an alive queue with
# nothing pending and nothing in flight is discarded, and a later arrival
# starts again from the initial window.
# Prints `ok NAME` / `FAIL NAME: detail` (at most one FAIL per profile, with
# a stream to reproduce it written to $QSCHED_MODEL_KEEP if set).
# Python 3 standard library only.

top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
if [ ! -x "$Q" ]; then
    echo "FAIL concurrency-model: no qsched binary at $Q"
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP concurrency-model: python3 not installed"
    exit 0
fi
QSCHED_BIN=$Q exec python3 - "${QSCHED_MODEL_STREAMS:-150}" <<'PYEOF'
import math, os, subprocess, sys, tempfile

QS = os.environ["QSCHED_BIN"]
NSTREAMS = int(sys.argv[1])
DEST = "smtp:example.com"

class Rng:
    """xorshift64*: the stream generator's only source of choice."""
    def __init__(self, seed):
        self.x = (seed * 0x9E3779B97F4A7C15 + 1) & (2**64 - 1) or 1
    def next(self):
        x = self.x
        x ^= (x >> 12); x ^= (x << 25) & (2**64 - 1); x ^= (x >> 27)
        self.x = x
        return (x * 0x2545F4914F6CDD1D) & (2**64 - 1)
    def below(self, n):
        return self.next() % n
    def pick(self, seq):
        return seq[self.below(len(seq))]

def fb_parse(text):
    """(form, base): form 'c' constant, 'n' x/N, 's' x/sqrt(N)."""
    if text.endswith("/concurrency"):
        return ("n", float(text.split("/")[0]))
    if text.endswith("/sqrt_concurrency"):
        return ("s", float(text.split("/")[0]))
    if "/" in text:
        a, b = text.split("/")
        return ("c", float(a) / float(b))
    return ("c", float(text))

def fb_value(fb, n):
    form, base = fb
    if form == "n":
        return base / n
    if form == "s":
        return base / math.sqrt(n)
    return base

class Model:
    """One destination queue, both profiles, straight from the text."""
    def __init__(self, postfix, init, limit, pos, neg, cohorts, backoff):
        self.pf = postfix
        self.limit = limit
        # S-PFX-9: postfix lowers the initial window to a non-zero limit
        self.init = min(init, limit) if (postfix and limit > 0) else init
        # S-PFX-7: postfix refuses x/sqrt_concurrency and uses 1
        if postfix and pos[0] == "s":
            pos = ("c", 1.0)
        if postfix and neg[0] == "s":
            neg = ("c", 1.0)
        self.pos, self.neg = pos, neg
        self.cohorts, self.backoff = cohorts, backoff
        self.exists = False
        self.todo = []      # entries: recipient counts
        self.busy = {}      # handle -> True
        self.next_handle = 1
        self.now = 0
        self.out = []

    def fresh(self):
        self.exists = True
        self.w = self.init
        self.s = self.f = self.fc = 0.0
        self.dead = False
        self.revive_at = None

    def discard_if_idle(self):
        if self.exists and not self.dead and not self.todo and not self.busy:
            self.exists = False

    def arrive(self, nrcpt):
        if not self.exists:
            self.fresh()
        if self.dead:
            self.out.append("defer %s %d" % (DEST, nrcpt))
            return
        while nrcpt > 0:
            self.todo.append(min(2, nrcpt))
            nrcpt -= 2

    def select(self):
        if self.exists and not self.dead and self.w > len(self.busy) and self.todo:
            n = self.todo.pop(0)
            h = self.next_handle
            self.next_handle += 1
            self.busy[h] = n
            self.out.append("deliver D%d %s %d" % (h, DEST, n))
            return h
        self.out.append("idle")
        return None

    def window_line(self, old):
        if self.w != old:
            self.out.append("window %s %d %d" % (DEST, old, self.w))

    def revive(self):
        self.dead = False
        b = len(self.busy)
        self.w = b if (self.pf and b > 0) else self.init
        self.s = self.f = self.fc = 0.0
        self.revive_at = None
        self.out.append("revive %s %d" % (DEST, self.w))

    def die(self):
        self.dead = True
        self.revive_at = self.now + self.backoff
        self.out.append("dead %s" % DEST)
        for n in self.todo:
            self.out.append("defer %s %d" % (DEST, n))
        self.todo = []

    def positive(self, busy):
        if self.dead:
            if self.pf:
                self.revive()       # S-PFX-8 (the document: nothing)
            return
        old = self.w
        if self.pf:
            self.fc = 0.0           # S-PFX-5
            if self.limit == 0 or self.limit > self.w:      # S-PFX-3
                if self.w < busy + self.init:               # safety
                    g = fb_value(self.pos, self.w)
                    self.s += g
                    while self.s + g / 2 >= 1:              # S-PFX-2
                        self.w += 1; self.f = 0.0; self.s -= 1
                    if self.limit > 0 and self.w > self.limit:
                        self.w = self.limit
        elif self.w < busy + self.init:                     # safety
            self.fc = 0.0
            g = fb_value(self.pos, self.w)
            self.s += g
            while self.s >= 1:
                self.w += 1; self.f = 0.0; self.s -= 1
            if self.w > self.limit:
                self.w = self.limit
        self.window_line(old)

    def negative(self):
        if self.dead:
            return
        old = self.w
        self.fc += 1.0 / self.w
        if (self.pf and self.cohorts > 0 and self.fc >= self.cohorts) or \
           (not self.pf and self.fc > self.cohorts):
            self.die()
            return
        f = fb_value(self.neg, self.w)
        self.f -= f
        while (self.f - f / 2 < 0) if self.pf else (self.f < 0):
            self.w -= 1; self.f += 1; self.s = 0.0
        if self.w < 1:
            self.w = 1
        self.window_line(old)

    def done(self, h, outcome):
        # S-PFX-6: postfix feeds back while the delivery still counts
        if self.pf:
            (self.negative if outcome == "fail" else lambda: self.positive(len(self.busy)))()
            del self.busy[h]
        else:
            del self.busy[h]
            (self.negative if outcome == "fail" else lambda: self.positive(len(self.busy)))()
        self.discard_if_idle()

    def at(self, t):
        self.now = t
        if self.exists and self.dead and self.revive_at <= t:
            self.revive()
            self.discard_if_idle()

FORMS = ["1", "0", "1/2", "1/3", "2/5", "0.25", "3/5", "1/concurrency",
         "0.5/concurrency", "1/sqrt_concurrency", "0.7/sqrt_concurrency"]

def make_stream(seed, postfix):
    r = Rng(seed)
    init = 1 + r.below(6)
    limit = 1 + r.below(8)
    if postfix and r.below(5) == 0:
        limit = 0
    pos, neg = r.pick(FORMS), r.pick(FORMS)
    cohorts = r.pick([0, 1, 1, 1, 2, 3])
    backoff = 5 + r.below(60)
    m = Model(postfix, init, limit, fb_parse(pos), fb_parse(neg), cohorts,
              backoff)
    lines = ["default_destination_recipient_limit = 2",
             "initial_destination_concurrency = %d" % init,
             "default_destination_concurrency_limit = %d" % limit,
             "default_destination_concurrency_positive_feedback = %s" % pos,
             "default_destination_concurrency_negative_feedback = %s" % neg,
             "default_destination_concurrency_failed_cohort_limit = %d" % cohorts,
             "minimal_backoff_time = %d" % backoff]
    msgs = 0
    now = 0
    bias_fail = r.below(60)   # per-stream failure rate, 0..59 %
    # per-stream share of `done` events: low shares keep deliveries in
    # flight across deaths and revivals (S-PFX-4, S-PFX-8)
    done_to = 45 + 5 + r.below(40)
    for step in range(120 + r.below(120)):
        k = r.below(100)
        if k < 8 or (msgs == 0):
            msgs += 1
            n = 2 * (1 + r.below(6))
            lines.append("arrive M%d %s*%d" % (msgs, DEST, n))
            m.arrive(n)
        elif k < 45:
            lines.append("select")
            m.select()
        elif k < done_to and m.busy:
            h = r.pick(sorted(m.busy))
            o = "fail" if r.below(100) < bias_fail else r.pick(["ok", "ok", "ok", "defer"])
            lines.append("done D%d %s" % (h, o))
            m.done(h, o)
        else:
            now += r.below(backoff // 2 + 2) if r.below(4) else backoff
            lines.append("at %d" % now)
            m.at(now)
    return lines, m.out

def qsched_trace(lines, profile):
    with tempfile.NamedTemporaryFile("w", suffix=".events", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        p = subprocess.run([QS, "--check-invariants", "--profile", profile, path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
    finally:
        os.unlink(path)
    out = []
    for line in p.stdout.splitlines():
        w = line.split()
        if w[0] == "deliver":          # deliver Dn MSG DEST N: drop MSG
            out.append("deliver %s %s %s" % (w[1], w[3], w[4]))
        elif w[0] == "defer":          # defer MSG DEST N: drop MSG
            out.append("defer %s %s" % (w[2], w[3]))
        else:
            out.append(line)
    return p.returncode, p.stderr, out

keep = os.environ.get("QSCHED_MODEL_KEEP")
for profile in ("document", "postfix"):
    bad = None
    events = 0
    for seed in range(1, NSTREAMS + 1):
        lines, want = make_stream(seed, profile == "postfix")
        events += len(lines)
        rc, err, got = qsched_trace(lines, profile)
        if rc != 0 or got != want:
            i = 0
            while i < min(len(got), len(want)) and got[i] == want[i]:
                i += 1
            bad = "seed %d: exit %d %s; trace line %d: qsched [%s] model [%s]" % (
                seed, rc, err.strip()[:120] if rc else "", i + 1,
                got[i] if i < len(got) else "<eof>",
                want[i] if i < len(want) else "<eof>")
            if keep:
                with open(keep, "w") as f:
                    f.write("# args: --profile %s\n" % profile)
                    f.write("\n".join(lines) + "\n")
            break
    name = "concurrency-model-%s-%d-streams" % (profile, NSTREAMS)
    if bad:
        print("FAIL %s: %s" % (name, bad))
    else:
        print("ok %s (%d lines)" % (name, events))
PYEOF
