# bench-histogram.gp - lesson 05, benchmark (b): time by number of bins, one
# panel per skew, one line per method.
# gnuplot -e "csv='05-histogram.csv'; png='05-histogram.png'" bench-histogram.gp
# Two panels side by side, 1000 px wide with 16 px text: about 9.5 pt in the
# site's column and 8.5 pt across an A4 handout; the page links the
# full-size file. The methods differ in shape, dash and lightness, so it
# reads in greyscale too.
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
set terminal pngcairo size 1000,600 font ",16" noenhanced linewidth 1.5
set output png
n = system(sprintf("awk -F, 'NR == 2 { print $2; exit }' '%s'", csv))
set multiplot layout 1,2 title sprintf("Histogram of %s keys on %s", n, gpu)
set logscale x 2
set logscale y 10
set xrange [0.7:100000]
set xtics ("1" 1, "16" 16, "256" 256, "4K" 4096, "64K" 65536)
set mxtics default
set xlabel "bins"
set ylabel "ms (median)"
set grid xtics ytics lc rgb "#d0d0d0"
set bmargin at screen 0.25
series(skew, method) = sprintf("< awk -F, 'NR > 1 && $4 == \"%s\" && $6 == \"%s\" && $7 != \"\"' '%s'", skew, method, csv)
do for [skew in "uniform zipf"] {
    set title sprintf("%s keys", skew)
    # one key for both panels, below them
    if (skew eq "zipf") {
        set key at screen 0.5, screen 0.08 center center horizontal maxrows 2 samplen 2.5 width 1
    } else {
        unset key
    }
    plot series(skew, "plain") using 3:7 with linespoints lw 2.5 ps 1.4 pt 7 lc rgb "#000000" title "plain (global)", \
         series(skew, "match") using 3:7 with linespoints lw 2.5 ps 1.4 pt 5 dt 2 lc rgb "#0072b2" title "match (global)", \
         series(skew, "shared") using 3:7 with linespoints lw 2.5 ps 1.4 pt 9 lc rgb "#d55e00" title "shared", \
         series(skew, "shared+match") using 3:7 with linespoints lw 2.5 ps 1.4 pt 10 dt 3 lc rgb "#e69f00" title "shared+match"
}
unset multiplot
