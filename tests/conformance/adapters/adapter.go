// adapter.go - a conformance adapter in Go: the worked example of
// docs/implementers.md, section 2 ("one process per vector, the file path
// as argument").
//
//	go build -o qsched-go-adapter adapter.go
//	qsched conformance --input path --impl ./qsched-go-adapter
//
// It reads the event stream (spec/events.md) from the file named by its
// last argument, drives a scheduler, and prints the default-level trace
// (spec/trace.md) on stdout; at the first invalid line it prints
// "FILE:LINE: reason" on stderr and exits with status 2, having printed
// the trace of the lines before (S-EV-10).
//
// The scheduler behind it is qsched's C library through cgo, found with
// pkg-config (`#cgo pkg-config: qsched`, the qsched.pc that `make install`
// writes), so that this file is a complete example that passes the suite.
// To test your own scheduler, keep the parsing (the stream type) and
// replace the scheduler type: its five methods are the whole interface,
// and each decision becomes one trace line.  Only Go's standard library.
package main

/*
#cgo pkg-config: qsched
#include <stdlib.h>
#include <string.h>
#include <qsched.h>

// The trace sink collects the default-level lines in a growing buffer
// that Go drains after every call (a C callback into Go would need a
// second file); trace_oom records a failed allocation.  Not static: Go
// reads them.
char *trace_buf;
size_t trace_len, trace_cap;
int trace_oom;

static void trace_sink(void *ctx, const qs_trace *rec)
{
	char line[1024];
	size_t n = qs_trace_text(rec, 0, line, sizeof line);
	(void)ctx;
	if (!n)
		return;
	if (trace_len + n + 1 > trace_cap) {
		size_t cap = trace_cap ? 2 * trace_cap : 65536;
		char *b;
		while (cap < trace_len + n + 1)
			cap *= 2;
		if (!(b = realloc(trace_buf, cap))) {
			trace_oom = 1;
			return;
		}
		trace_buf = b;
		trace_cap = cap;
	}
	memcpy(trace_buf + trace_len, line, n);
	trace_len += n;
	trace_buf[trace_len++] = '\n';
}

static qs_sched *new_sched(qs_params *p, int profile, char *err, size_t n)
{
	return qs_sched_new(p, (enum qs_profile)profile, trace_sink, NULL, err, n);
}
*/
import "C"

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unsafe"
)

// ---- the scheduler: qsched's C API (src/qsched.h) through cgo ----

type scheduler struct {
	s   *C.qs_sched
	err *C.char
	out *bufio.Writer
}

const errLen = 512

var outcomes = map[string]C.enum_qs_outcome{"ok": C.QS_DONE_OK, "fail": C.QS_DONE_FAIL, "defer": C.QS_DONE_DEFER}

func newScheduler(params [][2]string, profile string, out *bufio.Writer) (*scheduler, error) {
	sc := &scheduler{err: (*C.char)(C.malloc(errLen)), out: out}
	p := C.qs_params_new()
	defer C.qs_params_free(p)
	for _, kv := range params {
		n, v := C.CString(kv[0]), C.CString(kv[1])
		rc := C.qs_params_set(p, n, v, sc.err, errLen)
		C.free(unsafe.Pointer(n))
		C.free(unsafe.Pointer(v))
		if rc < 0 {
			return nil, sc.fail()
		}
	}
	prof := 0
	if profile == "postfix" {
		prof = 1
	}
	if sc.s = C.new_sched(p, C.int(prof), sc.err, errLen); sc.s == nil {
		return nil, sc.fail()
	}
	return sc, nil
}

func (sc *scheduler) fail() error { return errors.New(C.GoString(sc.err)) }

// check drains the trace lines of the last call, then turns its status
// into an error.
func (sc *scheduler) check(rc C.int) error {
	if C.trace_oom != 0 {
		return errors.New("out of memory")
	}
	if C.trace_len > 0 {
		sc.out.Write(C.GoBytes(unsafe.Pointer(C.trace_buf), C.int(C.trace_len)))
		C.trace_len = 0
	}
	if rc < 0 {
		return sc.fail()
	}
	return nil
}

func (sc *scheduler) advance(t int64) error {
	return sc.check(C.qs_advance(sc.s, C.int64_t(t), sc.err, errLen))
}

type group struct {
	transport, local, nexthop string
	count                     int64
}

func (sc *scheduler) arrive(msg string, groups []group) error {
	arr := (*[1 << 20]C.qs_group)(C.malloc(C.size_t(len(groups)) * C.sizeof_qs_group))[:len(groups):len(groups)]
	var strs []*C.char
	cstr := func(s string) *C.char { c := C.CString(s); strs = append(strs, c); return c }
	for i, g := range groups {
		arr[i].transport, arr[i].nexthop, arr[i].count = cstr(g.transport), cstr(g.nexthop), C.int64_t(g.count)
		arr[i].local = nil
		if g.local != "" {
			arr[i].local = cstr(g.local)
		}
	}
	rc := C.qs_arrive(sc.s, cstr(msg), &arr[0], C.size_t(len(groups)), sc.err, errLen)
	for _, c := range strs {
		C.free(unsafe.Pointer(c))
	}
	C.free(unsafe.Pointer(&arr[0]))
	return sc.check(rc)
}

func (sc *scheduler) selectOne(transport string) error {
	var d C.qs_delivery
	var t *C.char
	if transport != "" {
		t = C.CString(transport)
		defer C.free(unsafe.Pointer(t))
	}
	return sc.check(C.qs_select(sc.s, t, &d, sc.err, errLen))
}

func (sc *scheduler) done(handle int64, outcome string) error {
	return sc.check(C.qs_done(sc.s, C.int64_t(handle), outcomes[outcome], sc.err, errLen))
}

