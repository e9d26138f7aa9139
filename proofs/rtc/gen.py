#!/usr/bin/env python3
"""proofs/rtc/gen.py - C checks generated from the core's ACSL contracts.

Owns: the run-time check of every contract of the core (issue 15, item 3):
src/kernels_rtc.h (the arithmetic kernels of src/kernels.c),
src/X_rtc.h (the proved scheduler helpers of src/X.c), and the two
headers of the logic they call: src/kernels_logic_rtc.h (the constants,
predicates and logic functions of src/kernels.h, and the RTC macro) and
src/contracts_rtc.h (those of src/sched_int.h).  Each definition is
emitted once.  Frama-C's E-ACSL would do this, but the Debian build of
Frama-C 25 ships no e-acsl-gcc.sh and its plug-in stops with an internal
error on src/kernels.c (proofs/README.md, "Run-time checks"), so the
contracts are translated here, with Python's standard library only.

What it reads: each `/*@ ... */` block that comes just before a
contracted function (the loop annotations and asserts inside functions
are not contracts and are left out); the `logic` constants, `predicate`s
and `logic` functions of src/kernels.h and src/sched_int.h; the structure
definitions (field types) of the headers the contracts read.

One typed translator (class Parser) reads every contract: each
expression carries its C type, so `->` and `.` fields, \\old of fields and
of *p, \\result, \\null, \\valid and \\separated all translate the same way
for a kernel and for a helper.  A violation prints
    qsched: contract violated: FUNCTION requires|ensures NAME
on stderr and aborts, which the sanitizer, fuzz and model-checker builds
all report as a failure; NAME is BEHAVIOUR.CLAUSE for a clause of a
behaviour, which is checked when its assumes held on entry.

ACSL integers are unbounded; the checks compute in long long, which holds
every product the contracts form under their own preconditions (the
contracts' ranges were chosen for that: kernels.h).  Doubles are computed
in IEEE binary64 as C does, so an `exact` clause of a float kernel is
checked bit for bit, rounding included (what the real-number proof cannot
see).  Clauses this translator cannot express in C are listed in the
header with the reason, never silently dropped: quantifiers, real-number
casts, inductive predicates, and the Why3 functions of the axiomatic
QsSlots (each has a `value`-style clause beside it that is checked);
\\valid is checked as non-NULL and \\separated as distinct addresses (the
sanitizers check the rest), and such clauses are marked "in part".

Usage: gen.py [--check|--figures]   (--check: fail if a generated header is
stale; --figures: per contracted function "FILE FUNCTION CLAUSES CHECKED
IN-PART NOT")
"""
import re
import sys

KERNELS_C = "src/kernels.c"
KERNELS_H = "src/kernels.h"
OUT = "src/kernels_rtc.h"
LOGIC_OUT = "src/kernels_logic_rtc.h"


class Unsupported(Exception):
    pass


TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>0x[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?p[+-]?\d+d?|\d+\.\d*(?:e[+-]?\d+)?d?|\d+(?:LL)?)
  | (?P<id>\\?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><==>|==>|->|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:(),.])
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


# ---------------------------------------------------------------------
# What the contracts read, and the two mechanisms.
#
# The contracts read the scheduler's structures: `->` and `.` fields,
# \old of fields and of *p, \result, \null, \valid, \separated, and the
# predicates and logic functions of kernels.h and sched_int.h.  So the
# translator is typed: every expression carries its C type ("int" for any
# integer, computed in long long; "double"; "ptr:T"; "struct:T"; "bool"),
# field types are read from the structure definitions (sched_int.h,
# params.h and the contracts headers), and \old(e) becomes a temporary
# saved before the call (when e dereferences a pointer, the saving is
# guarded by that pointer's being non-null; a clause that uses the value
# when it was null is guarded by the contract itself, `p != \null ==>`).
#
# The kernels (external functions called from every core file): src/kernels.c
# includes src/kernels_rtc.h twice under QS_CONTRACT_CHECKS.  The first
# inclusion renames each contracted kernel K to K_unchecked; the second,
# after the kernels, defines K: the requires, the saves, the call of
# K_unchecked, the ensures.
#
# The helpers (static, defined and called in one file): for each contracted
# helper F the file's generated header src/X_rtc.h declares F, defines
# rtc_check_F (requires, saves, the call (F)(...), ensures) and
#     #define F(...) rtc_check_F(__VA_ARGS__)
# The definition is written `static T (F)(...)`, so the macro does not
# expand there; every call after the header's #include goes through the
# check.  src/X.c includes the header under QS_CONTRACT_CHECKS only, right
# after its own includes (before any call), so the product build and
# Frama-C never see it.
#
# Both build a check's body with check_function below, from the same
# clauses, so a kernel and a helper are checked the same way.
# ---------------------------------------------------------------------

