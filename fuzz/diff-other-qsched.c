/*
 * diff-other-qsched.c - the "other implementation" adapter of the example
 * differential harness (fuzz/diff-harness.c): a second copy of qsched,
 * built from tests/conformance/broken/ (a refund bug) with every global
 * symbol renamed other_* so that it links next to the real one.
 *
 * Owns: nothing but the example.  To test your own C scheduler, copy this
 * file, keep the three functions and the `other_impl` table, and make them
 * call your API instead: create a scheduler, turn each stream line into a
 * call, and report each default-level trace line (deliver, idle, window,
 * dead, revive, defer: spec/trace.md) through emit.  See diff-README.md.
 */
#include <stdlib.h>
#include <string.h>

/* the renamed copy: every qs_* symbol of its objects is other_qs_* */
#define qs_stream_new other_qs_stream_new
#define qs_stream_line other_qs_stream_line
#define qs_stream_free other_qs_stream_free
#define qs_trace_format other_qs_trace_format
#include "qsched.h"
#include "events.h"
#include "trace.h"

typedef void (*emit_fn)(void *ctx, const char *trace_line);

struct impl {
    const char *name;
    void *(*create)(emit_fn emit, void *ctx);
    int (*line)(void *self, const char *line);
    void (*destroy)(void *self);
};

typedef struct other_side {
    qs_stream *st;
    emit_fn emit;
    void *ctx;
} other_side;

static void other_sink(void *vp, const qs_trace *r)
{
    other_side *o = vp;
    char buf[1024];
    if (qs_trace_format(r, 0, buf, sizeof buf) > 0)
        o->emit(o->ctx, buf);
}

static void *other_create(emit_fn emit, void *ctx)
{
    other_side *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->emit = emit;
    o->ctx = ctx;
    o->st = qs_stream_new("stream", other_sink, o);
    if (!o->st) {
        free(o);
        return NULL;
    }
    return o;
}

static int other_line(void *self, const char *line)
{
    other_side *o = self;
    char err[512];
    return qs_stream_line(o->st, line, strlen(line), err, sizeof err);
}

static void other_destroy(void *self)
{
    other_side *o = self;
    qs_stream_free(o->st);
    free(o);
}

const struct impl other_impl = {"broken-qsched", other_create, other_line,
                                other_destroy};
