# proofs/summary.awk - turns Frama-C WP logs into the per-function summary
# of `make proofs` (one "ok"/"FAIL" line per function, as tests/run.sh
# counts them) and the closing "Proved goals: N / N".
#
# Owns: the reading of WP's goal and smoke-test lines.  Exists so that run.sh stays a
# plain sequence of commands.  Input: first the file of expected function
# names (one per line), then any number of WP logs.  A goal line looks like
#   [wp] [Qed] Goal typed_qs_success_step_ensures_window_min : Valid (55ms)
#   [wp] [Failed] Goal typed_real_qs_fb_value_ensures_range
#   [wp] [CVC5 1.0.3] Goal typed_lemma_sqrt_ge_one : Unknown (40ms)
# "typed_" (and "real_" for the real-number float model, "qsched_" for the
# driver proofs/why3/qsched.driver) is WP's prefix;
# the function is the longest expected name that the rest starts with;
# "lemma_..." goals are counted under "lemmas".  A goal is proved only when
# its status word is "Valid".  Portable awk (mawk, gawk, busybox).
FNR == NR { if ($1 != "") { want[$1] = 1; order[++n] = $1 } next }
# Smoke tests (-wp-smoke-tests): WP tries to prove False from the
# preconditions, from each behavior's assumptions, and at each statement.
# "Passed" means it could not, i.e. the contract is not vacuous and the code
# is reachable.  A failed one is printed twice; count each name once.
/^\[wp\] \[[A-Za-z]*\] Smoke-test / {
    name = $0
    sub(/^.*Smoke-test /, "", name)
    sub(/ .*$/, "", name)
    if (name in smoke_seen) next
    smoke_seen[name] = 1
    g = name
    sub(/^typed_/, "", g)
    sub(/^real_/, "", g)
    sub(/^qsched_/, "", g)
    fn = ""
    for (f in want)
        if (index(g, f "_") == 1 && length(f) > length(fn))
            fn = f
    if (fn == "") fn = "other"
    stotal[fn]++
    smoke_all++
    if ($2 == "[Passed]") { spassed[fn]++; smoke_good++ }
    else sbad[fn] = sbad[fn] " " name
    next
}
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
    sub(/^qsched_/, "", g)
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
function smoke(f) {
    if (stotal[f] == 0) return ""
    return sprintf(", %d/%d smoke tests", spassed[f], stotal[f])
}
END {
    for (i = 1; i <= n; i++) {
        f = order[i]
        if (total[f] == 0) {
            printf "FAIL proofs/wp/%s: no goal generated (skipped or not parsed)\n", f
            missing++
            continue
        }
        if (proved[f] == total[f] && spassed[f] == stotal[f])
            printf "ok proofs/wp/%s: %d/%d goals%s\n", f, proved[f], total[f], smoke(f)
        else
            printf "FAIL proofs/wp/%s: %d/%d goals%s, unproved:%s%s\n", f, proved[f] + 0, total[f], smoke(f), bad[f], (sbad[f] == "" ? "" : "; failed smoke tests:" sbad[f])
    }
    for (f in total) {
        if (f in want) continue
        if (proved[f] == total[f])
            printf "ok proofs/wp/%s: %d/%d goals\n", f, proved[f], total[f]
        else
            printf "FAIL proofs/wp/%s: %d/%d goals, unproved:%s\n", f, proved[f] + 0, total[f], bad[f]
    }
    if (smoke_all > 0)
        printf "Smoke tests passed: %d / %d\n", smoke_good, smoke_all
    printf "Proved goals: %d / %d\n", good, all
    exit (good == all && all > 0 && missing == 0 && smoke_good == smoke_all) ? 0 : 1
}
