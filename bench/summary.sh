#!/usr/bin/env bash
# bench/summary.sh FILE: the table of every ratio and figure the benches
# wrote to FILE (bench/result.sh: ID, bench, what, value, target, verdict),
# with the machine's load, then the same as a row of the history table of
# docs/benchmarks.md ("make bench: the summary"), to paste there.
set -euo pipefail
f=$1
[ -s "$f" ] || { echo "bench/summary: nothing measured ($f is empty)" >&2; exit 1; }
cd "$(dirname "$0")/.."
echo
echo "make bench: every ratio against its target ($(date -u +%Y-%m-%d), $(git describe --always --dirty 2>/dev/null || echo unknown), load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-9s %-52s %10s %10s %s\n' bench "ratio or figure" value target verdict
awk -F'\t' '{ printf "%-9s %-52s %10s %10s %s\n", $2, $3, $4, $5, $6 }' "$f"
awk -F'\t' '$6 == "PASS" { p++ } $6 == "FAIL" { x++ } END { printf "%d PASS, %d FAIL\n", p, x }' "$f"
# the history row: these keys in this order, "-" for one not measured
keys="dns.simple dns.geolocation dns.weighted analysis.tcpdump analysis.tshark load.floor load.cpu
	bgp.withdraw10 bgp.withdraw30 bgp.up60.static bgp.up60.bgp bringup.up
	links.delay.p99 links.jitter.p99"
echo
echo "history row (docs/benchmarks.md, \"make bench: the summary\"):"
row="| $(date -u +%Y-%m-%d) | $(git describe --always --dirty 2>/dev/null || echo unknown) |"
for k in $keys; do
	v=$(awk -F'\t' -v k="$k" '$1 == k { v = $4; if ($6 == "FAIL") v = "**" v "**" } END { print v == "" ? "-" : v }' "$f")
	row="$row $v |"
done
echo "$row $(cut -d' ' -f1 /proc/loadavg) |"
