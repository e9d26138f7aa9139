#!/usr/bin/env python3
# adapter.py - a conformance adapter in Python: the worked example of
# docs/implementers.md, section 2 ("stream on stdin, trace on stdout").
#
#   qsched conformance --impl "python3 adapter.py"
#
# It reads the event language (spec/events.md) on stdin, drives a
# scheduler, and prints the default-level trace (spec/trace.md) on stdout;
# at the first invalid line it prints "-:LINE: reason" on stderr and exits
# with status 2, having printed the trace of the lines before (S-EV-10).
#
# The scheduler behind it is qsched's own C library, libqsched.so, through
# ctypes (set QSCHED_LIB to its path if the loader cannot find it), so that
# this file is a complete example that passes the whole suite.  To test
# your own scheduler, keep the parsing (Stream) and replace the class
# Scheduler: its five methods are the whole interface, and it prints one
# trace line per decision.  Only Python's standard library is used.
import ctypes
import ctypes.util
import os
import re
import sys

# ---- the scheduler: qsched's C API (src/qsched.h) through ctypes ----------


class Trace(ctypes.Structure):  # struct qs_trace
    _fields_ = [("kind", ctypes.c_int), ("time", ctypes.c_int64),
                ("handle", ctypes.c_int64), ("msg", ctypes.c_char_p),
                ("msg2", ctypes.c_char_p), ("transport", ctypes.c_char_p),
                ("dest", ctypes.c_char_p), ("n", ctypes.c_int64)] + \
               [(f, ctypes.c_int64) for f in "abcdef"]


class Group(ctypes.Structure):  # struct qs_group
    _fields_ = [("transport", ctypes.c_char_p), ("local", ctypes.c_char_p),
                ("nexthop", ctypes.c_char_p), ("count", ctypes.c_int64)]


class Delivery(ctypes.Structure):  # struct qs_delivery
    _fields_ = [("handle", ctypes.c_int64), ("msg", ctypes.c_char_p),
                ("transport", ctypes.c_char_p), ("dest", ctypes.c_char_p),
                ("nrcpt", ctypes.c_int64)]


SINK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(Trace))


def load_library():
    name = (os.environ.get("QSCHED_LIB") or ctypes.util.find_library("qsched")
            or "libqsched.so.1")
    lib = ctypes.CDLL(name)
    P, C, S, I64 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int64
    sig = {
        "qs_params_new": (P, []),
        "qs_params_free": (None, [P]),
        "qs_params_set": (ctypes.c_int, [P, C, C, C, S]),
        "qs_sched_new": (P, [P, ctypes.c_int, SINK, P, C, S]),
        "qs_sched_free": (None, [P]),
        "qs_advance": (ctypes.c_int, [P, I64, C, S]),
        "qs_arrive": (ctypes.c_int, [P, C, ctypes.POINTER(Group), S, C, S]),
        "qs_select": (ctypes.c_int, [P, C, ctypes.POINTER(Delivery), C, S]),
        "qs_done": (ctypes.c_int, [P, I64, ctypes.c_int, C, S]),
        "qs_trace_text": (S, [ctypes.POINTER(Trace), ctypes.c_int, C, S]),
    }
    for fn, (res, args) in sig.items():
        f = getattr(lib, fn)
        f.restype, f.argtypes = res, args
    return lib


class InputError(Exception):
    pass


class Scheduler:
    """The scheduler under test.  Each method raises InputError (with a
    reason) if the event is impossible in the current state; each decision
    is printed as one trace line, in order, by the sink."""

    OUTCOMES = {"ok": 0, "fail": 1, "defer": 2}

    def __init__(self, params, profile, out):
        self.lib = load_library()
        self.out = out
        self.err = ctypes.create_string_buffer(512)
        self.line = ctypes.create_string_buffer(1024)
        p = self.lib.qs_params_new()
        try:
            for name, value in params:
                self.check(self.lib.qs_params_set(p, name.encode(), value.encode(),
                                                  self.err, 512))
            self.sink = SINK(self.trace)  # kept alive as long as the scheduler
            self.s = self.lib.qs_sched_new(p, 1 if profile == "postfix" else 0,
                                           self.sink, None, self.err, 512)
            if not self.s:
                raise InputError(self.err.value.decode())
        finally:
            self.lib.qs_params_free(p)

    def check(self, rc):
        if rc < 0:
            raise InputError(self.err.value.decode())

    def trace(self, _ctx, rec):
        n = self.lib.qs_trace_text(rec, 0, self.line, 1024)
        if n:
            self.out.write(self.line.value.decode() + "\n")

    def advance(self, t):
        self.check(self.lib.qs_advance(self.s, t, self.err, 512))

    def arrive(self, msgid, groups):
        arr = (Group * len(groups))()
        for i, (transport, local, nexthop, count) in enumerate(groups):
            arr[i] = Group(transport.encode(), local.encode() if local else None,
                           nexthop.encode(), count)
        self.check(self.lib.qs_arrive(self.s, msgid.encode(), arr, len(groups),
                                      self.err, 512))

    def select(self, transport):
        d = Delivery()
        self.check(self.lib.qs_select(self.s, transport.encode() if transport
                                      else None, ctypes.byref(d), self.err, 512))

    def done(self, handle, outcome):
        self.check(self.lib.qs_done(self.s, handle, self.OUTCOMES[outcome],
                                    self.err, 512))


