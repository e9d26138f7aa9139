/*
 * html.h - the timeline viewer, around the core (src/html.c): the data of
 * `qsched --format view-json` and the page of `qsched --format html`.
 */
#ifndef QSCHED_HTML_H
#define QSCHED_HTML_H

#include <stdio.h>

/* Replays the stream in (named fname in diagnostics) and writes the
 * viewer's data (page = 0) or the self-contained page (page = 1) to out.
 * profile (or NULL) as --profile; check: run the invariant checker after
 * every event.  Returns 0, 2 on bad input (FILE:LINE: reason on errf; the
 * output then holds the valid prefix and the error), 3 on a broken
 * invariant. */
int qs_html_run(FILE *in, const char *fname, const char *profile, int check,
                int page, FILE *out, FILE *errf);

/* The page template and its sources (src/viewer/), embedded at build time
 * by src/viewer/embed.sh.  The template's slots are @@TITLE@@, @@CSS@@,
 * @@JS@@ and @@DATA@@. */
extern const char qs_viewer_page_html[];
extern const char qs_viewer_css[];
extern const char qs_viewer_js[];

#endif
