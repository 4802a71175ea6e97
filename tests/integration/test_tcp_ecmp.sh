#!/usr/bin/env bash
# ECMP and its collateral (topology/tcp-ecmp.ini, issue 25): three sites at
# one metric behind one router, eight TCP clients, c killed at 1 s. The
# router hashes by address (ecmp_hash = l3) with the seed 2, so that the
# same flows go the same way every run (the lab writes the seed into the
# router's fib_multipath_hash_seed). ecmp = hash: when c leaves, the
# kernel's hash-threshold regions move, and connections of a and b move
# too: the capture counts resets of connections opened at a site that did
# not fail (resets_collateral, at least 1 with this seed), and more clients
# fail than c had connections. ecmp = resilient: c's buckets go to a and b,
# no other moves: no collateral, no reset of an unknown flow, and the only
# clients that fail are c's. Both runs valid (the verdict reads each next
# hop of a multipath route that left). An invalid run is said and run once
# more (run_valid).
# about 9 s
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
		--set ecmp_hash=l3 --set seed=2 --set e1.at=1s --set duration=3500ms -q || rc=$?
	[ $rc = 0 ] || { cat "$out/$mode.log"; fail "$mode: run exited with status $rc (not a valid run)"; }
	conn() { json "$r/clocks.json" ".connections.anycast.$1"; }
	# the router's route had the three sites as next hops, then a and b
	hops=$(jq -r 'select(.event == "route_added" and .multipath) | [.nexthops[].dev] | join(",")' \
		"$r/core.collector.events.jsonl" | tail -1)
	[ "$hops" = a,b ] || fail "$mode: the route's last next hops are '$hops', expected a,b"
	on_c=$(conn open_at_t0)
	assert_ge "$on_c" 1 "$mode: connections open on c at t0"
	if [ $mode = hash ]; then
		assert_ge "$(conn resets_collateral)" 1 "hash: connections moved off a or b and reset"
		assert_gt "$(conn clients.hit)" "$on_c" "hash: clients that failed, against c's connections"
	else
		assert_eq "$(conn resets_collateral)" 0 "resilient: connections moved off a or b"
		assert_eq "$(conn resets_unknown_flow)" 0 "resilient: resets of flows a site never opened"
		assert_eq "$(conn clients.hit)" "$on_c" "resilient: clients that failed, against c's connections"
		[ "$(jq -r 'select(.event == "route_added") | .nhid' "$r/core.collector.events.jsonl" |
			sort -u | grep -c -v null)" = 1 ] || fail "resilient: the route does not point at one nexthop group"
	fi
	echo "ok: $mode: $(grep '^connections' "$out/$mode.log" 2>/dev/null || $STEERLAB report "$r" 2>/dev/null | grep '^connections')"
done
assert_no_leftovers $lab "$out/resilient"
