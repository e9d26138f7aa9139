/*
 * test_transport_find_len.c - a group's transport found by its length and
 * one word (src/sched.c qsi_transport_find_len; issue 16: the first read
 * of each group found its transport with strcmp).
 *
 * Owns: the promise of sched_int.h - given len = strlen(name) and readable
 * bytes after the name, the answer is the transport whose name is exactly
 * those bytes, or NULL; the same as qsi_transport_find's strcmp walk and
 * as a reference made here with strcmp over the names created.  The
 * names: every prefix of "abcdefghij" (lengths 1 to 10: both sides of the
 * 8-byte word), a variant of each differing in its last byte, and one
 * differing in its first; each asked for with the bytes after its NUL
 * set to every pattern that could leak into a careless mask (NUL, the
 * next letter, 0xff), on a scheduler holding some of the names (so that
 * a prefix or an extension of an asked name exists without the name
 * itself), then on one holding more than 8 transports, where the map
 * answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "check.h"

#define NNAMES 31
#define NAMEMAX 12

static char names[NNAMES][NAMEMAX];
static int nnames;

/* the reference: the transport created under exactly this name */
static qs_transport *ref_find(qs_transport **made, int nmade,
                              const char *name)
{
    int i;
    for (i = 0; i < nmade; i++)
        if (strcmp(made[i]->name, name) == 0)
            return made[i];
    return NULL;
}

/* Every name asked for on a scheduler holding names[i] for the i that
 * `holds` selects; counts the wrong answers. */
static int ask_all(int (*holds)(int), int *asked, int *found, int *many)
{
    char err[256];
    qs_params *p = qs_params_new();
    qs_sched *s = qs_sched_new(p, QS_PROFILE_POSTFIX, NULL, NULL, err,
                               sizeof err);
    qs_transport *made[NNAMES];
    int i, nmade = 0, wrong = 0;
    static const unsigned char after[] = {0, 'x', 0xff};
    size_t a;
    for (i = 0; i < nnames; i++)
        if (holds(i))
            made[nmade++] = qsi_transport_obtain(s, names[i]);
    *many = s->ntransports > 8;
    for (i = 0; i < nnames; i++) {
        size_t len = strlen(names[i]);
        for (a = 0; a < sizeof after; a++) {
            char buf[NAMEMAX + 16];
            qs_transport *want = ref_find(made, nmade, names[i]);
            memset(buf, after[a], sizeof buf);
            memcpy(buf, names[i], len + 1);
            if (after[a]) /* garbage after the NUL too */
                memset(buf + len + 1, after[a], sizeof buf - len - 1);
            (*asked)++;
            *found += want != NULL;
            wrong += qsi_transport_find_len(s, buf, len) != want;
            wrong += qsi_transport_find(s, buf) != want;
        }
    }
    qs_sched_free(s);
    qs_params_free(p);
    return wrong;
}

static int even(int i) { return i % 2 == 0; }
static int thirds(int i) { return i % 3 != 1; }
static int few(int i) { return i == 3 || i == 8 || i == 20; }
/* the base names of lengths 1..8: every prefix and extension held */
static int eight(int i) { return i < 24 && i % 3 == 0; }

int main(void)
{
    int len, asked = 0, found = 0, many, wrong;
    const char *base = "abcdefghij";
    for (len = 1; len <= 10; len++) {
        memcpy(names[nnames], base, (size_t)len);
        nnames++;
        memcpy(names[nnames], base, (size_t)len);
        names[nnames][len - 1] = 'Z';
        nnames++;
        memcpy(names[nnames], base, (size_t)len);
        names[nnames][0] = 'q';
        nnames++;
    }
    memcpy(names[nnames++], "smtp", 4); /* (NNAMES = 31) */
    wrong = ask_all(few, &asked, &found, &many);
    CHECK("transport-find-len/few-walk", !many);
    CHECK_EQ_LL("transport-find-len/few", wrong, 0);
    wrong = ask_all(eight, &asked, &found, &many);
    CHECK("transport-find-len/eight-walk", !many);
    CHECK_EQ_LL("transport-find-len/eight", wrong, 0);
    wrong = ask_all(even, &asked, &found, &many);
    CHECK("transport-find-len/even-map", many);
    CHECK_EQ_LL("transport-find-len/even", wrong, 0);
    wrong = ask_all(thirds, &asked, &found, &many);
    CHECK_EQ_LL("transport-find-len/thirds", wrong, 0);
    printf("# %d names, %d look-ups, %d of them of a transport\n", nnames,
           asked, found);
    CHECK("transport-find-len/asked",
          nnames == NNAMES && asked == 4 * 3 * NNAMES && found > 60 &&
              found < asked - 60);
    return check_failures ? 1 : 0;
}
