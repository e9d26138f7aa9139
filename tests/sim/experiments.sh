#!/bin/sh
# tests/sim/experiments.sh - `make experiments`: runs the simulator on the
# document's experiments and writes build/experiments/*.tsv, the plots
# docs/experiments/*.svg and docs/experiments.md.
#
# Owns: which runs make up each experiment, the TSV layouts, the plots and
# the generated report.  The tolerances are tested in
# tests/sh/sim-figures.sh (make check); this script only measures and
# writes.  Wall-clock timings are measured here (a benchmark), never in a
# test.  Everything but the timing section is deterministic: same build,
# same files.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
Q=${QSCHED:-$top/build/qsched}
S=tests/sim/scenarios
B=build/experiments
D=docs/experiments
mkdir -p "$B" "$D"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

get() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1"; }
fbform() { case "$1" in 1/N) echo 1/concurrency ;; "1/sqrt(N)") echo 1/sqrt_concurrency ;; *) echo "$1" ;; esac; }
# (shell functions share variables: these use their own _names)
sim() { # out scenario [qsched sim options]...
    _o=$1; _f=$2; shift 2
    "$Q" sim "$@" "$_f" >"$_o"
}
simfb() { # out scenario feedback(doc notation) caching [options]...
    _so=$1; _sf=$2; _sg=$(fbform "$3"); _sc=$4; shift 4
    sim "$_so" "$_sf" --set "default_destination_concurrency_positive_feedback = $_sg" \
        --set "default_destination_concurrency_negative_feedback = $_sg" \
        --set "smtp_connection_cache_on_demand = $_sc" "$@"
}
now_ns() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

FBS="1/N 1/sqrt(N) 1"

# ---------------------------------------------------------------- table 3
# document values: deferred, conc avg, conc stddev, theory
doc3() {
    case "$1 $2" in
        "1/N no") echo "16.5 5.17 0.38 1/6" ;; "1/N yes") echo "16.5 5.17 0.38 1/6" ;;
        "1/sqrt(N) no") echo "24.5 5.28 0.45 1/4" ;; "1/sqrt(N) yes") echo "24.3 5.28 0.46 1/4" ;;
        "1 no") echo "49.7 5.63 0.67 1/2" ;; "1 yes") echo "49.7 5.68 0.70 1/2" ;;
    esac
}
printf 'feedback\tcaching\tdeferred_pct\tconc_avg\tconc_stddev\n' >"$B/table3.tsv"
printf 'feedback\tcaching\tprofile\tdoc_deferred_pct\tdeferred_pct\ttheory_pct\tdoc_conc_avg\tconc_avg\tdoc_conc_stddev\tconc_stddev\tinflight_avg\trejects_421\n' >"$B/table3-detail.tsv"
t0=$(now_ns)
for g in $FBS; do
    for c in no yes; do
        simfb "$tmp/m" "$S/table3.scn" "$g" "$c"
        # shellcheck disable=SC2046 # split into the document's fields
        set -- $(doc3 "$g" "$c")
        th=$(awk -v f="$4" 'BEGIN { split(f, a, "/"); printf "%.1f", 100 * a[1] / a[2] }')
        printf '%s\t%s\t%s\t%s\t%s\n' "$g" "$c" "$(get "$tmp/m" deferred_pct)" \
            "$(get "$tmp/m" conc_avg)" "$(get "$tmp/m" conc_stddev)" >>"$B/table3.tsv"
        printf '%s\t%s\tdocument\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" "$c" "$1" \
            "$(get "$tmp/m" deferred_pct)" "$th" "$2" "$(get "$tmp/m" conc_avg)" "$3" \
            "$(get "$tmp/m" conc_stddev)" "$(get "$tmp/m" inflight_avg)" \
            "$(get "$tmp/m" 421_deliveries)" >>"$B/table3-detail.tsv"
    done
done
t1=$(now_ns)
T_TABLE3=$(secs "$t0" "$t1")
# the postfix profile on the same rows
printf 'feedback\tcaching\tdeferred_pct\tconc_avg\tconc_stddev\n' >"$B/table3-postfix.tsv"
for g in $FBS; do
    simfb "$tmp/m" "$S/table3.scn" "$g" no --set 'profile postfix' 2>/dev/null
    printf '%s\tno\t%s\t%s\t%s\n' "$g" "$(get "$tmp/m" deferred_pct)" \
        "$(get "$tmp/m" conc_avg)" "$(get "$tmp/m" conc_stddev)" >>"$B/table3-postfix.tsv"