HELPERS = [
    # (source file, file holding the contracts, generated header)
    ("src/concurrency.c", "src/concurrency_contracts.h", "src/concurrency_rtc.h"),
    ("src/preempt.c", "src/preempt_contracts.h", "src/preempt_rtc.h"),
    ("src/preempt_scan.c", "src/preempt_scan_contracts.h", "src/preempt_scan_rtc.h"),
    ("src/candidates.c", "src/candidates_contracts.h", "src/candidates_rtc.h"),
    ("src/jobs.c", "src/jobs.c", "src/jobs_rtc.h"),
    ("src/select.c", "src/select.c", "src/select_rtc.h"),
    ("src/memory.c", "src/memory.c", "src/memory_rtc.h"),
]
COMMON_OUT = "src/contracts_rtc.h"
STRUCT_SOURCES = ["src/params.h", "src/sched_int.h"] + \
    sorted({h for _, h, _ in HELPERS if h.endswith(".h")})
INT_TYPES = {"int", "int64_t", "uint64_t", "unsigned", "size_t", "long", "long long",
             "uint32_t", "int32_t", "char", "integer", "boolean"}


class E(str):
    """A C expression with its type."""
    def __new__(cls, text, ty):
        s = str.__new__(cls, text)
        s.ty = ty
        return s


def ty_of(e):
    return getattr(e, "ty", "int")


def c_type(ty, name=""):
    """The C declaration of a variable of type ty."""
    if ty == "double":
        return "double " + name
    if ty.startswith("ptr:"):
        return "const %s *%s" % (ty[4:], name)
    if ty.startswith("struct:"):
        return "%s %s" % (ty[7:], name)
    return "long long " + name


def decl_type(text):
    """ty of a C or ACSL declaration's type text (without the name)."""
    text = text.replace("const", " ").replace("struct ", " ").strip()
    if "*" in text:
        return "ptr:" + text.replace("*", "").strip()
    if text == "double":
        return "double"
    if text in ("real",):
        return "double"
    if text in INT_TYPES or text.startswith("int") or text.startswith("uint"):
        return "int"
    return "struct:" + text


def strip_c_comments(text):
    text = re.sub(r"/\*(?!@).*?\*/", " ", text, flags=re.S)
    return re.sub(r"/\*@.*?\*/", " ", text, flags=re.S)


def read_structs(paths):
    """{struct name: {field: ty}} from the structure definitions."""
    structs = {}
    for path in paths:
        text = strip_c_comments(open(path).read())
        text = re.sub(r"//[^\n]*", "", text)
        for m in re.finditer(r"(?:typedef\s+)?struct\s+(\w+)\s*\{(.*?)\n\}\s*(\w*)\s*;",
                             text, re.S):
            fields = {}
            for decl in m.group(2).split(";"):
                decl = " ".join(decl.split())
                if not decl or "(" in decl or "{" in decl:
                    continue
                dm = re.match(r"((?:const |unsigned |struct )*[A-Za-z_]\w*)\s*(.*)", decl)
                if not dm:
                    continue
                base, rest = dm.group(1), dm.group(2)
                if not rest and base.startswith("unsigned "):
                    base, rest = "unsigned", base[len("unsigned "):]
                for d in rest.split(","):
                    d = d.strip()
                    nm = re.search(r"(\w+)\s*(\[.*\])?$", d)
                    if not nm:
                        continue
                    stars = "*" * d.count("*")
                    if nm.group(2):
                        stars += "*"
                    fields[nm.group(1)] = decl_type(base + " " + stars)
            structs[m.group(1)] = fields
    return structs


