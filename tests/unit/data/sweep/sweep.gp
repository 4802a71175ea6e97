# The plot of a steerlab sweep (docs/sweeps.md): run in this directory,
# `gnuplot sweep.gp` writes sweep.png.
set terminal pngcairo size 960,800 noenhanced
set output 'sweep.png'
set datafile missing '?'

# x, then per scheme (2): window (s), lost (client), window if it is a
# lower bound (window_cut); an invalid point has none of them
$points << EOD
1 0.275540677 166 ? 3.00233528 1691 3.00233528
2 ? ? ? ? ? ?
5 ? ? ? ? ? ?
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
plot $points using 1:2 with linespoints lt 1 pt 7 title "anycast", $points using 1:5 with linespoints lt 2 pt 7 title "dns", $points using 1:7 with points lt 2 pt 9 ps 2 title "dns: lower bound (window_cut)"
set title "requests lost (client timeouts)"
set ylabel "lost requests"
plot $points using 1:3 with linespoints lt 1 pt 7 title "anycast", $points using 1:6 with linespoints lt 2 pt 7 title "dns"
unset multiplot
