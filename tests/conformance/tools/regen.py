#!/usr/bin/env python3
"""regen.py - (re)writes the generated conformance vectors (tests/conformance/gen).

Owns: the fixed list of (mix, profile, seed, size) that makes up the
generated part of the suite, and their headers.  Each stream comes from
`qsched gen`; its expected trace comes from qsched itself (a regression
oracle: a change in qsched's behaviour shows up as a failing vector, to be
explained before the vectors are regenerated).  The `# rules:` line lists
the rules that qsched's explain trace shows the stream exercising.

A stream is skipped (and listed in gen/SKIPPED) when qsched does not run
it cleanly: a non-zero exit, or an error report of the sanitizer build
given as the second argument.  Skips point at core bugs; the core owner
gets the list.

usage: regen.py QSCHED [QSCHED_ASAN]
Python 3 standard library only.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(os.path.dirname(HERE), "gen")
MIXES = ["fifo", "preempt", "concurrency", "dead", "memory", "blockers",
         "local", "mixed"]
PROFILES = ["document", "postfix"]
SMALL, MEDIUM = 16, 4  # vectors per (mix, profile)
# Long job lists (issue 16): the benchmark shapes with a backlog of 150
# messages, past the length where qsched keeps its job list indexes
# (src/candidates.c), so that the suite covers that code too: candidates
# (heavy), long lists (queue), and old bulk jobs relinked behind younger
# ones after a refill (bulk, which needs a longer stream).
LONG = [("heavy", 70001, "800"), ("queue", 80001, "800"),
        ("large", 90001, "4000")]
LONG_ARGS = ["--backlog", "150"]


def plan():
    """[(name, mix, profile, seed, size)] - the seeds are fixed forever."""
    out = []
    for mi, mix in enumerate(MIXES):
        for pi, prof in enumerate(PROFILES):
            for n in range(1, SMALL + MEDIUM + 1):
                seed = 10000 * (mi + 1) + 1000 * pi + n
                size = "small" if n <= SMALL else "medium"
                name = "gen-%s-%s-%02d" % (mix, prof, n)
                out.append((name, mix, prof, seed, size))
    for mix, base, size in LONG:
        for pi, prof in enumerate(PROFILES):
            out.append(("gen-%s-%s-01" % (mix, prof), mix, prof,
                        base + 1000 * pi, size, LONG_ARGS))
    return out


def rules_of(events, explain, profile):
    """Rules exercised, read off the stream and qsched's explain trace."""
    verbs = {}
    windows_up = windows_down = False
    for line in explain.splitlines():
        w = line.split()
        if not w:
            continue
        verbs[w[0]] = verbs.get(w[0], 0) + 1
        if w[0] == "window" and len(w) == 4:
            if int(w[3]) > int(w[2]):
                windows_up = True
            else:
                windows_down = True
    ev = [l.split()[0] for l in events.splitlines()
          if l.strip() and not l.startswith("#") and "=" not in l]
    r = {"S-EV-2", "S-EV-7", "S-EV-8", "S-PRE-1", "S-PRE-2", "S-PRE-14",
         "S-PRE-15", "S-MEM-1", "S-MEM-3", "S-CON-1", "S-INV-1"}
    if "done" in ev:
        r |= {"S-EV-9", "S-CON-12"}
    if "at" in ev:
        r.add("S-EV-6")
    if ":" in events and ("local:" in events):
        r |= {"S-EV-3", "S-EV-4"}
    if windows_up:
        r |= {"S-CON-3", "S-CON-4"}
    if windows_down:
        r.add("S-CON-7")
    if verbs.get("dead"):
        r |= {"S-CON-6", "S-CON-8"}
    if verbs.get("defer"):
        r.add("S-CON-9")
    if verbs.get("revive"):
        r.add("S-CON-10")
    if verbs.get("candidate"):
        r |= {"S-PRE-5", "S-PRE-6", "S-PRE-3"}
    if verbs.get("preempt") or verbs.get("nopreempt"):
        r.add("S-PRE-7")
    if verbs.get("preempt"):
        r |= {"S-PRE-8", "S-PRE-4"}
    if verbs.get("pop"):
        r.add("S-PRE-9")
    if verbs.get("blocker"):
        r.add("S-PRE-11")
    if verbs.get("unblock"):
        r.add("S-PRE-12")
    if verbs.get("relink"):
        r |= {"S-PRE-13", "S-MEM-10"}
    if verbs.get("wait"):
        r.add("S-MEM-2")
    if verbs.get("read", 0) > verbs.get("activate", 0):
        r |= {"S-MEM-4", "S-MEM-7"}
    if verbs.get("rcptpool") or verbs.get("slots"):
        r.add("S-MEM-5")
    if profile == "postfix":
        r.add("S-PFX-11")
        if "done" in ev:
            r.add("S-PFX-6")
        if verbs.get("dead"):
            r.add("S-PFX-1")
        if verbs.get("revive"):
            r.add("S-PFX-4")
    order = {p: i for i, p in enumerate(
        ["S-EV", "S-CON", "S-PFX", "S-PRE", "S-MEM", "S-INV"])}
    return sorted(r, key=lambda x: (order[x.rsplit("-", 1)[0]],
                                    int(x.rsplit("-", 1)[1])))


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write("usage: regen.py QSCHED [QSCHED_ASAN]\n")
        return 2
    q = os.path.abspath(sys.argv[1])
    asan = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else None
    os.makedirs(GEN, exist_ok=True)
    for fn in os.listdir(GEN):
        if fn.endswith((".events", ".expected")) or fn == "SKIPPED":
            os.remove(os.path.join(GEN, fn))
    skipped, written = [], 0
    for name, mix, prof, seed, size, *extra in plan():
        cmd = [q, "gen", "--seed", str(seed), "--profile", prof, "--mix",
               mix, "--size", size] + (extra[0] if extra else [])
        rc, stream, err = run(cmd)
        why = None
        if rc != 0:
            why = "gen exit %d: %s" % (rc, err.strip()[:200])
        else:
            rc, explain, err = run([q, "--explain", "-"], stream)
            if rc != 0:
                why = "qsched exit %d" % rc
            elif asan:
                rc2, _, err2 = run([asan, "-"], stream)
                if rc2 != 0 or "ERROR" in err2:
                    line = [l for l in err2.splitlines() if "ERROR" in l]
                    why = "sanitizer: %s" % (line[0] if line else
                                             "exit %d" % rc2)
        if why:
            skipped.append("%s (%s): %s" % (name, " ".join(cmd[1:]), why))
            continue
        header = ("# %s: generated stream, %s mix, %s profile (expected "
                  "trace from qsched)\n# rules: %s\n# profile: %s\n"
                  "# generated: qsched %s\n"
                  % (name, mix, prof, " ".join(rules_of(stream, explain,
                                                        prof)),
                     prof, " ".join(cmd[1:])))
        path = os.path.join(GEN, name + ".events")
        with open(path, "w", encoding="utf-8") as f:
            f.write(header + stream)
        rc, trace, err = run([q, path])
        if rc != 0:
            sys.stderr.write("%s: qsched exit %d on the written vector\n"
                             % (name, rc))
            return 1
        with open(os.path.join(GEN, name + ".expected"), "w",
                  encoding="utf-8") as f:
            f.write(trace)
        written += 1
    if skipped:
        with open(os.path.join(GEN, "SKIPPED"), "w", encoding="utf-8") as f:
            f.write("# streams left out because qsched did not run them "
                    "cleanly (core bugs)\n")
            f.write("\n".join(skipped) + "\n")
    print("%d generated vectors written, %d skipped" % (written,
                                                       len(skipped)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