class Parser:
    """The typed translator: recursive descent over the contracts' ACSL,
    emitting fully parenthesised C.  ctx: params {name: ty}, structs,
    logic {name: (ret ty, [param ty], [why in part])}, result (ty or
    None), consts (int), rconsts (real), olds (list of (var, ty, guard,
    expr)), notes (set of reasons a clause is checked only in part), bad
    {name: why not translatable}."""

    def __init__(self, text, ctx):
        self.t = tokens(text)
        self.i = 0
        self.ctx = ctx
        self.in_old = 0
        self.derefs = None

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

    def ternary(self):
        c = self.equiv()
        if self.peek() == "?":
            self.take()
            a = self.ternary()
            self.take(":")
            b = self.ternary()
            ty = "double" if "double" in (ty_of(a), ty_of(b)) else ty_of(a)
            return E("(%s ? %s : %s)" % (c, a, b), ty)
        return c

    def equiv(self):
        a = self.impl()
        while self.peek() == "<==>":
            self.take()
            b = self.impl()
            a = E("(!%s == !%s)" % (a, b), "bool")
        return a

    def impl(self):
        a = self.lor()
        if self.peek() == "==>":
            self.take()
            b = self.impl()
            return E("(!%s || %s)" % (a, b), "bool")
        return a

    def lor(self):
        a = self.land()
        while self.peek() == "||":
            self.take()
            a = E("(%s || %s)" % (a, self.land()), "bool")
        return a

    def land(self):
        a = self.rel()
        while self.peek() == "&&":
            self.take()
            a = E("(%s && %s)" % (a, self.rel()), "bool")
        return a

    def compare(self, a, op, b):
        ta, tb = ty_of(a), ty_of(b)
        if ta.startswith("struct:") or tb.startswith("struct:"):
            if ta != tb or op not in ("==", "!="):
                raise Unsupported("comparison of %s and %s" % (ta, tb))
            fields = self.ctx["structs"].get(ta[7:])
            if not fields:
                raise Unsupported("unknown struct %s" % ta[7:])
            eq = " && ".join("(%s).%s == (%s).%s" % (a, f, b, f) for f in fields)
            return "(%s(%s))" % ("" if op == "==" else "!", eq)
        if ta.startswith("ptr:") and tb.startswith("ptr:") and ta != tb and \
                "ptr:void" not in (ta, tb):
            return "((const void *)%s %s (const void *)%s)" % (a, op, b)
        return "(%s %s %s)" % (a, op, b)

    def rel(self):
        terms, ops = [self.add()], []
        while self.peek() in ("<", "<=", ">", ">=", "==", "!="):
            ops.append(self.take())
            terms.append(self.add())
        if not ops:
            return terms[0]
        parts = [self.compare(terms[k], ops[k], terms[k + 1])
                 for k in range(len(ops))]
        return E("(%s)" % " && ".join(parts), "bool")

    def add(self):
        a = self.mul()
        while self.peek() in ("+", "-"):
            op = self.take()
            b = self.mul()
            ty = "double" if "double" in (ty_of(a), ty_of(b)) else "int"
            a = E("(%s %s %s)" % (a, op, b), ty)
        return a

    def mul(self):
        a = self.unary()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            b = self.unary()
            ty = "double" if "double" in (ty_of(a), ty_of(b)) else "int"
            a = E("(%s %s %s)" % (a, op, b), ty)
        return a

    def unary(self):
        tok = self.peek()
        if tok in ("-", "!"):
            self.take()
            a = self.unary()
            return E("(%s%s)" % (tok, a), "bool" if tok == "!" else ty_of(a))
        if tok == "*":
            self.take()
            p = self.unary()
            if not ty_of(p).startswith("ptr:"):
                raise Unsupported("* of a non-pointer")
            return self.leaf("(*%s)" % p, decl_type(ty_of(p)[4:]), p)
        if tok == "(" and self.peek(1) in TYPES and self.peek(2) == ")":
            self.take()
            ty = self.take()
            self.take(")")
            if ty == "real":
                raise Unsupported("real-number cast")
            inner = self.unary()
            if ty == "double":
                return E("((double)%s)" % inner, "double")
            return E("((long long)%s)" % inner, "int")
        return self.postfix(self.primary())

    def leaf(self, text, ty, base=None):
        """A read of memory (a field or *p): typed; in \\old, its base
        pointer joins the guard of the saving."""
        if base is not None and self.derefs is not None:
            self.derefs.append(str(base))
        if ty == "int":
            return E("((long long)%s)" % text, "int")
        return E(text, ty)

    def field(self, base, name, arrow):
        ty = ty_of(base)
        if arrow and not ty.startswith("ptr:"):
            raise Unsupported("-> on %s" % ty)
        if not arrow and not ty.startswith("struct:"):
            raise Unsupported(". on %s" % ty)
        sname = ty.split(":", 1)[1]
        fields = self.ctx["structs"].get(sname)
        if fields is None or name not in fields:
            raise Unsupported("unknown field %s.%s" % (sname, name))
        raw = getattr(base, "raw", str(base))
        text = "%s%s%s" % (raw, "->" if arrow else ".", name)
        e = self.leaf(text, fields[name], base if arrow else None)
        e.raw = text
        return e

    def postfix(self, e):
        while self.peek() in ("->", "."):
            arrow = self.take() == "->"
            e = self.field(e, self.take(), arrow)
        return e

    def saved(self, e):
        """\\old(e): a temporary saved before the call."""
        olds = self.ctx["olds"]
        var = "rtc_old_%d" % len(olds)
        olds.append((var, ty_of(e), list(self.derefs), str(e)))
        out = E(var, ty_of(e))
        out.raw = var
        return out

    def primary(self):
        kind, tok = self.t[self.i] if self.i < len(self.t) else (None, None)
        if tok == "(":
            self.take()
            e = self.ternary()
            self.take(")")
            out = E("(%s)" % e, ty_of(e))
            if hasattr(e, "raw"):
                out.raw = "(%s)" % e.raw
            return out
        if kind == "num":
            self.take()
            if tok.endswith("d"):
                return E(tok[:-1], "double")
            if "." in tok or "p" in tok:
                return E(tok, "double")
            return E(tok + "LL", "int")
        if kind != "id":
            raise Unsupported("unexpected %s" % tok)
        self.take()
        builtins = {"\\le_double": "<=", "\\lt_double": "<", "\\eq_double": "=="}
        if tok in builtins:
            a, b = self.args()
            return E("(%s %s %s)" % (a, builtins[tok], b), "bool")
        if tok == "\\is_finite":
            (a,) = self.args()
            return E("isfinite(%s)" % a, "bool")
        if tok == "\\sqrt":
            (a,) = self.args()
            return E("sqrt(%s)" % a, "double")
        if tok == "\\null":
            return E("NULL", "ptr:void")
        if tok in ("\\valid", "\\valid_read"):
            ps = self.args()
            self.ctx["notes"].add("%s(p) as p != NULL (the sanitizers check the rest)" % tok)
            return E("(%s)" % " && ".join("(%s != NULL)" % p for p in ps), "bool")
        if tok == "\\separated":
            ps = self.args()
            self.ctx["notes"].add("\\separated as pairwise distinct addresses "
                                  "(overlap of distinct objects: the sanitizers)")
            pairs = ["((const void *)%s != (const void *)%s)" % (ps[i], ps[j])
                     for i in range(len(ps)) for j in range(i + 1, len(ps))]
            return E("(%s)" % " && ".join(pairs), "bool")
        if tok == "\\result":
            if self.in_old and not self.ctx.get("frame_out_only"):
                raise Unsupported("\\result inside \\old/\\at (its pre-state)")
            if self.in_old:
                self.result_in_old = True
            if self.ctx["result"] is None:
                raise Unsupported("\\result of a void function")
            e = E("rtc_result", self.ctx["result"])
            e.raw = "rtc_result"
            return e
        if tok in ("\\old", "\\at"):
            self.take("(")
            if self.in_old:
                raise Unsupported("nested \\old")
            self.in_old, self.derefs = 1, []
            self.result_in_old = False
            e = self.ternary()
            if tok == "\\at":
                self.take(",")
                label = self.take()
                if label != "Pre":
                    raise Unsupported("\\at(..., %s)" % label)
            self.take(")")
            if self.result_in_old:
                # The pre-state of the object \result points to is not
                # known before the call; the function assigns only scalars
                # through its out-parameters (its assigns clause, which WP
                # proves), so no structure field changes: read it after.
                self.ctx["notes"].add("\\at(..., Pre) of \\result read after "
                                      "the call (assigns: only *out-parameters)")
                self.in_old, self.derefs = 0, None
                return E("(%s)" % e, ty_of(e))
            out = self.saved(e)
            self.in_old, self.derefs = 0, None
            return out
        if tok.startswith("\\"):
            raise Unsupported(tok)
        if tok in DOUBLE_OPS:
            a, b = self.args()
            return E("(%s %s %s)" % (a, DOUBLE_OPS[tok], b), "double")
        if tok in self.ctx["bad"]:
            raise Unsupported(self.ctx["bad"][tok])
        if tok in self.ctx["logic"]:
            ret, ptys, partial = self.ctx["logic"][tok]
            args = self.args()
            if len(args) != len(ptys):
                raise Unsupported("%s: %d arguments" % (tok, len(args)))
            for why in partial:
                self.ctx["notes"].add(why)
            if self.derefs is not None and any(t.startswith("ptr:") for t in ptys):
                # a predicate over a pointer reads through it
                self.derefs.extend(str(a) for a, t in zip(args, ptys)
                                   if t.startswith("ptr:"))
            return E("rtc_%s(%s)" % (tok, ", ".join(args)), ret)
        if self.peek() == "(":
            raise Unsupported("logic function %s without a C definition" % tok)
        if tok in self.ctx["params"]:
            ty = self.ctx["params"][tok]
            e = E("((long long)%s)" % tok, "int") if ty == "int" else E(tok, ty)
            e.raw = tok
            return e
        if tok in self.ctx["rconsts"]:
            return E(tok + "_RTC", "double")
        if tok in self.ctx["consts"]:
            return E(tok + "_RTC", "int")
        if tok.startswith("QS_"):
            return E("((long long)%s)" % tok, "int")
        raise Unsupported("unknown name %s" % tok)


