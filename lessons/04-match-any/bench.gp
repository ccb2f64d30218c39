# bench.gp - lesson 04's plot: the slowdown of each fallback against
# __match_any_sync, by number of distinct keys.
# gnuplot -e "csv='04-match-any.csv'; png='04-match-any.png'" bench.gp
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
set terminal pngcairo size 900,560 font ",11" noenhanced
set output png
set title sprintf("__match_any_sync fallbacks on %s: time over the instruction", gpu)
set xlabel "distinct keys (random keys in 0..C-1)"
set ylabel "fallback time / native time"
set logscale x 2
set xrange [0.7:3e6]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "1000" 1000, "2^20" 1048576)
set logscale y 2
set grid xtics ytics
set key top right
series(method, rounds) = sprintf("< awk -F, 'NR > 1 && $5 == \"%s\" && $3 == %d' '%s'", method, rounds, csv)
plot series("per-lane", 16) using 4:7 with linespoints lw 2 pt 7 title "per lane, 16 rounds", \
     series("per-group", 16) using 4:7 with linespoints lw 2 pt 5 title "per group, 16 rounds", \
     series("per-lane", 1) using 4:7 with linespoints lw 1 pt 6 dt 2 title "per lane, 1 round", \
     series("per-group", 1) using 4:7 with linespoints lw 1 pt 4 dt 2 title "per group, 1 round", \
     1 with lines lc "gray" dt 3 notitle
