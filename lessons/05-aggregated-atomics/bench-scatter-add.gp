# bench-scatter-add.gp - lesson 05, benchmark (c): time by inLen, one panel
# per pattern (rows) and outLen (columns), one line per method.
# gnuplot -e "csv='05-scatter-add.csv'; png='05-scatter-add.png'" bench-scatter-add.gp
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
set terminal pngcairo size 1400,860 font ",10" noenhanced
set output png
set multiplot layout 2,3 title sprintf("Scatter-add of doubles on %s (methods A, B, C of the answer; D: match_any + shuffles + shared memory)", gpu)
set logscale x 2
set logscale y 10
set xrange [16:67108864]
set xtics ("2^5" 32, "2^10" 1024, "2^15" 32768, "2^20" 1048576, "2^25" 33554432)
set xlabel "inLen"
set ylabel "ms (median)"
set grid xtics ytics
set key top left
series(pattern, outlen, method) = sprintf("< awk -F, 'NR > 1 && $2 == \"%s\" && $4 == %d && $5 == \"%s\" && $6 != \"\"' '%s'", pattern, outlen, method, csv)
do for [pattern in "low high"] {
    do for [outlen in "32 1024 32768"] {
        set title sprintf("outInd from the %s bits, outLen %s", pattern, outlen)
        plot series(pattern, outlen + 0, "A") using 3:6 with linespoints lw 2 pt 7 title "A", \
             series(pattern, outlen + 0, "B") using 3:6 with linespoints lw 2 pt 5 title "B", \
             series(pattern, outlen + 0, "C") using 3:6 with linespoints lw 2 pt 9 title "C", \
             series(pattern, outlen + 0, "D") using 3:6 with linespoints lw 2 pt 11 title "D"
    }
}
unset multiplot