def c_expr(text, ctx):
    return Parser(" ".join(text.split()), ctx).parse()


def read_logic(paths):
    """The ACSL logic definitions of the headers: (consts, rconsts,
    defs {name: (kind, ret ty, [(ty, name)], body)}, bad {name: why})."""
    consts, rconsts, defs, bad = {}, {}, {}, {}
    for path in paths:
        acsl = "\n".join(re.findall(r"/\*@(.*?)\*/", open(path).read(), re.S))
        acsl = strip_line_comments(acsl)
        for m in re.finditer(r"inductive\s+(\w+)", acsl):
            bad[m.group(1)] = "inductive predicate %s (recursive: the list it " \
                "ranges over is walked by check.c instead)" % m.group(1)
        acsl = re.sub(r"inductive\s+\w+.*?\n\s*\}", "", acsl, flags=re.S)
        for m in re.finditer(r"axiomatic\s+\w+\s*\{(.*?)\}", acsl, re.S):
            for n in re.findall(r"(?:logic \w+|predicate)\s+(\w+)\s*\(", m.group(1)):
                if n in DOUBLE_OPS:
                    continue   # C's own + - / on doubles (above)
                bad.setdefault(n, "logic function %s without a C definition "
                               "(axiomatic)" % n)
        acsl = re.sub(r"axiomatic\s+\w+\s*\{.*?\}", "", acsl, flags=re.S)
        acsl = expand_lets(acsl)
        for stmt in acsl.split(";"):
            stmt = " ".join(stmt.split())
            m = re.fullmatch(r"logic (integer|real) (\w+) = (.*)", stmt)
            if m:
                (consts if m.group(1) == "integer" else rconsts)[m.group(2)] = m.group(3)
                continue
            m = re.fullmatch(r"(predicate|logic (\w+)) (\w+)(?:\{\w+\})?\((.*?)\) = (.*)", stmt)
            if m:
                params = []
                for p in m.group(4).split(","):
                    pm = re.fullmatch(r"\s*(.*?)\s*(\**)\s*(\w+)\s*", p)
                    params.append((decl_type(pm.group(1) + pm.group(2)), pm.group(3)))
                ret = "bool" if m.group(1) == "predicate" else decl_type(m.group(2))
                defs[m.group(3)] = (m.group(1), ret, params, m.group(5))
    return consts, rconsts, defs, bad


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


