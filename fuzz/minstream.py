#!/usr/bin/env python3
"""fuzz/minstream.py - shrinks an event stream that triggers a finding.

Owns: turning a fuzzer's reproducer (the stream a harness echoes with
QSCHED_FUZZ_ECHO=1) into a short stream for a bug report.  A candidate is
kept when running the checker program on it fails and its output contains
PATTERN.  Passes, repeated until nothing changes:
  1. delta debugging over lines (chunks, then single lines);
  2. per arrive line: drop recipient groups, drop local parts, lower
     recipient counts (halving, then by one);
  3. per `at` line: lower the time.
Removing a select renumbers later handles, so many candidates are
rejected by the parser (exit 2 without PATTERN) and simply not kept.
usage: python3 fuzz/minstream.py CHECKER PATTERN IN.events OUT.events
  CHECKER is a program run as `CHECKER FILE`, for example the replay build
  of the text harness (build/fuzz/replay-san/fuzz_text) or
  "build/qsched --check-invariants".
"""
import os
import re
import subprocess
import sys
import tempfile


class Shrinker:
    def __init__(self, checker, pattern):
        self.checker = checker.split()
        self.pattern = pattern
        self.runs = 0
        fd, self.path = tempfile.mkstemp(suffix=".events")
        os.close(fd)

    def fails(self, lines):
        with open(self.path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        self.runs += 1
        p = subprocess.run(self.checker + [self.path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        out = p.stdout.decode("utf-8", "replace")
        return p.returncode != 0 and self.pattern in out

    def ddmin(self, lines):
        n = 2
        while len(lines) >= 2:
            chunk = max(1, len(lines) // n)
            reduced = False
            for start in range(0, len(lines), chunk):
                cand = lines[:start] + lines[start + chunk:]
                if cand and self.fails(cand):
                    lines = cand
                    n = max(n - 1, 2)
                    reduced = True
                    break
            if not reduced:
                if chunk == 1:
                    break
                n = min(len(lines), n * 2)
        return lines

    def simplify_words(self, lines):
        changed = False
        for i, line in enumerate(lines):
            words = line.split()
            if not words:
                continue
            if words[0] == "arrive" and len(words) > 3:
                for k in range(len(words) - 1, 1, -1):
                    cand = words[:k] + words[k + 1:]
                    if len(cand) > 2:
                        trial = lines[:i] + [" ".join(cand)] + lines[i + 1:]
                        if self.fails(trial):
                            lines, words, changed = trial, cand, True
            if words[0] == "arrive":
                for k in range(2, len(words)):
                    m = re.match(r"^([^:]+):(?:([^@*]+)@)?([^*]+)(?:\*(\d+))?$",
                                 words[k])
                    if not m:
                        continue
                    tr, local, hop, count = m.groups()
                    count = int(count or 1)
                    variants = []
                    if local:
                        variants.append((None, count))
                    c = count
                    while c > 1:
                        c //= 2
                        variants.append((local, c))
                    variants += [(local, count - 1)] if count > 1 else []
                    for loc, cnt in variants:
                        w = "%s:%s%s%s" % (tr, loc + "@" if loc else "", hop,
                                           "*%d" % cnt if cnt > 1 else "")
                        cand = words[:k] + [w] + words[k + 1:]
                        trial = lines[:i] + [" ".join(cand)] + lines[i + 1:]
                        if self.fails(trial):
                            lines, words, changed = trial, cand, True
                            local, count = loc, cnt
            if words[0] == "at" and len(words) == 2 and words[1].isdigit():
                t = int(words[1])
                for cand_t in (0, t // 2, t - 1):
                    if cand_t < t:
                        trial = lines[:i] + ["at %d" % cand_t] + lines[i + 1:]
                        if self.fails(trial):
                            lines, changed = trial, True
                            break
        return lines, changed


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    checker, pattern, src, dst = sys.argv[1:]
    with open(src) as f:
        lines = [line.rstrip("\n") for line in f
                 if line.strip() and not line.startswith("#")]
    s = Shrinker(checker, pattern)
    if not s.fails(lines):
        sys.stderr.write("minstream: the input does not fail with %r\n"
                         % pattern)
        return 1
    while True:
        before = list(lines)
        lines = s.ddmin(lines)
        lines, _ = s.simplify_words(lines)
        if lines == before:
            break
    with open(dst, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    os.unlink(s.path)
    sys.stderr.write("minstream: %d lines after %d runs -> %s\n"
                     % (len(lines), s.runs, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
