#!/usr/bin/env bash
# ECMP and its collateral (topology/tcp-ecmp.ini, issue 25): three sites at
# one metric behind one router, 300 users each with its own TCP connection
# (a population over TCP), hashed by addresses and ports; c killed at 2 s.
# ecmp = hash: when c leaves, the kernel's hash-threshold regions move and
# about a quarter of a's and b's connections move too: the capture counts
# resets of connections opened at a site that did not fail
# (resets_collateral; at least 20 of the about 50 expected: five standard
# deviations below). ecmp = resilient: c's buckets go to a and b and no other
# moves: no collateral, no reset of a flow a site never opened. Either way
# every connection c had is opened again elsewhere, and the route's last
# next hops are a and b. Both runs valid (the verdict reads each next hop of
# a multipath route that left). An invalid run is said and run once more
# (run_valid).
# about 11 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ecmp
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT

for mode in hash resilient; do
	r=$out/$mode
	rc=0
	run_valid "$out/$mode.log" topology/tcp-ecmp.ini --out "$r" --set name=$lab --set ecmp=$mode \
		-q || rc=$?
	[ $rc = 0 ] || { cat "$out/$mode.log"; fail "$mode: run exited with status $rc (not a valid run)"; }
	conn() { json "$r/clocks.json" ".connections.anycast.$1"; }
	hops=$(jq -r 'select(.event == "route_added" and .multipath) | [.nexthops[].dev] | join(",")' \
		"$r/core.collector.events.jsonl" | tail -1)
	[ "$hops" = a,b ] || fail "$mode: the route's last next hops are '$hops', expected a,b"
	on_c=$(conn open_at_t0)
	assert_ge "$on_c" 50 "$mode: connections open on c at t0 (of 300, a third expected)"
	moved=$(conn resets_collateral)
	assert_ge "$(conn opened)" "$((300 + on_c + moved))" "$mode: connections opened, against 300 + c's + the moved ones"
	if [ $mode = hash ]; then
		assert_ge "$moved" 20 "hash: connections moved off a or b and reset"
	else
		assert_eq "$moved" 0 "resilient: connections moved off a or b"
		assert_eq "$(conn resets_unknown_flow)" 0 "resilient: resets of flows a site never opened"
		nhids=$(jq -r 'select(.event == "route_added") | .nhid' "$r/core.collector.events.jsonl" |
			sort -u | grep -v -c null || true)
		assert_eq "$nhids" 1 "resilient: nexthop groups the route pointed at"
	fi
	echo "ok: $mode: $($STEERLAB report "$r" 2>/dev/null | grep '^connections')"
done
assert_no_leftovers $lab "$out/resilient"
