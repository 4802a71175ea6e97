#!/usr/bin/env bash
# bench/bgp/graph.sh writes topologies steerlab accepts: a ring of N links
# in which every router has two, a random graph of N - 1 + N/2 distinct links
# that steerlab check finds connected, the same for the same seed and another
# for another seed; with routing = bgp, MRAI 0 and BFD, which FRR's dry run
# accepts (when FRR is installed). A bad N is refused. No root.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/steerlab-bbgp-graph.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
g=bench/bgp/graph.sh

$g 10 ring static >"$tmp/ring.ini"
bin/steerlab check "$tmp/ring.ini" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "steerlab check refused the ring"; }
[ "$(grep -c '^\[link ' "$tmp/ring.ini")" = 10 ] || fail "a ring of 10 routers: expected 10 links"
for k in $(seq 1 10); do
	[ "$(grep -cE "^\[link (r$k r[0-9]+|r[0-9]+ r$k)\]" "$tmp/ring.ini")" = 2 ] || fail "ring: r$k is not in 2 links"
done
grep -qx 'link = r6' "$tmp/ring.ini" || fail "ring of 10: site b is not on r6, opposite r1"

$g 30 random static 7 >"$tmp/r7.ini"
bin/steerlab check "$tmp/r7.ini" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "steerlab check refused the random graph"; }
[ "$(grep -c '^\[link ' "$tmp/r7.ini")" = 44 ] || fail "a random graph of 30: expected 29 + 15 links"
$g 30 random static 7 | cmp -s - "$tmp/r7.ini" || fail "random graph: seed 7 twice gave two graphs"
$g 30 random static 8 | cmp -s - "$tmp/r7.ini" && fail "random graph: seeds 7 and 8 gave the same graph"

$g 10 ring bgp >"$tmp/bgp.ini"
for key in 'routing = bgp' 'bgp_mrai = 0s' 'bfd = yes'; do
	grep -qx "$key" "$tmp/bgp.ini" || fail "routing = bgp: no '$key'"
done
if [ -x /usr/lib/frr/bgpd ]; then
	bin/steerlab check "$tmp/bgp.ini" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "FRR's dry run refused the BGP ring"; }
fi

rc=0
$g 2 ring bgp >"$tmp/out" 2>"$tmp/err" || rc=$?
[ $rc = 2 ] && grep -qx "graph.sh: N: expected 3..250 routers, got '2'" "$tmp/err" && [ ! -s "$tmp/out" ] ||
	fail "graph.sh 2: expected exit 2 and the range of N, got $rc: $(cat "$tmp/err")"
[ $failed = 0 ] && echo "test_bench_bgp_graph: ok"
exit $failed
