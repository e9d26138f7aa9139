#!/usr/bin/env python3
"""coverage.py - the coverage gate of `make coverage`.

Owns: reading gcov's branch data for the core files after a conformance
run, leaving out the code listed in tests/conformance/coverage-unreachable.txt
(code no event stream can reach: allocation failures, guards that repeat the
parser's checks, API-only accessors, defensive tests; each with its reason),
and failing when line or branch coverage of the rest is below the minimum.
It prints the raw numbers too, lists every remaining uncovered line or
branch (so that a vector can be written for it), and warns about any
exclusion that the suite does reach after all (a stale exclusion).

usage: coverage.py OBJDIR[:OBJDIR...] MIN_PERCENT FILE...
Runs `gcov -b -c -t` (branch counts, not rounded percentages) from the current directory (the repository top).
Several object directories (builds of the same sources with other
compile-time constants, e.g. the blocker index's thresholds) count as one
run: a line's counts add up, a branch is taken if it was in any of them.
Python 3 standard library only.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXCL_FILE = os.path.join(os.path.dirname(HERE), "coverage-unreachable.txt")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXCL_NAME = os.path.relpath(EXCL_FILE, TOP)
LINE_RE = re.compile(r"^\s*([0-9]+\*?|#####|=====|-):\s*(\d+):(.*)$")
BRANCH_RE = re.compile(r"^branch\s+(\d+)\s+(taken (\d+)|never executed)")
FUNC_RE = re.compile(r"^function (\S+) called")


def parse_gcov(objdir, src):
    """[(lineno, function, text, count or None, [(branch_no, taken)])]."""
    out = subprocess.run(["gcov", "-b", "-c", "-t", "-o", objdir, src],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("coverage: gcov failed on %s: %s" % (src, out.stderr))
    lines, func, cur = [], None, None
    for raw in out.stdout.splitlines():
        m = FUNC_RE.match(raw)
        if m:
            func = m.group(1)
            continue
        m = LINE_RE.match(raw)
        if m:
            cnt, no, text = m.group(1), int(m.group(2)), m.group(3)
            if no == 0:
                continue
            if cnt == "-":
                count = None
            elif cnt in ("#####", "====="):
                count = 0
            else:
                count = int(cnt.rstrip("*"))
            cur = [no, func, text, count, []]
            lines.append(cur)
            continue
        m = BRANCH_RE.match(raw)
        if m and cur is not None:
            taken = m.group(3) is not None and int(m.group(3)) > 0
            cur[4].append((int(m.group(1)), taken))
    return lines


def parse_gcov_merged(objdirs, src):
    """parse_gcov over several builds of the same source, merged line by
    line (gcov prints the same lines in the same order for each; a header's
    inline functions reuse line numbers, so lines pair by position, and the
    pairs must agree): counts added, a branch taken in any build."""
    merged = None
    for objdir in objdirs:
        lines = parse_gcov(objdir, src)
        if merged is None:
            merged = lines
            continue
        if len(lines) != len(merged) or any(
                a[0] != b[0] or a[2] != b[2] for a, b in zip(merged, lines)):
            sys.exit("coverage: %s: the builds in %s do not print the same "
                     "lines" % (src, ":".join(objdirs)))
        for cur, other in zip(merged, lines):
            if other[3] is not None:
                cur[3] = (cur[3] or 0) + other[3]
            if len(other[4]) > len(cur[4]):
                cur[4] = cur[4] + [(b, False) for b, _ in other[4][len(cur[4]):]]
            cur[4] = [(b, t or (i < len(other[4]) and other[4][i][1]))
                      for i, (b, t) in enumerate(cur[4])]
    return merged


def read_exclusions():
    """[(file, function, kind, nth, branches, regex, why, lineno)]."""
    ex, why = [], ""
    with open(EXCL_FILE, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            raw = raw.rstrip("\n")
            if raw.startswith("## "):
                why = raw[3:].strip()
                continue
            if not raw.strip() or raw.startswith("#"):
                continue
            parts = raw.split(None, 3)
            if len(parts) < 3:
                sys.exit("%s:%d: want FILE FUNCTION KIND [#N] [br=I,..] "
                         "REGEX" % (EXCL_FILE, no))
            fname, func, kind = parts[0], parts[1], parts[2]
            rest = parts[3] if len(parts) > 3 else ""
            nth, brs = 0, None
            while True:
                tok = rest.split(None, 1)
                if tok and re.match(r"^#\d+$", tok[0]):
                    nth = int(tok[0][1:])
                elif tok and tok[0].startswith("br="):
                    brs = {int(x) for x in tok[0][3:].split(",")}
                else:
                    break
                rest = tok[1] if len(tok) > 1 else ""
            if kind not in ("branches", "line", "function", "block"):
                sys.exit("%s:%d: kind must be branches, line, block or "
                         "function" % (EXCL_FILE, no))
            ex.append((fname, func, kind, nth, brs,
                       re.compile(rest.strip() or ".*"), why, no))
    return ex


def pct(a, b):
    return 100.0 * a / b if b else 100.0


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    objdir, minimum, files = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    excl = read_exclusions()
    used = [0] * len(excl)
    reached = [[] for _ in excl]
    tot = {"raw_l": [0, 0], "raw_b": [0, 0], "l": [0, 0], "b": [0, 0]}
    missing = []
    excl_taken = [0]   # excluded branches that did run (block conditions)
    for src in files:
        base = os.path.basename(src)
        per = {"raw_l": [0, 0], "raw_b": [0, 0], "l": [0, 0], "b": [0, 0]}
        seen_in_func = {}
        glines = parse_gcov_merged(objdir.split(":"), src)
        block_until = {}   # exclusion index -> (indent, started)
        for idx, (no, func, text, count, branches) in enumerate(glines):
            # which exclusions apply to this line
            line_ex, br_ex = False, set()
            for i, (fn, fu, kind, nth, brs, rx, _, _) in enumerate(excl):
                if fn != base or (fu != "*" and fu != func):
                    continue
                if kind == "function":
                    if count is not None:
                        line_ex = True
                        br_ex |= {b for b, _ in branches}
                        used[i] += 1
                        if count > 0:
                            reached[i].append(no)
                    continue
                if i in block_until:
                    # inside a block: the condition's continuation lines
                    # and the body, up to the brace closing the `if`
                    indent, body = block_until[i]
                    stripped = text.strip()
                    if body and stripped == "}" and \
                            len(text) - len(text.lstrip()) == indent:
                        del block_until[i]
                        continue
                    line_ex = True
                    br_ex |= {b for b, _ in branches}
                    if body and count:
                        reached[i].append(no)
                    if not body and text.rstrip().endswith("{"):
                        block_until[i] = (indent, True)
                    continue
                if not rx.search(text):
                    continue
                key = (i, func)
                seen_in_func[key] = seen_in_func.get(key, 0) + 1
                if nth and seen_in_func[key] != nth:
                    continue
                used[i] += 1
                if kind == "block":
                    line_ex = True
                    br_ex |= {b for b, _ in branches}
                    block_until[i] = (len(text) - len(text.lstrip()),
                                      text.rstrip().endswith("{"))
                elif kind == "line":
                    line_ex = True
                    br_ex |= {b for b, _ in branches}
                    if count:
                        reached[i].append(no)
                else:
                    sel = {b for b, _ in branches
                           if brs is None or b in brs}
                    br_ex |= sel
                    hit = [t for b, t in branches if b in sel]
                    # br=... names the untaken directions: any taken one
                    # is a stale claim; without br=, all taken is stale
                    if hit and (any(hit) if brs is not None else all(hit)):
                        reached[i].append(no)
            if count is not None:
                per["raw_l"][1] += 1
                per["raw_l"][0] += count > 0
                if not line_ex:
                    per["l"][1] += 1
                    per["l"][0] += count > 0
                    if count == 0:
                        missing.append("%s:%d: line never run: %s"
                                       % (base, no, text.strip()))
            for b, taken in branches:
                per["raw_b"][1] += 1
                per["raw_b"][0] += taken
                if b in br_ex and taken:
                    excl_taken[0] += 1
                if b not in br_ex:
                    per["b"][1] += 1
                    per["b"][0] += taken
                    if not taken and count:
                        missing.append("%s:%d: branch %d never taken: %s"
                                       % (base, no, b, text.strip()))
        for k in tot:
            tot[k][0] += per[k][0]
            tot[k][1] += per[k][1]
        print("%-12s lines %5.1f%% (%d/%d) branches %5.1f%% (%d/%d)   raw: "
              "lines %5.1f%% branches %5.1f%%"
              % (base, pct(*per["l"]), per["l"][0], per["l"][1],
                 pct(*per["b"]), per["b"][0], per["b"][1],
                 pct(*per["raw_l"]), pct(*per["raw_b"])))
    print("%-12s lines %5.1f%% (%d/%d) branches %5.1f%% (%d/%d)   raw: "
          "lines %5.1f%% branches %5.1f%%"
          % ("core", pct(*tot["l"]), tot["l"][0], tot["l"][1],
             pct(*tot["b"]), tot["b"][0], tot["b"][1],
             pct(*tot["raw_l"]), pct(*tot["raw_b"])))
    print("(left out: %d lines and %d branches, %d of them never taken, the "
          "others the taken side of an excluded block's condition; see %s)"
          % (tot["raw_l"][1] - tot["l"][1], tot["raw_b"][1] - tot["b"][1],
             tot["raw_b"][1] - tot["b"][1] - excl_taken[0], EXCL_NAME))
    for i, e in enumerate(excl):
        if used[i] == 0:
            print("warning: exclusion at %s:%d matches nothing (stale?)"
                  % (EXCL_NAME, e[7]))
        if reached[i]:
            print("warning: exclusion at %s:%d is reached by the suite "
                  "(%s lines %s): not unreachable after all"
                  % (EXCL_NAME, e[7], e[0],
                     ",".join(str(x) for x in reached[i][:5])))
    if missing:
        print("not covered (write a vector, or justify an exclusion):")
        for m in missing:
            print("  " + m)
    ok = pct(*tot["l"]) >= minimum and pct(*tot["b"]) >= minimum
    print("coverage %s: lines %.1f%%, branches %.1f%% (minimum %g%%)"
          % ("ok" if ok else "FAILED", pct(*tot["l"]), pct(*tot["b"]),
             minimum))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
