# The plot of a steerlab sweep (docs/sweeps.md): run in this directory,
# `gnuplot sweep.gp` writes sweep.png.
set terminal pngcairo size 960,800 noenhanced
set output 'sweep.png'
set datafile missing '?'

# x, then per scheme (2): window (s), lost (client), window if it is a
# lower bound (window_cut), the model's window p50, p5 and p95, its lost (client)
# p50, p5 and p95; an invalid point has none of the measured ones
$points << EOD
1 0.275540677 166 ? 0.25 0.25 0.25 150 150 150 3.00233528 1691 3.00233528 2.5 2.5 2.5 1650 1600.5 1700
2 ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ?
5 ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ?
EOD

set multiplot layout 2,1 title "steerlab sweep of ttl, lab swp2 (invalid runs left out: ttl=2)"
set grid
set key outside right top
set yrange [0:*]
set xlabel "ttl of the DNS names (s)"
set xrange [0.8:5.2]
set xtics ("1" 1, "2" 2, "5" 5)
set title "failover window: last request to the dead site after t0"
set ylabel "window (s)"
plot $points using 1:2 with linespoints lt 1 pt 7 title "anycast", $points using 1:5 with linespoints lt 1 dt 2 pt 6 title "anycast: the model (p50)", $points using 1:11 with linespoints lt 2 pt 7 title "dns", $points using 1:13 with points lt 2 pt 9 ps 2 title "dns: lower bound (window_cut)", $points using 1:14 with linespoints lt 2 dt 2 pt 6 title "dns: the model (p50)"
set title "requests lost (client timeouts)"
set ylabel "lost requests"
plot $points using 1:3 with linespoints lt 1 pt 7 title "anycast", $points using 1:8 with linespoints lt 1 dt 2 pt 6 title "anycast: the model (p50)", $points using 1:12 with linespoints lt 2 pt 7 title "dns", $points using 1:17 with linespoints lt 2 dt 2 pt 6 title "dns: the model (p50)", $points using 1:17:18:19 with yerrorbars lt 2 ps 0 title "dns: the model's p5-p95"
unset multiplot
