# The plot of a steerlab sweep (docs/sweeps.md): run in this directory,
# `gnuplot sweep.gp` writes sweep.png.
set terminal pngcairo size 960,800 noenhanced
set output 'sweep.png'
set datafile missing '?'

# x, then per scheme (2): window (s), lost (client)
$points << EOD
1 0.275540677 166 3.00233528 1691
2 0.283371344 171 3.0056945 2417
5 ? ? ? ?
EOD

set multiplot layout 2,1 title "steerlab sweep of ttl, lab swp2"
set grid
set key outside right top
set yrange [0:*]
set xlabel "ttl of the DNS names (s)"
set xrange [0.8:5.2]
set xtics ("1" 1, "2" 2, "5" 5)
set title "failover window: last request to the dead site after t0"
set ylabel "window (s)"
plot $points using 1:2 with linespoints pt 7 title "anycast", $points using 1:4 with linespoints pt 7 title "dns"
set title "requests lost (client timeouts)"
set ylabel "lost requests"
plot $points using 1:3 with linespoints pt 7 title "anycast", $points using 1:5 with linespoints pt 7 title "dns"
unset multiplot
