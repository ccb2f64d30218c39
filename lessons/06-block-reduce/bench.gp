# bench.gp - lesson 06's plot: GB/s against n for every method and CUB.
# bench.sh calls it as
#   gnuplot -e "data='x.dat'; out='x.png'; series=N; peak=4800; gpu='NVIDIA H200'" bench.gp
# data holds N blocks separated by two blank lines; each block starts with
# a line naming the series (its title), then "n gbps" lines; the first block
# is CUB. peak is the datasheet DRAM bandwidth in GB/s (0: unknown, no line
# drawn).
#
# Two panels side by side, so that no more than five methods share one: the
# block-level sums (one block sum per block, then one atomicAdd) and the
# device-wide ones, each against CUB in black. A method's best launch
# setting from the sweep ("best") is drawn in its colour, dashed, with open
# points. Colours differ in lightness and every method has its own point
# shape, so the plot reads in greyscale too. 1000 px wide with 16 px text:
# about 9.5 pt in the site's column and 8.5 pt across an A4 handout; the
# page links the full-size file.

set terminal pngcairo size 1000,830 font ",16" noenhanced linewidth 1.5
set output out
set datafile separator whitespace

name(i) = system(sprintf("grep '^\"' '%s' | sed -n '%dp' | tr -d '\"'", data, i + 1))
base(s) = (strstrt(s, " (best of sweep)") > 0) ? s[1:strstrt(s, " (best of sweep)") - 1] : s
best(i) = strstrt(name(i), "best of sweep") > 0
device(i) = strstrt(name(i), "device") > 0
dash(i) = best(i) ? 2 : 1
label(i) = base(name(i)) . (best(i) ? ", best" : "")

# one colour and one point shape per method, whatever the order of the blocks
methods = "1-block-shfl 2-block-redux cg-block 3-device-2pass 4-device-atomic 5-device-lastblock 6-device-packed cg-device"
colours = "#0072b2 #d55e00 #009e73 #0072b2 #d55e00 #009e73 #cc79a7 #7a5a00"
points = "7 5 9 7 5 9 11 13"
pos(s) = strstrt(" " . methods . " ", " " . s . " ")
slot(i) = (pos(base(name(i))) > 0) ? words((" " . methods)[1:pos(base(name(i)))]) + 1 : 0
colour(i) = (slot(i) > 0) ? word(colours, slot(i)) : "#555555"
point(i) = ((slot(i) > 0) ? int(word(points, slot(i))) : 3) - (best(i) ? 1 : 0)

set logscale x 2
set format x "2^%L"
set xtics 4
set grid lc rgb "#d0d0d0"
set key top center spacing 1.0 samplen 3 Left reverse
set tmargin at screen 0.86
set bmargin at screen 0.40
set xlabel "n (ints summed)"
set ylabel "GB/s (4n bytes / median time)" offset 1,0
ymax = (peak > 0) ? peak * 1.06 : 0
if (peak > 0) {
    set arrow 1 from graph 0, first peak to graph 1, first peak nohead dashtype 2 lw 1.5 lc rgb "#555555"
    set label 1 sprintf("datasheet %.0f GB/s", peak) at graph 0.03, first peak offset 0,0.7
}
stats data using 2 nooutput
ymin = floor(STATS_min / 500) * 500 - 500
if (ymin < 0) { ymin = 0 }
if (ymax > 0) { set yrange [ymin:ymax] } else { set yrange [ymin:*] }

set multiplot title sprintf("Lesson 06: int32 sum on %s", gpu)
set lmargin at screen 0.11
set rmargin at screen 0.49
set key at screen 0.30, screen 0.305
set title "block sums, one atomicAdd each"
plot data index 0 using 1:2 with linespoints lw 3 lc rgb "black" pt 7 ps 1.3 title "CUB", \
     for [i=1:series-1] data index i using 1:(device(i) ? NaN : $2) \
         with linespoints lw 2 ps 1.3 lc rgb colour(i) pt point(i) \
         dashtype dash(i) title (device(i) ? "" : label(i))
set lmargin at screen 0.585
set rmargin at screen 0.97
set key at screen 0.775, screen 0.305
unset ylabel
set title "device-wide sums"
plot data index 0 using 1:2 with linespoints lw 3 lc rgb "black" pt 7 ps 1.3 title "CUB", \
     for [i=1:series-1] data index i using 1:(device(i) ? $2 : NaN) \
         with linespoints lw 2 ps 1.3 lc rgb colour(i) pt point(i) \
         dashtype dash(i) title (device(i) ? label(i) : "")
unset multiplot
