#!/usr/bin/env python3
"""proofs/rtc/gen.py - C checks generated from the kernels' ACSL contracts.

Owns: src/kernels_rtc.h, the run-time check of every contract of
src/kernels.c (issue 15, item 3).  Frama-C's E-ACSL would do this, but the
Debian build of Frama-C 25 ships no e-acsl-gcc.sh and its plug-in stops
with an internal error on src/kernels.c (proofs/README.md, "Run-time
checks"), so the contracts are translated here, with Python's standard
library only.

What it reads: each `/*@ ... */` block of src/kernels.c that comes just
before a function definition (the loop annotations and asserts inside
functions are not contracts and are left out), and the `logic integer`
constants, `predicate`s and `logic` functions of src/kernels.h.

What it writes: a header that src/kernels.c includes twice when compiled
with -DQS_CONTRACT_CHECKS (never otherwise: the product build is not
changed by a byte).  The first time it renames every contracted kernel
K to K_unchecked; the second time it defines K: check each `requires`
(a failure is a caller's bug), call K_unchecked, check each `ensures`
(a failure is the kernel's bug); a clause of a behaviour is checked when
its `assumes` hold.  A violation prints
    qsched: contract violated: FUNCTION requires|ensures NAME
on stderr and aborts, which the sanitizer, fuzz and model-checker builds
all report as a failure.

ACSL integers are unbounded; the checks compute in long long, which holds
every product the contracts form under their own preconditions (the
contracts' ranges were chosen for that: kernels.h).  Doubles are computed
in IEEE binary64 as C does, so an `exact` clause of a float kernel is
checked bit for bit, rounding included (what the real-number proof cannot
see).  Clauses this translator cannot express in C are listed in the
header with the reason, never silently dropped: quantifiers, real-number
casts, \\valid and \\separated (the sanitizers check memory), and the Why3
functions of the axiomatic QsSlots (each has a `value`-style clause beside
it that is checked).

Usage: gen.py [--check]   (--check: fail if src/kernels_rtc.h is stale)
"""
import re
import sys

KERNELS_C = "src/kernels.c"
KERNELS_H = "src/kernels.h"
OUT = "src/kernels_rtc.h"


class Unsupported(Exception):
    pass


TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>0x[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?p[+-]?\d+d?|\d+\.\d*(?:e[+-]?\d+)?d?|\d+(?:LL)?)
  | (?P<id>\\?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><==>|==>|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:(),])
