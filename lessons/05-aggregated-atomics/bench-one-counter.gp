# bench-one-counter.gp - lesson 05, benchmark (a): time of each method.
# gnuplot -e "csv='05-one-counter.csv'; png='05-one-counter.png'" bench-one-counter.gp
# 800 px wide with 15 pt text: shown at about its size on the site and in
# the handout. One bar per method, labelled, so colour carries nothing.
set datafile separator ","
gpu = system(sprintf("awk -F, 'NR == 2 { print $1; exit }' '%s'", csv))
n = system(sprintf("awk -F, 'NR == 2 { print $2; exit }' '%s'", csv))
set terminal pngcairo size 800,480 font ",15" noenhanced
set output png
set title sprintf("A filter of %s ints through one counter\non %s", n, gpu)
set ylabel "ms (median)"
stats csv every ::1 using 5 nooutput
set yrange [0:STATS_max * 1.15]
set style fill solid 0.6 border -1
set boxwidth 0.6
set grid ytics lc rgb "#d0d0d0"
unset key
plot csv every ::1 using 0:5:xtic(4) with boxes lc rgb "#4477aa", \
     csv every ::1 using 0:5:(sprintf("%.3f", $5)) with labels offset 0,0.8 notitle