def emit_logic(paths, known, structs):
    """The logic of the headers in paths, as C lines: `#define NAME_RTC`
    for each logic constant, `static inline rtc_NAME` for each predicate
    and logic function, and a comment for each one not translated.  known:
    (consts, rconsts, logic, bad) of the headers emitted before, which
    these may call; returns the same, extended."""
    consts0, rconsts0, logic0, bad0 = known
    consts, rconsts, defs, bad = read_logic(paths)
    allc, allr = set(consts0) | set(consts), set(rconsts0) | set(rconsts)
    bad = dict(bad0, **bad)
    base = {"params": {}, "structs": structs, "logic": {}, "result": None,
            "consts": allc, "rconsts": allr, "olds": [], "notes": set(),
            "bad": bad}
    out = ["/* The logic constants (integers in long long, reals as doubles). */"]
    for name, val in consts.items():
        out.append("#define %s_RTC ((long long)(%s))" % (name, c_expr(val, base)))
    for name, val in rconsts.items():
        out.append("#define %s_RTC ((double)(%s))" % (name, c_expr(val, base)))
    out.append("")
    out.append("/* The predicates and logic functions (non-recursive, no quantifier). */")
    logic = dict(logic0)
    for name, (kind, ret, params, body) in defs.items():
        ctx = dict(base)
        ctx["params"] = {pn: ty for ty, pn in params}
        ctx["logic"] = dict(logic)
        ctx["notes"] = set()
        try:
            e = c_expr(body, ctx)
        except Unsupported as why:
            bad[name] = "%s: %s" % (name, why)
            out.append("/* not translated: %s %s (%s) */" % (kind.split()[0], name, why))
            continue
        cret = "int" if ret == "bool" else c_type(ret).strip()
        out.append("static inline %s rtc_%s(%s)\n{\n    return %s;\n}" % (
            cret, name, ", ".join(c_type(ty, pn) for ty, pn in params), e))
        logic[name] = (ret, [ty for ty, _ in params], sorted(ctx["notes"]))
    for name, why in sorted(bad.items()):
        if name in defs or name in read_logic(paths)[3]:
            if name not in logic and not why.startswith(name + ":"):
                out.append("/* not translated: %s */" % why)
    return out, (allc, allr, logic, bad)


