# bench.gp - lesson 07's plot: GB/s of the device-wide scans against n.
# bench.sh calls it as
#   gnuplot -e "data='x.dat'; out='x.png'; series=N; peak=3350; gpu='NVIDIA H100'" bench.gp
# data holds N blocks separated by two blank lines; each block starts with
# a line naming the series (its title), then "n gbps" lines, in the order
# build/bench writes them: CUB, reduce-then-scan, lookback, lookback-fast,
# memcpy. peak is
# the datasheet DRAM bandwidth in GB/s (0: unknown, no line drawn).
#
# Five series at most: CUB in black, the lesson's three scans in colours that
# differ in lightness, memcpy (the ceiling) in grey; each with its own dash
# pattern and point shape, so that the plot reads in greyscale too. 1000 px
# wide with 16 px text, as the other lessons' plots.

set terminal pngcairo size 1000,640 font ",16" noenhanced linewidth 1.5
set output out
set datafile separator whitespace
set title sprintf("Lesson 07: inclusive scan of int32 (%s)", gpu)
set xlabel "n (ints scanned)"
set ylabel "GB/s (8n bytes / median time)" offset 1,0
set logscale x 2
set format x "2^%L"
set xtics 4
set grid lc rgb "#d0d0d0"
set key bottom right spacing 1.1 samplen 3 Left reverse
set yrange [0:*]
if (peak > 0) {
    set arrow 1 from graph 0, first peak to graph 1, first peak nohead dashtype 2 lw 1.5 lc rgb "#555555"
    set label 1 sprintf("datasheet %.0f GB/s", peak) at graph 0.03, first peak offset 0,0.7
    set yrange [0:peak * 1.1]
}
set style line 1 lc rgb "black" lw 2.5 dashtype 1 pointtype 7 pointsize 1.6
set style line 2 lc rgb "#0072b2" lw 2 dashtype 2 pointtype 5 pointsize 1.6
set style line 3 lc rgb "#d55e00" lw 2 dashtype 4 pointtype 9 pointsize 1.8
set style line 4 lc rgb "#009e73" lw 2.5 dashtype 1 pointtype 13 pointsize 1.8
set style line 5 lc rgb "#888888" lw 2 dashtype 3 pointtype 12 pointsize 1.6
plot for [i=0:series-1] data index i using 1:2 with linespoints \
     linestyle (series < 5 && i == series - 1 ? 5 : i % 5 + 1) \
     title columnheader(1)
