# bench-scatter-add.gp - lesson 05, benchmark (c): time by inLen, one panel
# per pattern (rows) and outLen (columns), one line per method.
# gnuplot -e "csv='05-scatter-add.csv'; png='05-scatter-add.png'" bench-scatter-add.gp
# Three rows (outLen) of two panels (pattern), 800 px wide with 14 pt text,
# so that it is shown at about its size on the site and in the handout; the
# methods differ in shape, dash and lightness, so it reads in greyscale too.
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
set terminal pngcairo size 800,1250 font ",14" noenhanced linewidth 1.5
set output png
set multiplot layout 3,2 title sprintf("Scatter-add of doubles on %s\n(A, B, C: the answer's methods; D: match_any + shuffles + shared)", gpu)
set logscale x 2
set logscale y 10
set xrange [16:67108864]
set xtics ("2^5" 32, "2^10" 1024, "2^15" 32768, "2^20" 1048576, "2^25" 33554432)
set format y "%g"
set xlabel "inLen"
set ylabel "ms (median)"
set grid xtics ytics lc rgb "#d0d0d0"
set key top left spacing 1.0 samplen 2.5 maxrows 2
series(pattern, outlen, method) = sprintf("< awk -F, 'NR > 1 && $2 == \"%s\" && $4 == %d && $5 == \"%s\" && $6 != \"\"' '%s'", pattern, outlen, method, csv)
do for [outlen in "32 1024 32768"] {
    do for [pattern in "low high"] {
        set title sprintf("outInd %s bits, outLen %s", pattern, outlen)
        plot series(pattern, outlen + 0, "A") using 3:6 with linespoints lw 2.5 ps 1.2 pt 7 lc rgb "#000000" title "A", \
             series(pattern, outlen + 0, "B") using 3:6 with linespoints lw 2.5 ps 1.2 pt 5 dt 2 lc rgb "#0072b2" title "B", \
             series(pattern, outlen + 0, "C") using 3:6 with linespoints lw 2.5 ps 1.2 pt 9 lc rgb "#d55e00" title "C", \
             series(pattern, outlen + 0, "D") using 3:6 with linespoints lw 2.5 ps 1.2 pt 10 dt 3 lc rgb "#e69f00" title "D"
    }
}
unset multiplot