def emit_logic_headers(structs):
    """src/kernels_logic_rtc.h (kernels.h's logic and the RTC macro) and
    src/contracts_rtc.h (sched_int.h's, on top of it): {path: text}, and
    what the contracts may call."""
    klines, kernel_known = emit_logic([KERNELS_H], (set(), set(), {}, {}), structs)
    kernel_logic = [
        "/*",
        " * kernels_logic_rtc.h - GENERATED by proofs/rtc/gen.py from the ACSL",
        " * definitions of src/kernels.h; do not edit (make check fails when it",
        " * is stale).  Its logic constants, predicates and logic functions as",
        " * C, and the RTC macro, for the run-time checks of src/kernels_rtc.h",
        " * and (through src/contracts_rtc.h) of the src/X_rtc.h headers",
        " * (QS_CONTRACT_CHECKS builds only).  proofs/README.md, \"Run-time checks\".",
        " */",
        "#ifndef QSCHED_KERNELS_LOGIC_RTC_H",
        "#define QSCHED_KERNELS_LOGIC_RTC_H",
        "#include <math.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include \"kernels.h\"",
        "",
        "/* A violated clause: FUNCTION requires|ensures CLAUSE, then abort. */",
        "static inline void rtc_violated(const char *fn, const char *kind,",
        "                                const char *clause)",
        "{",
        "    fprintf(stderr, \"qsched: contract violated: %s %s %s\\n\", fn, kind, clause);",
        "    abort();",
        "}",
        "#define RTC(fn, kind, clause, ok) \\",
        "    do { if (!(ok)) rtc_violated(fn, kind, clause); } while (0)",
        "",
    ] + klines + ["#endif"]
    slines, known = emit_logic(["src/sched_int.h"], kernel_known, structs)
    common = [
        "/*",
        " * contracts_rtc.h - GENERATED by proofs/rtc/gen.py from the ACSL",
        " * definitions of src/sched_int.h; do not edit (make check fails when",
        " * it is stale).  Its logic constants, predicates and logic functions",
        " * as C, on top of those of src/kernels.h (src/kernels_logic_rtc.h),",
        " * for the run-time checks of the src/X_rtc.h headers",
        " * (QS_CONTRACT_CHECKS builds only).  proofs/README.md, \"Run-time checks\".",
        " */",
        "#ifndef QSCHED_CONTRACTS_RTC_H",
        "#define QSCHED_CONTRACTS_RTC_H",
        "#include \"kernels_logic_rtc.h\"",
        "#include \"sched_int.h\"",
        "",
    ] + slines + ["#endif"]
    return {LOGIC_OUT: "\n".join(kernel_logic) + "\n",
            COMMON_OUT: "\n".join(common) + "\n"}, known


def parse_params(params):
    """{name: ty} and [name] of a C parameter list."""
    ptys, pnames = {}, []
    for p in params:
        pm = re.fullmatch(r"(.*?)(\**)\s*(\w+)", p)
        ptys[pm.group(3)] = decl_type(pm.group(1) + pm.group(2))
        pnames.append(pm.group(3))
    return ptys, pnames


def check_function(ret, name, params, text, known, structs, callee):
    """The body of the check of one contracted function: the lines between
    its `{` and `}` (notes, requires, saves of \\old, the call of callee,
    ensures, return), and its figures (name, clauses, checked, in part,
    not expressible, complete/disjoint checks)."""
    consts, rconsts, logic, bad = known
    ptys, pnames = parse_params(params)
    rty = None if ret == "void" else decl_type(ret)
    ctx = {"params": ptys, "structs": structs, "logic": logic, "result": rty,
           "consts": consts, "rconsts": rconsts, "olds": [],
           "notes": set(), "bad": bad}
    cls, other = contract_clauses(text)
    # \at(e, Pre) of \result: read after the call when the function
    # assigns nothing but scalars through out-parameters (*p, p an
    # integer pointer), so that no field e can read changes.
    assigned = [a.strip() for o in other if o.startswith("assigns ")
                for a in o[len("assigns "):].split(",")]
    ctx["frame_out_only"] = bool(assigned) and all(
        re.fullmatch(r"\*(\w+)", a) and ptys.get(a[1:]) == "ptr:int64_t"
        for a in assigned)
    behaviors = {}
    for _, _, _, assumes, behavior in cls:
        if behavior is not None:
            behaviors.setdefault(behavior, assumes)
    pre, post, notes = [], [], []
    checked = partial = skipped = nbeh = 0
    for kind, cname, expr, assumes, behavior in cls:
        label = cname if behavior is None else "%s.%s" % (behavior, cname)
        ctx["notes"] = set()
        nold = len(ctx["olds"])
        try:
            e = c_expr(expr, ctx)
            for a in reversed(assumes):
                # the assumes hold on entry: saved like \old
                p = Parser(" ".join(a.split()), ctx)
                p.in_old, p.derefs = 1, []
                av = p.parse()
                av = p.saved(av) if kind == "ensures" else av
                e = "(!%s || %s)" % (av, e)
        except Unsupported as why:
            del ctx["olds"][nold:]
            notes.append("    /* not checked at run time: %s %s (%s) */"
                         % (kind, label, why))
            skipped += 1
            continue
        if ctx["notes"]:
            partial += 1
            notes.append("    /* checked in part: %s %s: %s */"
                         % (kind, label, "; ".join(sorted(ctx["notes"]))))
        checked += 1
        stmt = "    RTC(\"%s\", \"%s\", \"%s\", %s);" % (name, kind, label, e)
        (pre if kind == "requires" else post).append(stmt)
    for o in other:
        if o in ("complete behaviors", "disjoint behaviors") and behaviors:
            # on entry: at least one (complete), at most one (disjoint)
            # behaviour's assumes hold
            ctx["notes"] = set()
            conj = []
            for b, assumes in behaviors.items():
                conj.append("(%s)" % " && ".join(
                    str(c_expr(a, ctx)) for a in assumes))
            if o.startswith("complete"):
                ok = " || ".join(conj)
            else:
                ok = "%s <= 1" % " + ".join("(%s != 0)" % c for c in conj)
            pre.append("    RTC(\"%s\", \"behaviors\", \"%s\", %s);"
                       % (name, o.split()[0], ok))
            nbeh += 1
            continue
        notes.append("    /* not checked at run time: %s (%s) */" % (
            o, "a frame condition, proved by WP" if o.startswith("assigns")
            else "a property of the contract, proved by WP"))
    lines = notes + pre
    for var, ty, derefs, expr in ctx["olds"]:
        if derefs:
            g = " && ".join("(%s) != NULL" % d for d in dict.fromkeys(derefs))
            zero = "NULL" if ty.startswith("ptr:") else ("0.0" if ty == "double" else "0")
            if ty.startswith("struct:"):
                raise Unsupported("guarded \\old of a struct")
            lines.append("    %s = (%s) ? %s : %s;" % (c_type(ty, var), g, expr, zero))
        else:
            lines.append("    %s = %s;" % (c_type(ty, var), expr))
    call = "%s(%s)" % (callee, ", ".join(pnames))
    if rty is None:
        lines.append("    %s;" % call)
    else:
        lines.append("    %s rtc_result = %s;" % (ret, call))
    lines += post
    if rty is not None:
        lines.append("    return rtc_result;")
    return lines, (name, checked + skipped, checked, partial, skipped, nbeh)


