/*
 * reading_search.h - which named readings explain a divergence
 * (`qsched verify --readings`, the conformance runner).
 *
 * Owns: replaying one stream under alternative readings (spec/readings.md)
 * and comparing each replay's default-level trace with another
 * implementation's, to tell an implementer which sentences of the document
 * they read differently from qsched ("your trace matches qsched with
 * idle_window=keep and score_wait_plus_one=no").  Around the core, like
 * verify.c: it drives the core through the event parser.
 */
#ifndef QSCHED_READING_SEARCH_H
#define QSCHED_READING_SEARCH_H

#include <stddef.h>
#include <stdio.h>

/* How far the search goes: combinations of at most this many readings,
 * and at most this many replays of the stream in all. */
#define QS_RSEARCH_MAX_SIZE 3
#define QS_RSEARCH_MAX_RUNS 2000

/* Searches single readings, then pairs, then triples (the triples among
 * the readings that change this stream's trace by themselves) for
 * combinations under which qsched's default-level trace of the stream
 * EVENTS equals `other` (n lines, the other implementation's default-level
 * lines, in order).  Stops at the smallest size that has a match and
 * reports every match of that size; with no match, the combination under
 * which the two traces agree longest.  Writes the finding to out, each
 * line prefixed by indent.  Returns 1 if a combination matches, 0 if
 * none does (or the traces agree without any), -1 if EVENTS cannot be
 * read (message on stderr).  `declared` ("NAME=WORD" each, ndeclared of
 * them) are readings the other implementation says it follows: qsched
 * runs with them, and the search looks for readings beyond them. */
int qs_reading_search(const char *events, char *const *declared,
                      size_t ndeclared, char *const *other, size_t n,
                      FILE *out, const char *indent);

/* Parses "NAME=WORD" (NAME as in qsched -d, with or without
 * qsched_reading_) into the parameter name and word; 0, or -1 with a
 * message on stderr. */
int qs_reading_parse(const char *text, char *param, size_t plen,
                     const char **word);

/* qsched's default-level trace of EVENTS with the given readings in force
 * ("NAME=WORD" each, NAME as in qsched -d without qsched_reading_).
 * *lines (n_lines of them, each malloc'ed) is freed with
 * qs_reading_lines_free.  *bad_line is the stream line of an input error
 * (0 if none).  Returns 0, 2 if EVENTS cannot be read or a reading is
 * unknown (message on stderr). */
int qs_reading_trace(const char *events, char *const *readings,
                     size_t nreadings, char ***lines, size_t *n_lines,
                     long *bad_line);
void qs_reading_lines_free(char **lines, size_t n);

#endif