done
# sensitivity to the service-time jitter (the one free model input)
printf 'jitter\tfeedback\tdeferred_pct\tconc_avg\tconc_stddev\n' >"$B/table3-jitter.tsv"
for j in 0 1ms 5ms 20ms 100ms; do
    for g in $FBS; do
        simfb "$tmp/m" "$S/table3.scn" "$g" no \
            --set "server limited.example per_rcpt=1s jitter=$j rtt=1ms processes=10 session_limit=5"
        printf '%s\t%s\t%s\t%s\t%s\n' "$j" "$g" "$(get "$tmp/m" deferred_pct)" \
            "$(get "$tmp/m" conc_avg)" "$(get "$tmp/m" conc_stddev)" >>"$B/table3-jitter.tsv"
    done
done
# spread over seeds
printf 'feedback\tseeds\tdeferred_min\tdeferred_mean\tdeferred_max\tconc_min\tconc_mean\tconc_max\n' >"$B/table3-seeds.tsv"
for g in $FBS; do
    : >"$tmp/seeds"
    for seed in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        simfb "$tmp/m" "$S/table3.scn" "$g" no --seed "$seed"
        printf '%s\t%s\n' "$(get "$tmp/m" deferred_pct)" "$(get "$tmp/m" conc_avg)" >>"$tmp/seeds"
    done
    awk -F'\t' -v g="$g" 'NR == 1 { a = b = $1; c = d = $2 }
        { s += $1; t += $2; if ($1 < a) a = $1; if ($1 > b) b = $1; if ($2 < c) c = $2; if ($2 > d) d = $2 }
        END { printf "%s\t%d\t%.2f\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\n", g, NR, a, s / NR, b, c, t / NR, d }' \
        "$tmp/seeds" >>"$B/table3-seeds.tsv"
done
# ---------------------------------------------------------- tables 1, 2
doc12() { # table feedback caching -> deferred avg stddev connect greeting
    case "$1 $2 $3" in
        "1 1/N no") echo "9.9 19.4 0.49 198 -" ;; "1 1/N yes") echo "10.3 19.4 0.49 206 -" ;;
        "1 1/sqrt(N) no") echo "10.4 19.6 0.59 208 -" ;; "1 1/sqrt(N) yes") echo "10.6 19.6 0.61 212 -" ;;
        "1 1 no") echo "10.1 19.5 1.29 202 -" ;; "1 1 yes") echo "10.8 19.3 1.57 216 -" ;;
        "2 1/N no") echo "1.16 19.8 0.37 - 230" ;; "2 1/N yes") echo "1.36 19.8 0.36 - 272" ;;
        "2 1/sqrt(N) no") echo "1.21 19.9 0.23 4 238" ;; "2 1/sqrt(N) yes") echo "1.36 20.0 0.23 - 272" ;;
        "2 1 no") echo "1.18 20.0 0.16 - 236" ;; "2 1 yes") echo "1.39 20.0 0.16 - 278" ;;
    esac
}
hand() { # C Q T -> percent (Little's law, see docs/experiments.md)
    awk -v c="$1" -v q="$2" -v t="$3" 'BEGIN { l = (c - 5 - q) / t; printf "%.2f", 100 * l / (l + 2.5) }'
}
for tb in 1 2; do
    printf 'feedback\tcaching\tdeferred_pct\tconc_avg\tconc_stddev\n' >"$B/table$tb.tsv"
    printf 'feedback\tcaching\tdoc_deferred_pct\tdeferred_pct\thand_pct\tdoc_conc_avg\tconc_avg\tdoc_conc_stddev\tconc_stddev\tdoc_connect\tconnect_rcpts\tdoc_greeting\tgreeting_rcpts\tdead_rcpts\tinflight_avg\n' >"$B/table$tb-detail.tsv"
    if [ $tb = 1 ]; then q=8; to=30; else q=6; to=300; fi
    for g in $FBS; do
        for c in no yes; do
            simfb "$tmp/m" "$S/table$tb.scn" "$g" "$c"
            # shellcheck disable=SC2046 # split into the document's fields
            set -- $(doc12 $tb "$g" "$c")
            printf '%s\t%s\t%s\t%s\t%s\n' "$g" "$c" "$(get "$tmp/m" deferred_pct)" \
                "$(get "$tmp/m" conc_avg)" "$(get "$tmp/m" conc_stddev)" >>"$B/table$tb.tsv"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" "$c" "$1" \
                "$(get "$tmp/m" deferred_pct)" "$(hand "$(get "$tmp/m" inflight_avg)" $q $to)" \
                "$2" "$(get "$tmp/m" conc_avg)" "$3" "$(get "$tmp/m" conc_stddev)" \
                "$4" "$(get "$tmp/m" connect_rcpts)" "$5" "$(get "$tmp/m" greeting_rcpts)" \
                "$(get "$tmp/m" dead_rcpts)" "$(get "$tmp/m" inflight_avg)" >>"$B/table$tb-detail.tsv"
        done
    done
