# bench.gp - lesson 07's plot: GB/s of the device-wide scans against n.
# bench.sh calls it as
#   gnuplot -e "data='x.dat'; out='x.png'; series=N; peak=3350; gpu='NVIDIA H100'" bench.gp
# data holds N blocks separated by two blank lines; each block starts with
# a line naming the series (its title), then "n gbps" lines; the first block
# is CUB. peak is the datasheet DRAM bandwidth in GB/s (0: unknown, no line).
# Legible in greyscale: each series has its own dash pattern
# and point shape; text at 12 pt.

set terminal pngcairo size 1000,640 font ",12"
set output out
set datafile separator whitespace
set title sprintf("Lesson 07: inclusive scan of int32, GB/s against n (%s)", gpu)
set xlabel "n (ints scanned)"
set ylabel "GB/s (8n bytes: read once, written once)"
set logscale x 2
set format x "2^{%L}"
set xtics 4
set grid
set key outside right top
set yrange [0:*]
if (peak > 0) {
    set arrow 1 from graph 0, first peak to graph 1, first peak nohead dashtype 3 linewidth 1
    set label 1 sprintf("datasheet %.0f GB/s", peak) at graph 0.02, first peak offset 0,0.7
    set yrange [0:peak * 1.1]
}
# One style per series: CUB solid with filled circles, then distinct dash
# patterns and open point shapes.
set style line 1 linewidth 3 dashtype 1 pointtype 7 pointsize 1.5
set style line 2 linewidth 2 dashtype 2 pointtype 4 pointsize 1.5
set style line 3 linewidth 2 dashtype 3 pointtype 6 pointsize 1.5
set style line 4 linewidth 2 dashtype 4 pointtype 8 pointsize 1.5
set style line 5 linewidth 2 dashtype 5 pointtype 10 pointsize 1.5
plot for [i=0:series-1] data index i using 1:2 with linespoints linestyle (i % 5 + 1) \
     title columnheader(1)