# ---- the adapter: the event language (spec/events.md) ---------------------

NAME = r"[A-Za-z0-9._+-]+"
TRANSPORT = r"[a-z0-9-]{1,64}"
GROUP = re.compile(r"(%s):(?:(%s)@)?(%s)(?:\*([0-9]+))?$" % (TRANSPORT, NAME, NAME))
LINE_MAX, COUNT_MAX, GROUPS_MAX = 1048576, 10**9, 100000


class Stream:
    """Settings until the first event, then the scheduler; one method per
    line.  Raises InputError for an invalid line."""

    def __init__(self, out):
        self.out, self.params, self.profile, self.s = out, [], "document", None

    def event(self):
        if self.s is None:  # the first event freezes the settings (S-EV-2)
            self.s = Scheduler(self.params, self.profile, self.out)
        return self.s

    def line(self, raw):
        if len(raw) > LINE_MAX:
            raise InputError("line too long")
        if b"\0" in raw:
            raise InputError("NUL byte in line")
        text = raw.decode("latin-1")
        if text.endswith("\r"):
            text = text[:-1]
        text = text.split("#", 1)[0]
        words = text.split()
        verbs = ("arrive", "at", "select", "done", "profile")
        if "=" in text and not (words and words[0] in verbs
                                and "=" not in words[0]
                                and text.split("=", 1)[0].split()[1:]):
            if self.s is not None:
                raise InputError("parameters must come before the first event")
            name, value = (x.strip() for x in text.split("=", 1))
            if not name or re.search(r"\s", name) or not value:
                raise InputError("bad parameter")
            self.params.append((name, value))
            return
        if not words:
            return
        verb, args = words[0], words[1:]
        if verb == "arrive":
            if len(args) < 2 or not re.fullmatch(NAME, args[0]) or len(args[0]) > 64:
                raise InputError("usage: arrive MSGID GROUP...")
            if len(args) - 1 > GROUPS_MAX:
                raise InputError("too many recipient groups")
            groups, total = [], 0
            for g in args[1:]:
                m = GROUP.match(g)
                if not m or (m.group(2) and len(m.group(2)) > 64) or len(m.group(3)) > 200:
                    raise InputError("bad recipient group %r" % g)
                count = int(m.group(4)) if m.group(4) is not None else 1
                if not 1 <= count <= COUNT_MAX:
                    raise InputError("bad recipient count")
                total += count
                if total > COUNT_MAX:
                    raise InputError("too many recipients")
                groups.append((m.group(1), m.group(2), m.group(3), count))
            self.event().arrive(args[0], groups)
        elif len(args) > 2:
            raise InputError("too many words")
        elif verb == "profile":
            if self.s is not None:
                raise InputError("profile must come before the first event")
            if args not in (["document"], ["postfix"]):
                raise InputError("usage: profile document|postfix")
            self.profile = args[0]
        elif verb == "at":
            if len(args) != 1 or not args[0].isdigit() or int(args[0]) > 2**33:
                raise InputError("usage: at T")
            self.event().advance(int(args[0]))
        elif verb == "select":
            if len(args) > 1 or (args and not re.fullmatch(TRANSPORT, args[0])):
                raise InputError("usage: select [TRANSPORT]")
            self.event().select(args[0] if args else None)
        elif verb == "done":
            if (len(args) != 2 or not re.fullmatch(r"D[0-9]+", args[0])
                    or not 1 <= int(args[0][1:]) <= 2**62
                    or args[1] not in Scheduler.OUTCOMES):
                raise InputError("usage: done D<n> ok|fail|defer")
            self.event().done(int(args[0][1:]), args[1])
        else:
            raise InputError("unknown verb: " + verb)


def main():
    out = sys.stdout
    stream = Stream(out)
    lineno = 0
    try:
        for lineno, raw in enumerate(sys.stdin.buffer, 1):
            stream.line(raw[:-1] if raw.endswith(b"\n") else raw)
        lineno += 1
        stream.event()  # an empty stream is valid, its settings checked
    except InputError as e:
        out.flush()  # the trace so far comes before the message
        sys.stderr.write("-:%d: %s\n" % (lineno, e))
        return 2
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