done

# ------------------------------------------------------- load balancer
printf 'lb\tfeedback\tdeferred_pct\tconc_avg\tconc_stddev\tconc_max\n' >"$B/loadbalancer.tsv"
for lb in random rr; do
    for g in 1/N "1/sqrt(N)" 1/4 1/8 1; do
        n=$(echo "$g" | tr -d '/()')
        simfb "$tmp/m" "$S/loadbalancer.scn" "$g" no \
            --set "server lb.example per_rcpt=1s jitter=5ms rtt=1ms backends=4 bad=1 bad_mode=drop lb=$lb" \
            --series "$B/lb-$lb-$n.series"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$lb" "$g" "$(get "$tmp/m" deferred_pct)" \
            "$(get "$tmp/m" conc_avg)" "$(get "$tmp/m" conc_stddev)" "$(get "$tmp/m" conc_max)" >>"$B/loadbalancer.tsv"
    done
done

# --------------------------------------------------------------- noise
printf 'noise\tfeedback\tdeferred_pct\tconc_avg\tconc_stddev\n' >"$B/noise.tsv"
for p in 0 0.001 0.01 0.02 0.05 0.1; do
    for g in 1/N "1/sqrt(N)" 1/4 1; do
        simfb "$tmp/m" "$S/noise.scn" "$g" no \
            --set "server noisy.example per_rcpt=1s jitter=5ms rtt=1ms noise=$p"
        printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$g" "$(get "$tmp/m" deferred_pct)" \
            "$(get "$tmp/m" conc_avg)" "$(get "$tmp/m" conc_stddev)" >>"$B/noise.tsv"
    done
done

# ------------------------------------------------------- bulk vs small
POLICIES="oqmgr fifo nqmgr-k2 nqmgr-k5 finch"
polset() { case "$1" in
    nqmgr-k*) printf '%s\n' "policy nqmgr" "default_delivery_slot_cost = ${1#nqmgr-k}" ;;
    *) printf '%s\n' "policy $1" ;; esac; }
printf 'list\trate\tpolicy\tsmall_mean\tsmall_p50\tsmall_p90\tsmall_p99\tsmall_max\tbulk_makespan\tbulk_alone\tinflation\n' >"$B/bulk-small.tsv"
for list in domains spread; do
    for rate in 2 8; do
        for pol in $POLICIES; do
            set -- --set "poisson rate=$rate start=1 stop=450 id=S class=small smtp:small{1..100}.example"
            if [ $list = spread ]; then
                set -- "$@" --set 'message at=0 id=LIST class=bulk smtp:list{1..100}.example*100' \
                    --set 'default_destination_recipient_limit = 2' \
                    --set 'server * per_rcpt=500ms jitter=5ms rtt=1ms'
            fi
            polset "$pol" >"$tmp/pol"
            while IFS= read -r line; do set -- "$@" --set "$line"; done <"$tmp/pol"
            sim "$tmp/m" "$S/bulk-small.scn" --delays "$tmp/delays" "$@"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$list" "$rate" "$pol" \
                "$(get "$tmp/m" class.small.delay_mean)" "$(get "$tmp/m" class.small.delay_p50)" \
                "$(get "$tmp/m" class.small.delay_p90)" "$(get "$tmp/m" class.small.delay_p99)" \
                "$(get "$tmp/m" class.small.delay_max)" "$(get "$tmp/m" bulk_makespan)" \
                "$(get "$tmp/m" bulk_alone_makespan)" "$(get "$tmp/m" inflation)" >>"$B/bulk-small.tsv"
            if [ $list = domains ]; then
                awk -F'\t' '$2 == "small" { print $7 }' "$tmp/delays" | sort -g |
                    awk '{ v[NR] = $1 } END { step = int(NR / 300) + 1
                        for (i = 1; i <= NR; i++) if (i % step == 0 || i == 1 || i == NR)
                            printf "%s\t%.5f\n", v[i], i / NR }' \
                        >"$B/delays-$rate-$pol.cdf"
            fi
        done
    done
