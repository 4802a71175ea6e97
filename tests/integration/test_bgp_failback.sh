#!/usr/bin/env bash
# A recovery under BGP (issue 12, item 7): site a crashed at 1 s (sited, its
# prober and its BGP speaker killed: the session closes) and recovered at
# 3.5 s, in a lab of one router, two sites, an authoritative server and a
# client of both schemes. Each scheme's fail-back clocks are present and in
# the order the way back takes: the recovery, a seen healthy (a's prober;
# authd), a steered to again (its route back in core's FIB; authd handing out
# its address), the first client back, the last client back; every client
# comes back; and the timeline is in clocks.json and report.md. (A restarted
# bgpd's session takes about 2 s to come up again with FRR's defaults: the
# lab's connect retry of 1 s keeps it short.)
# about 14 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-bgpfback
lab_guard $lab
[ -x /usr/lib/frr/bgpd ] || fail "FRR is not installed (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)

cat >"$out/fback.ini" <<EOF2
[lab]
name = $lab
routing = bgp
duration = 9s
# the restarted site's session comes up at the next connect retry
bgp_connect_retry = 1s
[router core]
[site a]
link = core
metric = 10
[site b]
link = core
metric = 20
[dns ns]
link = core
[prober p1]
link = core
[client c1]
link = core
mode = both
resolver = ns
rate = 200
[client c2]
link = core
mode = both
resolver = ns
rate = 200
[event e1]
at = 1s
action = crash
target = a
[event e2]
at = 3500ms
action = recover
target = a
[zone lab.example]
soa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5
ttl = 60
record = @ NS ns.lab.example.
record = ns A 198.18.0.10
[name www.lab.example]
policy = failover
primary = a
secondary = b
ttl = 1
EOF2

r=$out/run
rc=0
run_valid "$r.txt" "$out/fback.ini" -q --set name=$lab --out "$r" || rc=$?
[ $rc = 0 ] || fail "run exited with status $rc: $(tail -20 "$r.txt")"
echo "ok: the run is valid"
for scheme in anycast dns; do
	fb=$(json "$r/clocks.json" ".schemes.$scheme.failback")
	[ "$fb" != null ] || fail "$scheme: no failback object"
	echo "$scheme fail-back: $(jq -c . <<<"$fb")"
	rec=$(jq -r .recovered_s <<<"$fb")
	healthy=$(jq -r .healthy_s <<<"$fb")
	steer=$(jq -r .steer_s <<<"$fb")
	first=$(jq -r .first_client_s <<<"$fb")
	last=$(jq -r .last_client_s <<<"$fb")
	# the recovery is never early, counted from the traffic's start (t0
	# itself may come a few ms late: a fresh-check's crash was applied 1.5
	# ms after its schedule, and R - t0 read 2.4985 s); a loaded machine may
	# wake the lab's timeline late (CI's gate: 4 tests at a time beside the
	# sanitizers' build), and every fail-back clock counts from the
	# recovery as applied
	assert_ge "$(jq -rs '([.[] | select(.event == "event_applied" and .name == "e2") | .t][0] -
		[.[] | select(.event == "traffic_started") | .t][0]) / 1e9' "$r/lab.events.jsonl")" 3.499 \
		"$scheme: recovered 3.5 s after the traffic's start (not earlier)"
	assert_ge "$rec" 2.4 "$scheme: recovered about 2.5 s after t0"
	assert_le "$rec" 3.0 "$scheme: recovered within 0.5 s of its schedule"
	# healthy, steer, first and last are after the recovery (R): a prober
	# needs probes to see the site up again, so healthy comes after R
	assert_gt "$healthy" 0 "$scheme: recovered < healthy (s after the recovery)"
	assert_le "$healthy" "$steer" "$scheme: healthy <= steer"
	# the collector stamps a route when it reads the kernel's notification
	# (the kernel gives none), after the kernel forwards by it: a client's
	# request can be on a's link some microseconds before; a lag past 50 ms
	# would be a stall the run reports (route_monitor_stalled, docs/clocks.md)
	assert_le "$(awk -v s="$steer" 'BEGIN { printf "%.6f", s - 0.05 }')" "$first" \
		"$scheme: steer (less the collector's 50 ms read lag) <= first client back"
	assert_le "$first" "$last" "$scheme: first client <= last client back"
	# a restarted bgpd, its session, its update: about 2 s; 4.5 s under a
	# loaded gate, and the run goes on 5.5 s after the recovery
	assert_le "$last" 4.5 "$scheme: the last client back within 4.5 s of the recovery"
	assert_eq "$(jq -r .clients_back <<<"$fb")" "$(jq -r .clients <<<"$fb")" "$scheme: every client back at a"
done
assert_eq "$(json "$r/clocks.json" '[.timeline[] | .name] | join(",")' | sed 's/^e1,e2$/1/')" 1 \
	"clocks.json's timeline: e1, e2"
# e2's row: the recovery as applied (the clocks' recovered_s, stamped when
# the step began), scheduled at 3.5 s
e2=$(awk -v r="$(json "$r/clocks.json" .schemes.dns.failback.recovered_s)" 'BEGIN { printf "%.3f", r }')
grep -Eq "^\| ${e2//./\\.} *\| *3\.500 \| e2 *\| recover \| a " "$r/report.md" ||
	fail "report.md's timeline has no row for e2 at $e2 s: $(sed -n '/^## Timeline/,/^## Routing/p' "$r/report.md")"
grep -q 'anycast_back_share' "$r/decay.csv" || fail "decay.csv has no fail-back columns"
grep -q 'to a again after its recovery' "$r/decay.gp" || fail "decay.gp draws no fail-back curve"
grep -q 'e2: recover a' "$r/decay.gp" || fail "decay.gp has no marker for e2"
echo "ok: the timeline in clocks.json, report.md and the decay plot; fail-back curves in decay.csv"
assert_no_leftovers $lab "$r"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_bgp_failback"
