# The plot of a steerlab sweep (docs/sweeps.md): run in this directory,
# `gnuplot sweep.gp` writes sweep.png.
set terminal pngcairo size 960,800 noenhanced
set output 'sweep.png'
set datafile missing '?'

# x, then per scheme (1): deviation, upstream queries, unused (steady-state runs),
# six unused; an invalid point has none of them
$points << EOD
1 0.00708333333 53 ? ? ? ? ? ? ?
2 0.01 31 ? ? ? ? ? ? ?
5 0.0454166667 17 ? ? ? ? ? ? ?
EOD

set multiplot layout 2,1 title "steerlab sweep of ttl, lab stqttl"
set grid
set key outside right top
set yrange [0:*]
set xlabel "ttl of the DNS names (s)"
set xrange [0.8:5.2]
set xtics ("1" 1, "2" 2, "5" 5)
set title "steady state: deviation from the target shares (half L1)"
set ylabel "deviation"
plot $points using 1:2 with linespoints lt 1 pt 7 title "dns"
set title "upstream DNS queries (authd links)"
set ylabel "queries"
plot $points using 1:3 with linespoints lt 1 pt 7 title "dns"
unset multiplot
