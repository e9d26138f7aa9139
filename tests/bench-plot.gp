# tests/bench-plot.gp - the plot of docs/performance.md: steady-state
# instructions per select against queue size, one line per shape
# (tests/bench.sh writes the data: build/bench/scaling-cols.dat, a header
# line "size SHAPE..." then one line per size).
# usage: gnuplot -e "datafile='F'; outfile='O.svg'" tests/bench-plot.gp
set terminal svg size 720,440 dynamic font "sans,12"
set output outfile
set title "qsched: cost per decision against queue size (postfix profile)"
set xlabel "queued messages (dests: destinations)"
set ylabel "instructions per select, whole run (callgrind)"
set logscale x 10
set format x "%.0s%c"
set xrange [500:200000]
set yrange [0:*]
set key outside right top
set grid ytics
ncols = int(system("head -1 '".datafile."' | wc -w"))
plot for [c=2:ncols] datafile using 1:c with linespoints lw 2 pt 7 title columnheader(c)
