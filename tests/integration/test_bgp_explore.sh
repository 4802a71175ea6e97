#!/usr/bin/env bash
# Path exploration on real BGP (topology/bgp-explore.ini: four transit ASes
# in a ring, a primary site a on t1, a backup b on t3 that prepends): when a
# withdraws, the routers that reached a through a neighbour first take a
# path that still leads to a before they settle on b. The FIB clocks must
# show it: every router changed after t0, at least one more than once
# (path_exploration), convergence is the last router's final change, both
# clients move from a to b, the run is valid and nothing remains. Then
# with an advertisement interval of 1 s (bgp_mrai): the warm-up waits for
# held updates (a valid run, no healthy_route_withdrawn), and every clock
# lies within the model's interval, which plays FRR's interval on the
# monotonic clock's whole seconds (docs/model.md, "The advertisement
# interval"): t2's second update to t1 held, c1's requests lost on the way.
# about 22 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-explore
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

run_valid - topology/bgp-explore.ini --set name=$lab --out "$rundir" --quiet
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" .warnings)"
echo "ok: a valid run"

fib=.schemes.anycast.fib
assert_eq "$(json "$clocks" "$fib.routers_changed")" 4 "routers whose route changed after t0"
explored=$(json "$clocks" "$fib.path_exploration | length")
assert_ge "$explored" 1 "routers that changed more than once (path exploration: $(json "$clocks" "$fib.path_exploration | join(\" \")"))"
for r in $(json "$clocks" "$fib.path_exploration[]"); do
	assert_ge "$(json "$clocks" "$fib.routers.$r.changes")" 2 "$r's changes"
done
last=$(json "$clocks" "[$fib.routers[].final_s] | max")
assert_eq "$(json "$clocks" "$fib.convergence_s")" "$last" "convergence is the last router's final change"
for r in t1 t2 t3 t4; do
	[ "$(json "$clocks" "$fib.routers.$r.before.site")" = a ] || fail "$r did not route to a before t0"
	[ "$(json "$clocks" "$fib.routers.$r.after.site")" = b ] || fail "$r does not route to b after"
done
echo "ok: every router went from a to b"
for c in c1 c4; do
	[ "$(json "$clocks" ".schemes.anycast.catchments[] | select(.node == \"$c\") | \"\(.before.site) \(.after.site)\"")" = "a b" ] ||
		fail "$c's catchment: $(json "$clocks" ".schemes.anycast.catchments[] | select(.node == \"$c\")")"
done
echo "ok: both clients' catchments moved from a to b"
assert_no_leftovers $lab "$rundir"
echo "ok: path exploration"

run_model_agrees "$out/mrai.txt" "$out/mrai" topology/bgp-explore.ini --set name=$lab --set bgp_mrai=1s
grep -i 'warning' "$out/mrai.txt" || true
assert_no_leftovers $lab "$out/mrai"
echo "PASS: path exploration, and with an advertisement interval"
