# proofs/summary.awk - turns Frama-C WP logs into the per-function summary
# of `make proofs` (one "ok"/"FAIL" line per function, as tests/run.sh
# counts them) and the closing "Proved goals: N / N".
#
# Owns: the reading of WP's goal lines.  Exists so that run.sh stays a
# plain sequence of commands.  Input: first the file of expected function
# names (one per line), then any number of WP logs.  A goal line looks like
#   [wp] [Qed] Goal typed_qs_success_step_ensures_window_min : Valid (55ms)
#   [wp] [Failed] Goal typed_real_qs_fb_value_ensures_range
#   [wp] [CVC5 1.0.3] Goal typed_lemma_sqrt_ge_one : Unknown (40ms)
# "typed_" (and "real_" for the real-number float model) is WP's prefix;
# the function is the longest expected name that the rest starts with;
# "lemma_..." goals are counted under "lemmas".  A goal is proved only when
# its status word is "Valid".  Portable awk (mawk, gawk, busybox).
FNR == NR { if ($1 != "") { want[$1] = 1; order[++n] = $1 } next }
/^\[wp\] \[[^]]*\] Goal / || /^\[wp\] Goal / {
    line = $0
    sub(/^.*Goal /, "", line)
    name = line
    sub(/ .*$/, "", name)
    status = ""
    if (index(line, " : ") > 0) {
        status = substr(line, index(line, " : ") + 3)
        sub(/ .*$/, "", status)
    }
    g = name
    sub(/^typed_/, "", g)
    sub(/^real_/, "", g)
    fn = ""
    if (g ~ /^lemma_/) {
        fn = "lemmas"
    } else {
        for (f in want)
            if (index(g, f "_") == 1 && length(f) > length(fn))
                fn = f
    }
    if (fn == "") fn = "other"
    total[fn]++
    all++
    if (status == "Valid") { proved[fn]++; good++ }
    else bad[fn] = bad[fn] " " name
    next
}
END {
    for (i = 1; i <= n; i++) {
        f = order[i]
        if (total[f] == 0) {
            printf "FAIL proofs/wp/%s: no goal generated (skipped or not parsed)\n", f
            missing++
            continue
        }
        if (proved[f] == total[f])
            printf "ok proofs/wp/%s: %d/%d goals\n", f, proved[f], total[f]
        else
            printf "FAIL proofs/wp/%s: %d/%d goals, unproved:%s\n", f, proved[f] + 0, total[f], bad[f]
    }
    for (f in total) {
        if (f in want) continue
        if (proved[f] == total[f])
            printf "ok proofs/wp/%s: %d/%d goals\n", f, proved[f], total[f]
        else
            printf "FAIL proofs/wp/%s: %d/%d goals, unproved:%s\n", f, proved[f] + 0, total[f], bad[f]
    }
    printf "Proved goals: %d / %d\n", good, all
    exit (good == all && all > 0 && missing == 0) ? 0 : 1
}
