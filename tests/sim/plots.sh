#!/bin/sh
# tests/sim/plots.sh - the gnuplot SVG plots of docs/experiments.md, from
# the TSV files of tests/sim/experiments.sh.  Arguments: TSV directory,
# output directory, scratch directory.
#
# Owns: the look of the plots: defer rate against feedback style (table
# 3), concurrency over time (load balancer), concurrency against noise,
# small-mail delay distributions, inflation against k with the k/(k-1)
# and (k+1)/k bounds.  Fixed size and fonts, no dates: same data, same SVG.
set -eu
B=$1
D=$2
T=$3
term='set terminal svg size 720,420 font "Helvetica,13" background rgb "white" noenhanced
set key opaque box'

# table 3: document, model (no caching, document profile), theory
awk -F'\t' 'NR > 1 && $2 == "no" { printf "\"%s\"\t%s\t%s\t%s\n", $1, $4, $5, $6 }' \
    "$B/table3-detail.tsv" >"$T/t3.dat"
gnuplot <<GP
$term
set output "$D/table3-defer.svg"
set title "Table 3: deferred mail with a 421 limiter (S = 5), by feedback style"
set ylabel "% deferred (first attempts)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:60]
set grid ytics
set key top left
plot "$T/t3.dat" using 2:xtic(1) title "SCHEDULER_README (2007)", \
     "" using 3 title "qsched sim (document profile)", \
     "" using 4 title "theory 1/(1+roundup(1/feedback))"
GP

# load balancer: window over time
for f in "$B"/lb-*.series; do
    awk -F'\t' 'NR > 1 && $3 >= 0 { print $1 "\t" $3 }' "$f" >"$T/$(basename "$f" .series).dat"
done
gnuplot <<GP
$term
set output "$D/loadbalancer-window.svg"
set title "Load balancer, 4 backends, 1 drops every handshake: window over time"
set xlabel "time (s)"
set ylabel "destination concurrency (window)"
set yrange [0:105]
set grid
set key at graph 0.98, graph 0.62 right
plot "$T/lb-random-14.dat" using 1:2 with lines lw 2 title "fixed 1/4, random backend", \
     "$T/lb-random-1sqrtN.dat" using 1:2 with lines lw 2 title "1/sqrt(N), random backend", \
     "$T/lb-random-1N.dat" using 1:2 with lines lw 2 title "1/N, random backend", \
     "$T/lb-rr-14.dat" using 1:2 with lines lw 2 dt 2 title "fixed 1/4, round-robin backend", \
     "$T/lb-rr-1N.dat" using 1:2 with lines lw 2 dt 3 title "1/N, round-robin backend"
GP

# noise
for g in 1/N "1/sqrt(N)" 1/4 1; do
    n=$(echo "$g" | tr -d '/()')
    awk -F'\t' -v g="$g" 'NR > 1 && $2 == g { print $1 "\t" $4 }' "$B/noise.tsv" >"$T/noise-$n.dat"
done
gnuplot <<GP
$term
set output "$D/noise.svg"
set title "Noisy negative feedback: average window against handshake failure rate"
set xlabel "fraction of handshakes that fail"
set ylabel "average window (limit 100)"
set yrange [0:105]
set grid
set key bottom left
plot "$T/noise-1.dat" using 1:2 with linespoints lw 2 title "1 (old +/-1)", \
     "$T/noise-14.dat" using 1:2 with linespoints lw 2 title "fixed 1/4", \
     "$T/noise-1sqrtN.dat" using 1:2 with linespoints lw 2 title "1/sqrt(N)", \
     "$T/noise-1N.dat" using 1:2 with linespoints lw 2 title "1/N"
GP

# small-mail delay distributions (10,000-domain list, 8 small messages/s)
gnuplot <<GP
$term
set output "$D/bulk-small-delays.svg"
set title "Small mail behind a 10,000-recipient list (8 messages/s): delay CDF"
set xlabel "delay of a single-recipient message (s)"
set ylabel "fraction of small messages"
set logscale x
set xrange [0.5:1000]
set yrange [0:1]
set grid
set key at graph 0.45, graph 0.95 right
plot "$B/delays-8-finch.cdf" using 1:2 with lines lw 2 title "Finch", \
     "$B/delays-8-nqmgr-k2.cdf" using 1:2 with lines lw 2 title "nqmgr k=2", \
     "$B/delays-8-nqmgr-k5.cdf" using 1:2 with lines lw 2 title "nqmgr k=5", \
     "$B/delays-8-fifo.cdf" using 1:2 with lines lw 2 title "FIFO", \
     "$B/delays-8-oqmgr.cdf" using 1:2 with lines lw 2 dt 2 title "oqmgr round-robin"
GP

# inflation against k
awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' "$B/inflation-k.tsv" >"$T/inf.dat"
gnuplot <<GP
$term
set output "$D/inflation-k.svg"
set title "Bulk inflation against delivery slot cost k (12 small messages/s)"
set xlabel "k (transport_delivery_slot_cost)"
set ylabel "bulk makespan / makespan alone"
set xrange [1.5:10.5]
set yrange [1:2.1]
set samples 200
set grid
set key top right
plot x / (x - 1) with lines lw 2 dt 2 title "k/(k-1) (recursive bound)", \
     (x + 1) / x with lines lw 2 dt 3 title "(k+1)/k (non-recursive bound)", \
     "$T/inf.dat" using 1:2 with linespoints lw 2 pt 7 title "qsched sim, nqmgr"
GP