def contract_clauses(text):
    """(kind, name, expression, assumes, behaviour) of each requires and
    ensures, and the assigns and complete/disjoint lines."""
    out, other, assumes, behavior = [], [], None, None
    for stmt in strip_line_comments(text).split(";"):
        stmt = " ".join(stmt.split())
        m = re.match(r"behavior (\w+):\s*(.*)", stmt)
        if m:
            assumes, behavior, stmt = [], m.group(1), m.group(2)
        if stmt.startswith("assumes "):
            assumes.append(stmt[len("assumes "):])
            continue
        # `check ensures` (proved, not assumed by callers) is checked too
        m = re.fullmatch(r"(?:check )?(requires|ensures) (?:(\w+):)?\s*(.*)", stmt)
        if m:
            out.append((m.group(1), m.group(2) or "unnamed", m.group(3),
                        list(assumes) if assumes is not None else [], behavior))
        elif stmt.startswith("assigns ") or stmt.startswith("complete") or \
                stmt.startswith("disjoint"):
            other.append(stmt)
    return out, other


def totals(stats):
    tot = [sum(s[k] for s in stats) for k in (1, 2, 3, 4, 5)]
    return ("/* %d clauses: %d checked (%d of them in part, as noted), "
            "%d not expressible (listed above); %d complete/disjoint "
            "behaviors checked on entry. */" % tuple(tot))


def emit_kernels(known, structs):
    """src/kernels_rtc.h: the rename, then the checked kernels."""
    kernels = contracts(open(KERNELS_C).read())
    lines = [
        "/*",
        " * kernels_rtc.h - GENERATED by proofs/rtc/gen.py from the ACSL",
        " * contracts of src/kernels.c; do not edit (make check fails when it",
        " * is stale).  Included by src/kernels.c only under -DQS_CONTRACT_CHECKS",
        " * (the sanitizer build of make check, the fuzz builds and the model",
        " * checker's build): each contracted kernel checks its requires and",
        " * ensures at run time and aborts on a violation.  proofs/README.md,",
        " * \"Run-time checks\".",
        " */",
        "#ifndef QS_RTC_WRAPPERS",
        "/* First inclusion, before the kernels: rename them. */",
    ]
    for ret, name, params, _ in kernels:
        lines.append("#define %s %s_unchecked" % (name, name))
    for ret, name, params, _ in kernels:
        lines.append("%s %s_unchecked(%s);" % (ret, name, ", ".join(params)))
    lines += ["#else", "/* Second inclusion, after the kernels: the checked ones. */",
              "#include \"kernels_logic_rtc.h\""]
    for ret, name, params, _ in kernels:
        lines.append("#undef %s" % name)
    stats = []
    for ret, name, params, text in kernels:
        body, st = check_function(ret, name, params, text, known, structs,
                                  name + "_unchecked")
        lines.append("")
        lines.append("%s %s(%s)\n{" % (ret, name, ", ".join(params)))
        lines += body
        lines.append("}")
        stats.append(st)
    lines.append("#endif")
    lines.append(totals(stats))
    return "\n".join(lines) + "\n", stats


