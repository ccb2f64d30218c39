# bench.gp - lesson 04's plot: the slowdown of each fallback against
# __match_any_sync, by number of distinct keys.
# gnuplot -e "csv='04-match-any.csv'; png='04-match-any.png'" bench.gp
# Drawn at 800 px wide with 15 pt text, so that it is shown at about its
# size in the site's column and on an A4 handout; the four lines differ in
# shape, dash and lightness, so the plot reads in greyscale too.
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
set terminal pngcairo size 800,560 font ",15" noenhanced linewidth 1.5
set output png
set title sprintf("__match_any_sync fallbacks on %s:\ntime over the instruction", gpu)
set xlabel "distinct keys (random keys in 0..C-1)"
set xtics font ",14"
set ylabel "fallback time / native time"
set logscale x 2
set xrange [0.7:3e6]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "1000" 1000, "2^20" 1048576)
set logscale y 2
set grid xtics ytics lc rgb "#d0d0d0"
set key top right spacing 1.1 samplen 3
series(method, rounds) = sprintf("< awk -F, 'NR > 1 && $5 == \"%s\" && $3 == %d' '%s'", method, rounds, csv)
plot series("per-lane", 16) using 4:7 with linespoints lw 2.5 ps 1.4 pt 7 lc rgb "#0072b2" title "per lane, 16 rounds", \
     series("per-group", 16) using 4:7 with linespoints lw 2.5 ps 1.4 pt 5 lc rgb "#d55e00" title "per group, 16 rounds", \
     series("per-lane", 1) using 4:7 with linespoints lw 2 ps 1.4 pt 6 dt 2 lc rgb "#56b4e9" title "per lane, 1 round", \
     series("per-group", 1) using 4:7 with linespoints lw 2 ps 1.4 pt 4 dt 3 lc rgb "#7a3a00" title "per group, 1 round", \
     1 with lines lc "gray" dt 3 notitle