done
# inflation against k (heavy small-mail load, single-recipient mail only:
# non-recursive preemption, bound (k+1)/k)
printf 'k\tinflation\tbound_nonrecursive\tbound_recursive\tsmall_mean\n' >"$B/inflation-k.tsv"
for k in 2 3 4 5 6 8 10; do
    sim "$tmp/m" "$S/bulk-small.scn" --set "default_delivery_slot_cost = $k" \
        --set 'poisson rate=12 start=1 stop=450 id=S class=small smtp:small{1..100}.example'
    printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$(get "$tmp/m" inflation)" \
        "$(awk -v k=$k 'BEGIN { printf "%.4f", (k + 1) / k }')" \
        "$(awk -v k=$k 'BEGIN { printf "%.4f", k / (k - 1) }')" \
        "$(get "$tmp/m" class.small.delay_mean)" >>"$B/inflation-k.tsv"
done

# ------------------------------------------------------- Finch's shares
printf 'messages\tscale\tshare_a_pct\tshare_b_pct\tfinch_says\n' >"$B/finch-shares.tsv"
sim "$tmp/m" "$S/finch-shares.scn"
printf '1\t10\t%s\t-\tabout 91%%\n' "$(get "$tmp/m" class.a.inflight_avg)" >>"$B/finch-shares.tsv"
sim "$tmp/m" "$S/finch-shares.scn" --set 'message at=0 id=B class=b smtp:b{1..1000}.example*100'
printf '2\t10\t%s\t%s\tabout 47%% each\n' "$(get "$tmp/m" class.a.inflight_avg)" \
    "$(get "$tmp/m" class.b.inflight_avg)" >>"$B/finch-shares.tsv"

# -------------------------------------------------------------- outage
printf 'policy\tdeferred_pct\trefused_deliveries\tdead_rcpts\tsmall_delay_mean\n' >"$B/outage.tsv"
for pol in nqmgr oqmgr fifo finch; do
    sim "$tmp/m" "$S/outage.scn" --set "policy $pol"
    printf '%s\t%s\t%s\t%s\t%s\n' "$pol" "$(get "$tmp/m" deferred_pct)" \
        "$(get "$tmp/m" refused_deliveries)" "$(get "$tmp/m" dead_rcpts)" \
        "$(get "$tmp/m" class.mail.delay_mean)" >>"$B/outage.tsv"
done

# -------------------------------------------------------------- timing
t0=$(now_ns); sim "$tmp/m" "$S/table3.scn"; t1=$(now_ns)
T_ONE=$(secs "$t0" "$t1")
t0=$(now_ns); sim "$tmp/big" "$S/bulk-1m.scn"; t1=$(now_ns)
T_BIG=$(secs "$t0" "$t1")
printf 'run\tseconds\n' >"$B/timings.tsv"
printf 'table3 one row\t%s\ntable3 six rows\t%s\nbulk 1000000 recipients\t%s\n' \
    "$T_ONE" "$T_TABLE3" "$T_BIG" >>"$B/timings.tsv"
BIG_DELIV=$(get "$tmp/big" deliveries)
BIG_RCPT=$(get "$tmp/big" delivered)

# --------------------------------------------------------------- plots
if command -v gnuplot >/dev/null 2>&1; then
    sh tests/sim/plots.sh "$B" "$D" "$tmp"
else
    echo "experiments: gnuplot not found; plots not regenerated" >&2
fi

# -------------------------------------------------------------- report
T_TABLE3="$T_TABLE3" T_BIG="$T_BIG" BIG_DELIV="$BIG_DELIV" BIG_RCPT="$BIG_RCPT" \
    sh tests/sim/report.sh "$B" >docs/experiments.md
echo "experiments: wrote $B/*.tsv, $D/*.svg and docs/experiments.md"