def emit_helper(src, contracts_file, out_name, known, structs):
    """src/X_rtc.h: rtc_check_F and the macro F(...) for each helper F."""
    guard = "QSCHED_%s" % re.sub(r"\W", "_", out_name[4:]).upper()
    lines = [
        "/*",
        " * %s - GENERATED by proofs/rtc/gen.py from the ACSL contracts" % out_name[4:],
        " * of %s; do not edit (make check fails when it is stale)." % contracts_file,
        " * Included by %s only under -DQS_CONTRACT_CHECKS (the sanitizer" % src,
        " * build of make check, the fuzz builds and the model checker's build),",
        " * after its includes and before any call: each contracted helper F is",
        " * declared, rtc_check_F checks its requires, calls (F), checks its",
        " * ensures (a behaviour's when its assumes hold), and the macro F(...)",
        " * sends every later call through rtc_check_F.  The definition is",
        " * written `static T (F)(...)`, so the macro does not touch it.",
        " * proofs/README.md, \"Run-time checks\".",
        " */",
        "#ifndef %s" % guard,
        "#define %s" % guard,
        "#include \"contracts_rtc.h\"",
    ]
    stats = []
    for ret, name, params, text in helper_contracts(contracts_file):
        body, st = check_function(ret, name, params, text, known, structs,
                                  "(%s)" % name)
        sig = ", ".join(params)
        lines.append("")
        lines.append("static %s (%s)(%s);" % (ret, name, sig))
        lines.append("static inline %s rtc_check_%s(%s)\n{" % (ret, name, sig))
        lines += body
        lines.append("}")
        lines.append("#define %s(...) rtc_check_%s(__VA_ARGS__)" % (name, name))
        stats.append(st)
    lines.append("")
    lines.append(totals(stats))
    lines.append("#endif")
    return "\n".join(lines) + "\n", stats


PROTO = re.compile(r"\s*static\s+((?:const\s+)?[A-Za-z_]\w*(?:\s*\*)?)\s*\(?(\w+)\)?\s*"
                   r"\(([^)]*)\)\s*([;{])", re.S)


def helper_contracts(path):
    """(return type, name, [param decl], contract text) of each contracted
    static function of path (a contracts header or a core file)."""
    text = open(path).read()
    out = []
    for m in re.finditer(r"^/\*@(.*?)\*/", text, re.S | re.M):
        s = PROTO.match(text, m.end())
        if not s:
            continue
        params = [" ".join(p.split()) for p in s.group(3).split(",")]
        out.append((" ".join(s.group(1).split()), s.group(2), params, m.group(1)))
    return out


def every_call_checked(src, out, names):
    """The mechanism's two premises, checked on the source: src includes
    its generated header (under QS_CONTRACT_CHECKS) before any call of a
    contracted helper, and defines each one as `static T (F)(...)`.  A
    call before the #include would run unchecked, silently: an error."""
    text = open(src).read()
    inc = '#include "%s"' % out[4:]
    pos = text.find(inc)
    if pos < 0 or "#ifdef QS_CONTRACT_CHECKS" not in text[max(0, pos - 200):pos]:
        raise SystemExit("%s: does not include %s under #ifdef QS_CONTRACT_CHECKS"
                         % (src, out[4:]))
    before = re.sub(r"//[^\n]*", "", strip_c_comments(text[:pos]))
    for n in names:
        if re.search(r"\b%s\s*\(" % n, before):
            raise SystemExit("%s: %s is called before #include \"%s\": that call "
                             "would not be checked" % (src, n, out[4:]))
        if not re.search(r"^static [^\n;]*\(%s\)\(" % n, text, re.M):
            raise SystemExit("%s: %s must be defined as `static T (%s)(...)`"
                             % (src, n, n))


def generate():
    """{path: text} of every generated header, and the per-function
    figures (file, name, clauses, checked, in part, not expressible)."""
    structs = read_structs(STRUCT_SOURCES)
    outs, known = emit_logic_headers(structs)
    text, stats = emit_kernels(known, structs)
    outs[OUT] = text
    figures = [(KERNELS_C,) + s[:5] for s in stats]
    for src, cfile, out in HELPERS:
        t, stats = emit_helper(src, cfile, out, known, structs)
        every_call_checked(src, out, [s[0] for s in stats])
        outs[out] = t
        figures += [(src,) + s[:5] for s in stats]
    return outs, figures


def main():
    outs, figures = generate()
    k = [f for f in figures if f[0] == KERNELS_C]
    h = [f for f in figures if f[0] != KERNELS_C]
    summary = ("kernels: %d clauses checked (%d in part), %d not expressible; "
               "helpers: %d clauses checked (%d in part), %d not expressible"
               % (sum(f[3] for f in k), sum(f[4] for f in k), sum(f[5] for f in k),
                  sum(f[3] for f in h), sum(f[4] for f in h), sum(f[5] for f in h)))
    if len(sys.argv) > 1 and sys.argv[1] == "--figures":
        for f in figures:
            print("%s %s %d %d %d %d" % f)
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        stale = []
        for path, want in sorted(outs.items()):
            try:
                cur = open(path).read()
            except OSError:
                cur = ""
            if cur != want:
                stale.append(path)
        if stale:
            print("FAIL rtc: %s stale: run python3 proofs/rtc/gen.py"
                  % ", ".join(stale))
            return 1
        print("ok rtc: %d generated headers up to date (%s)" % (len(outs), summary))
        return 0
    for path, want in sorted(outs.items()):
        with open(path, "w") as f:
            f.write(want)
    print("rtc: wrote %s (%s)" % (", ".join(sorted(outs)), summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
