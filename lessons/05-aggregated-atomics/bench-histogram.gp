# bench-histogram.gp - lesson 05, benchmark (b): time by number of bins, one
# panel per skew, one line per method.
# gnuplot -e "csv='05-histogram.csv'; png='05-histogram.png'" bench-histogram.gp
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
set terminal pngcairo size 1200,520 font ",11" noenhanced
set output png
n = system(sprintf("awk -F, 'NR == 2 { print $2; exit }' '%s'", csv))
set multiplot layout 1,2 title sprintf("Histogram of %s keys on %s", n, gpu)
set logscale x 2
set logscale y 10
set xrange [0.7:100000]
set xtics ("1" 1, "4" 4, "16" 16, "64" 64, "256" 256, "1K" 1024, "4K" 4096, "64K" 65536)
set xlabel "bins"
set ylabel "ms (median)"
set grid xtics ytics
set key top right
series(skew, method) = sprintf("< awk -F, 'NR > 1 && $4 == \"%s\" && $6 == \"%s\" && $7 != \"\"' '%s'", skew, method, csv)
do for [skew in "uniform zipf"] {
    set title sprintf("%s keys", skew)
    plot series(skew, "plain") using 3:7 with linespoints lw 2 pt 7 title "plain (global)", \
         series(skew, "match") using 3:7 with linespoints lw 2 pt 5 title "match (global)", \
         series(skew, "shared") using 3:7 with linespoints lw 2 pt 9 title "shared", \
         series(skew, "shared+match") using 3:7 with linespoints lw 2 pt 11 title "shared+match"
}
unset multiplot
