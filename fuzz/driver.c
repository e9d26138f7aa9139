/*
 * fuzz/driver.c - a plain main() for the fuzz harnesses, without any
 * fuzzing engine.
 *
 * Owns: running LLVMFuzzerTestOneInput once per input file, so that the
 * saved corpora and past crash inputs replay as regression tests under a
 * plain compiler (gcc or clang) and under ASan+UBSan (fuzz/replay.sh),
 * and so that one input can be examined in a debugger.
 *   usage: DRIVER [FILE|DIR]...      (a directory: every regular file in
 *                                      it, sorted by name, dotfiles and
 *                                      README* skipped)
 * Each input is copied into a buffer of exactly its size, so the
 * sanitizers see any read past its end.  Prints "ran N inputs" on stderr.
 * A finding aborts the process: the caller knows the set failed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long inputs;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;
    uint8_t chunk[65536];
    if (!f) {
        fprintf(stderr, "driver: cannot open %s\n", path);
        return -1;
    }
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            uint8_t *b;
            cap = (len + n) * 2;
            b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = b;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    {
        /* exact-size copy: a read past the end is a sanitizer report */
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact) {
            free(buf);
            return -1;
        }
        if (len)
            memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    inputs++;
    return 0;
}

static int skip_name(const char *name)
{
    return name[0] == '.' || strncmp(name, "README", 6) == 0;
}

static int run_path(const char *path)
{
    struct stat sb;
    struct dirent **names;
    int n, i, rc = 0;
    if (stat(path, &sb) < 0) {
        fprintf(stderr, "driver: cannot stat %s\n", path);
        return -1;
    }
    if (!S_ISDIR(sb.st_mode))
        return run_file(path);
    n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "driver: cannot read directory %s\n", path);
        return -1;
    }
    for (i = 0; i < n; i++) {
        char full[4096];
        struct stat eb;
        if (!skip_name(names[i]->d_name) &&
            snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name) <
                (int)sizeof full &&
            stat(full, &eb) == 0 && S_ISREG(eb.st_mode) &&
            run_file(full) < 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int i, rc = 0;
    for (i = 1; i < argc; i++)
        if (run_path(argv[i]) < 0)
            rc = 1;
    fprintf(stderr, "ran %ld inputs\n", inputs);
    return rc;
}