""", re.X)


def tokens(text):
    pos, out = 0, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise Unsupported("cannot read %r" % text[pos:pos + 20])
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    return out


TYPES = {"double", "integer", "int", "real", "long"}


class Parser:
    """Recursive descent over the ACSL expressions the kernels use.
    Emits fully parenthesised C.  `ints` are the names whose values are
    integers (cast to long long); `olds` collects \\old(*p)."""

    def __init__(self, text, ctx):
        self.t = tokens(text)
        self.i = 0
        self.ctx = ctx

    def peek(self, k=0):
        return self.t[self.i + k][1] if self.i + k < len(self.t) else None

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok != want:
            raise Unsupported("expected %s, got %s" % (want, tok))
        self.i += 1
        return tok

    def parse(self):
        e = self.ternary()
        if self.peek() is not None:
            raise Unsupported("trailing %s" % self.peek())
        return e

    def ternary(self):
        c = self.equiv()
        if self.peek() == "?":
            self.take()
            a = self.ternary()
            self.take(":")
            b = self.ternary()
            return "(%s ? %s : %s)" % (c, a, b)
        return c

    def equiv(self):
        a = self.impl()
        while self.peek() == "<==>":
            self.take()
            b = self.impl()
            a = "(!%s == !%s)" % (a, b)
        return a

    def impl(self):
        a = self.lor()
        if self.peek() == "==>":
            self.take()
            b = self.impl()
            return "(!%s || %s)" % (a, b)
        return a

    def lor(self):
        a = self.land()
        while self.peek() == "||":
            self.take()
            a = "(%s || %s)" % (a, self.land())
        return a

    def land(self):
        a = self.rel()
        while self.peek() == "&&":
            self.take()
            a = "(%s && %s)" % (a, self.rel())
        return a

    def rel(self):
        # ACSL chains comparisons: a <= b < c means a <= b && b < c.
        terms, ops = [self.add()], []
        while self.peek() in ("<", "<=", ">", ">=", "==", "!="):
            ops.append(self.take())
            terms.append(self.add())
        if not ops:
            return terms[0]
        parts = ["(%s %s %s)" % (terms[k], ops[k], terms[k + 1])
                 for k in range(len(ops))]
        return "(%s)" % " && ".join(parts)

    def add(self):
        a = self.mul()
        while self.peek() in ("+", "-"):
            op = self.take()
            a = "(%s %s %s)" % (a, op, self.mul())
        return a

    def mul(self):
        a = self.unary()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            a = "(%s %s %s)" % (a, op, self.unary())
        return a

    def unary(self):
        tok = self.peek()
        if tok in ("-", "!"):
            self.take()
            return "(%s%s)" % (tok, self.unary())
        if tok == "*":
            self.take()
            name = self.take()
            return "(*%s)" % name
        if tok == "(" and self.peek(1) in TYPES and self.peek(2) == ")":
            self.take()
            ty = self.take()
            self.take(")")
            if ty == "real":
                raise Unsupported("real-number cast")
            inner = self.unary()
            return "((%s)%s)" % ("double" if ty == "double" else "long long", inner)
        return self.primary()

    def args(self):
        self.take("(")
        out = []
        if self.peek() != ")":
            out.append(self.ternary())
            while self.peek() == ",":
                self.take()
                out.append(self.ternary())
        self.take(")")
        return out

    def primary(self):
        kind, tok = self.t[self.i] if self.i < len(self.t) else (None, None)
        if tok == "(":
            self.take()
            e = self.ternary()
            self.take(")")
            return "(%s)" % e
        if kind == "num":
            self.take()
            if tok.endswith("d"):
                tok = tok[:-1]
            if re.fullmatch(r"\d+", tok):
                tok += "LL"
            return tok
        if kind != "id":
            raise Unsupported("unexpected %s" % tok)
        self.take()
        builtins = {"\\le_double": "<=", "\\lt_double": "<", "\\eq_double": "=="}
        if tok in builtins:
            a, b = self.args()
            return "(%s %s %s)" % (a, builtins[tok], b)
        if tok == "\\is_finite":
            (a,) = self.args()
            return "isfinite(%s)" % a
        if tok == "\\sqrt":
            (a,) = self.args()
            return "sqrt(%s)" % a
        if tok == "\\result":
            return self.ctx["result"]
        if tok == "\\old":
            self.take("(")
            if self.peek() == "*":
                self.take()
                name = self.take()
                self.take(")")
                self.ctx["olds"].add(name)
                return "rtc_old_%s" % name
            e = self.ternary()   # parameters are passed by value: unchanged
            self.take(")")
            return e
        if tok.startswith("\\"):
            raise Unsupported(tok)
        if tok in DOUBLE_OPS:
            a, b = self.args()
            return "(%s %s %s)" % (a, DOUBLE_OPS[tok], b)
        if tok in self.ctx["logic"]:
            return "rtc_%s(%s)" % (tok, ", ".join(self.args()))
        if self.peek() == "(":
            raise Unsupported("logic function %s without a C definition" % tok)
        if tok in self.ctx["ints"]:
            return "((long long)%s)" % tok
        if tok in self.ctx["consts"] or tok in self.ctx["doubles"] or \
                tok.startswith("QS_"):
            return tok
        raise Unsupported("unknown name %s" % tok)


# The axiomatic QsDouble of kernels.h: C's binary64 + - / (WP binds them
# to its add_f64, sub_f64, div_f64); in C they are the operators
# themselves, on doubles, rounded as the code rounds them.
DOUBLE_OPS = {"qs_dadd": "+", "qs_dsub": "-", "qs_ddiv": "/"}


def expand_lets(text):
    """`\\let x = e; p` becomes p with every x replaced by (e).  The scope
    of a \\let is the rest of its definition: up to the next `;` that does
    not end a further \\let (the definitions of kernels.h are split on
    `;`, so the lets must be gone first)."""
    let = re.compile(r"\s*\\let\s+(\w+)\s*=\s*([^;]*);")
    while True:
        m = let.search(text)
        if not m:
            return text
        pos = m.end()
        while let.match(text, pos):
            pos = let.match(text, pos).end()
        end = text.find(";", pos)
        end = len(text) if end < 0 else end
        body = re.sub(r"\b%s\b" % m.group(1), "(%s)" % m.group(2).strip(),
                      text[m.end():end])
        text = text[:m.start()] + " " + body + text[end:]


def strip_line_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def c_expr(text, ctx):
    return Parser(" ".join(text.split()), ctx).parse()


def header_logic(h):
    """The logic constants, predicates and functions of kernels.h."""
    acsl = "\n".join(re.findall(r"/\*@(.*?)\*/", h, re.S))
    acsl = strip_line_comments(acsl)
    acsl = re.sub(r"axiomatic\s+\w+\s*\{.*?\}", "", acsl, flags=re.S)
    acsl = expand_lets(acsl)
    consts, logic, defs = {}, {}, []
    for stmt in acsl.split(";"):
        stmt = " ".join(stmt.split())
        m = re.fullmatch(r"logic integer (\w+) = (.*)", stmt)
        if m:
            consts[m.group(1)] = m.group(2)
            continue
        m = re.fullmatch(r"(predicate|logic (integer|double)) (\w+)\((.*?)\) = (.*)", stmt)
        if m:
            logic[m.group(3)] = (m.group(1), m.group(2), m.group(4), m.group(5))
    return consts, logic, defs


def emit_logic(consts, logic):
    out = ["/* The logic constants of kernels.h, as C constants. */"]
    ctx0 = {"ints": set(), "doubles": set(), "consts": set(consts),
            "logic": set(), "olds": set(), "result": None}
    for name, val in consts.items():
        out.append("#define %s_RTC ((long long)(%s))" % (name, rtc_consts(c_expr(val, ctx0), consts)))
    out.append("/* The predicates and logic functions of kernels.h. */")
    names = set()
    for name, (kind, rty, params, body) in logic.items():
        cparams, ints, dbls = [], set(), set()
        for p in params.split(","):
            ty, pn = p.split()
            if ty == "double":
                cparams.append("double " + pn)
                dbls.add(pn)
            else:
                cparams.append("long long " + pn)
                ints.add(pn)
        ctx = {"ints": ints, "doubles": dbls, "consts": set(consts),
               "logic": set(names), "olds": set(), "result": None}
        ret = "int" if kind == "predicate" else \
            ("double" if rty == "double" else "long long")
        out.append("static %s rtc_%s(%s)\n{\n    return %s;\n}" %
                   (ret, name, ", ".join(cparams), rtc_consts(c_expr(body, ctx), consts)))
        names.add(name)
    return out, names


def rtc_consts(expr, consts):
    """Logic constants that are not C macros read as NAME_RTC."""
    for name in consts:
        expr = re.sub(r"\b%s\b" % name, name + "_RTC", expr)
    return expr


SIG = re.compile(r"\s*((?:/\*(?!@)(?:[^*]|\*(?!/))*\*/\s*)*)"
                 r"(int|double|long long)\s+(qs_\w+)\s*\(([^)]*)\)\s*\{")


def contracts(c):
    """(return type, name, params, contract text) of each contracted kernel."""
    out = []
    for m in re.finditer(r"/\*@(.*?)\*/", c, re.S):
        s = SIG.match(c, m.end())
        if not s:
            continue   # a lemma block, or an annotation inside a function
        params = [p.strip() for p in s.group(4).split(",")]
        out.append((s.group(2), s.group(3), params, m.group(1)))
    return out


def clauses(text):
    """(kind, name, expression, assumes) of each requires/ensures."""
    out, assumes = [], None
    for stmt in strip_line_comments(text).split(";"):
        stmt = " ".join(stmt.split())
        m = re.match(r"behavior (\w+):\s*(.*)", stmt)
        if m:
            assumes, stmt = [], m.group(2)
        if stmt.startswith("assumes "):
            assumes.append(stmt[len("assumes "):])
            continue
        # `check ensures` (proved, not assumed by callers) is checked too
        m = re.fullmatch(r"(?:check )?(requires|ensures) (?:(\w+):)?\s*(.*)", stmt)
        if m:
            out.append((m.group(1), m.group(2) or "unnamed", m.group(3),
                        list(assumes) if assumes is not None else []))
    return out


def generate():
    c = open(KERNELS_C).read()
    h = open(KERNELS_H).read()
    consts, logic, _ = header_logic(h)
    logic_out, logic_names = emit_logic(consts, logic)
    lines = [
        "/*",
        " * kernels_rtc.h - GENERATED by proofs/rtc/gen.py from the ACSL",
        " * contracts of src/kernels.c and src/kernels.h; do not edit (make",
        " * check fails when it is stale).  Included by src/kernels.c only",
        " * under -DQS_CONTRACT_CHECKS (the sanitizer build of make check, the",
        " * fuzz builds and the model checker's build): each contracted kernel",
        " * checks its requires and ensures at run time and aborts on a",
        " * violation.  proofs/README.md, \"Run-time checks\".",
        " */",
        "#ifndef QS_RTC_WRAPPERS",
        "/* First inclusion, before the kernels: rename them. */",
    ]
    kernels = contracts(c)
    for ret, name, params, _ in kernels:
        lines.append("#define %s %s_unchecked" % (name, name))
    for ret, name, params, _ in kernels:
        lines.append("%s %s_unchecked(%s);" % (ret, name, ", ".join(params)))
    lines += ["#else", "/* Second inclusion, after the kernels: the checked ones. */",
              "#include <math.h>", "#include <stdio.h>", "#include <stdlib.h>"]
    for ret, name, params, _ in kernels:
        lines.append("#undef %s" % name)
    lines += [
        "static void rtc_violated(const char *fn, const char *kind, const char *clause)",
        "{",
        "    fprintf(stderr, \"qsched: contract violated: %s %s %s\\n\", fn, kind, clause);",
        "    abort();",
        "}",
        "#define RTC(fn, kind, clause, ok) \\",
        "    do { if (!(ok)) rtc_violated(fn, kind, clause); } while (0)",
    ]
    lines += logic_out
    checked = skipped = 0
    for ret, name, params, text in kernels:
        ints, dbls, ptrs, pnames = set(), set(), {}, []
        for p in params:
            m = re.fullmatch(r"(.*?)(\*?)\s*(\w+)", p)
            ty, star, pn = m.group(1).strip(), m.group(2), m.group(3)
            pnames.append(pn)
            if star:
                ptrs[pn] = ty
            elif ty == "double":
                dbls.add(pn)
            else:
                ints.add(pn)
        result = "rtc_result" if ret == "double" else "((long long)rtc_result)"
        ctx = {"ints": ints, "doubles": dbls | set(ptrs), "consts": set(consts),
               "logic": logic_names, "olds": set(), "result": result}
        pre, post, notes = [], [], []
        for kind, cname, expr, assumes in clauses(text):
            try:
                e = c_expr(expr, ctx)
                for a in reversed(assumes):
                    e = "(!%s || %s)" % (c_expr(a, ctx), e)
            except Unsupported as why:
                notes.append("    /* not checked at run time: %s %s (%s) */"
                             % (kind, cname, why))
                skipped += 1
                continue
            checked += 1
            stmt = "    RTC(\"%s\", \"%s\", \"%s\", %s);" % (
                name, kind, cname, rtc_consts(e, consts))
            (pre if kind == "requires" else post).append(stmt)
        lines.append("%s %s(%s)\n{" % (ret, name, ", ".join(params)))
        lines.append("    %s rtc_result;" % ret)
        lines += notes + pre
        for p in sorted(ctx["olds"]):
            lines.append("    %s rtc_old_%s = *%s;" % (ptrs[p], p, p))
        lines.append("    rtc_result = %s_unchecked(%s);" % (name, ", ".join(pnames)))
        lines += post
        lines.append("    return rtc_result;\n}")
    lines.append("#endif")
    lines.append("/* %d clauses checked, %d not expressible in C (listed above). */"
                 % (checked, skipped))
    return "\n".join(lines) + "\n", checked, skipped


def main():
    text, checked, skipped = generate()
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        try:
            cur = open(OUT).read()
        except OSError:
            cur = ""
        if cur != text:
            print("FAIL rtc: %s is stale: run python3 proofs/rtc/gen.py" % OUT)
            return 1
        print("ok rtc: %s up to date (%d clauses checked, %d not expressible)"
              % (OUT, checked, skipped))
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print("rtc: wrote %s (%d clauses checked, %d not expressible)" % (OUT, checked, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