// ---- the adapter: the event language (spec/events.md) ----

var (
	nameRe      = `[A-Za-z0-9._+-]+`
	transportRe = `[a-z0-9-]{1,64}`
	groupRe     = regexp.MustCompile(`^(` + transportRe + `):(?:(` + nameRe + `)@)?(` + nameRe + `)(?:\*([0-9]+))?$`)
	msgRe       = regexp.MustCompile(`^` + nameRe + `$`)
	onlyTrRe    = regexp.MustCompile(`^` + transportRe + `$`)
	handleRe    = regexp.MustCompile(`^D[0-9]+$`)
)

const lineMax, countMax, groupsMax = 1048576, 1000000000, 100000

type stream struct {
	params  [][2]string
	profile string
	s       *scheduler
	out     *bufio.Writer
}

func (st *stream) event() (*scheduler, error) {
	if st.s == nil { // the first event freezes the settings (S-EV-2)
		s, err := newScheduler(st.params, st.profile, st.out)
		if err != nil {
			return nil, err
		}
		st.s = s
	}
	return st.s, nil
}

func (st *stream) line(text string) error {
	if len(text) > lineMax {
		return errors.New("line too long")
	}
	if strings.IndexByte(text, 0) >= 0 {
		return errors.New("NUL byte in line")
	}
	text = strings.TrimSuffix(text, "\r")
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	words := strings.Fields(text)
	if eq := strings.IndexByte(text, '='); eq >= 0 {
		verb := len(words) > 0 && strings.Contains(" arrive at select done profile ", " "+words[0]+" ")
		before := strings.Fields(text[:eq])
		if !verb || len(before) < 2 {
			if st.s != nil {
				return errors.New("parameters must come before the first event")
			}
			name, value := strings.TrimSpace(text[:eq]), strings.TrimSpace(text[eq+1:])
			if name == "" || strings.ContainsAny(name, " \t") || value == "" {
				return errors.New("bad parameter")
			}
			st.params = append(st.params, [2]string{name, value})
			return nil
		}
	}
	if len(words) == 0 {
		return nil
	}
	verb, args := words[0], words[1:]
	if verb != "arrive" && len(args) > 2 {
		return errors.New("too many words")
	}
	switch verb {
	case "arrive":
		if len(args) < 2 || !msgRe.MatchString(args[0]) || len(args[0]) > 64 {
			return errors.New("usage: arrive MSGID GROUP...")
		}
		if len(args)-1 > groupsMax {
			return errors.New("too many recipient groups")
		}
		var groups []group
		var total int64
		for _, g := range args[1:] {
			m := groupRe.FindStringSubmatch(g)
			if m == nil || len(m[2]) > 64 || len(m[3]) > 200 {
				return fmt.Errorf("bad recipient group %q", g)
			}
			count := int64(1)
			if m[4] != "" {
				c, err := strconv.ParseInt(m[4], 10, 64)
				if err != nil || c < 1 || c > countMax {
					return errors.New("bad recipient count")
				}
				count = c
			}
			if total += count; total > countMax {
				return errors.New("too many recipients")
			}
			groups = append(groups, group{m[1], m[2], m[3], count})
		}
		s, err := st.event()
		if err != nil {
			return err
		}
		return s.arrive(args[0], groups)
	case "profile":
		if st.s != nil {
			return errors.New("profile must come before the first event")
		}
		if len(args) != 1 || (args[0] != "document" && args[0] != "postfix") {
			return errors.New("usage: profile document|postfix")
		}
		st.profile = args[0]
		return nil
	case "at":
		var t int64
		var err error
		if len(args) == 1 && strings.Trim(args[0], "0123456789") == "" {
			t, err = strconv.ParseInt(args[0], 10, 64)
		}
		if len(args) != 1 || err != nil || t < 0 || t > 1<<33 || args[0] == "" {
			return errors.New("usage: at T")
		}
		s, err := st.event()
		if err != nil {
			return err
		}
		return s.advance(t)
	case "select":
		if len(args) > 1 || (len(args) == 1 && !onlyTrRe.MatchString(args[0])) {
			return errors.New("usage: select [TRANSPORT]")
		}
		s, err := st.event()
		if err != nil {
			return err
		}
		if len(args) == 1 {
			return s.selectOne(args[0])
		}
		return s.selectOne("")
	case "done":
		if len(args) != 2 || !handleRe.MatchString(args[0]) {
			return errors.New("usage: done D<n> ok|fail|defer")
		}
		h, err := strconv.ParseInt(args[0][1:], 10, 64)
		if _, known := outcomes[args[1]]; err != nil || h < 1 || h > 1<<62 || !known {
			return errors.New("usage: done D<n> ok|fail|defer")
		}
		s, err := st.event()
		if err != nil {
			return err
		}
		return s.done(h, args[1])
	}
	return errors.New("unknown verb: " + verb)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: adapter EVENTS-FILE")
		os.Exit(2)
	}
	path := os.Args[len(os.Args)-1]
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s:1: %v\n", path, err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	st := &stream{profile: "document", out: out}
	in := bufio.NewReader(f)
	lineno := 0
	fail := func(err error) {
		out.Flush() // the trace so far comes before the message
		fmt.Fprintf(os.Stderr, "%s:%d: %v\n", path, lineno, err)
		os.Exit(2)
	}
	for {
		text, rerr := in.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			lineno++
			fail(rerr) // a read error is not the end of the stream
		}
		if rerr != nil && text == "" {
			break
		}
		lineno++
		if err := st.line(strings.TrimSuffix(text, "\n")); err != nil {
			fail(err)
		}
		if rerr != nil {
			break
		}
	}
	if _, err := st.event(); err != nil { // an empty stream is valid, its settings checked
		fail(err)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot write the trace:", err)
		os.Exit(4)
	}
}
