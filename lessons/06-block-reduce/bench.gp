# bench.gp - lesson 06's plot: GB/s against n for every method and CUB.
# bench.sh calls it as
#   gnuplot -e "data='x.dat'; out='x.png'; series=N; peak=4800; gpu='NVIDIA H200'" bench.gp
# data holds N blocks separated by two blank lines; each block starts with
# a line naming the series (its title), then "n gbps" lines; the first block
# is CUB, drawn in black. peak is the
# datasheet DRAM bandwidth in GB/s (0: unknown, no line drawn).

set terminal pngcairo size 1000,640 font ",11"
set output out
set datafile separator whitespace
set title sprintf("Lesson 06: int32 sum, GB/s against n (%s)", gpu)
set xlabel "n (ints summed)"
set ylabel "GB/s (4n bytes read / median time)"
set logscale x 2
set format x "2^{%L}"
set xtics 4
set grid
set key outside right top
set yrange [0:*]
if (peak > 0) {
    set arrow 1 from graph 0, first peak to graph 1, first peak nohead dashtype 2 linewidth 2 linecolor rgb "#888888"
    set label 1 sprintf("datasheet %.0f GB/s", peak) at graph 0.02, first peak offset 0,0.7
    set yrange [0:peak * 1.1]
}
plot data index 0 using 1:2 with linespoints linewidth 4 linecolor rgb "black" pointtype 7 title columnheader(1), \
     for [i=1:series-1] data index i using 1:2 with linespoints linewidth 2 pointsize 1.2 title columnheader(1)
