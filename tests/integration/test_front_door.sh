#!/usr/bin/env bash
# Front doors (docs/topology.md, "Front doors"; topology/front-door.ini;
# seed 002): us1, us2 announce the US door 198.19.80.1, eu1, eu2 the EU
# door 198.19.81.1; authd hands out a site's door (geolocation: cus's
# resolver the US one, ceu's the EU one). us1 crashes at 2 s (the file says 3:
# the test runs it shorter, 6.5 s): the router's
# hold timer withdraws its route and the US door's requests go to us2, DNS
# keeps the door (clocks.json: dns kept_by us2, steer the FIB's); us2 is
# killed at 4.5 s: the door has no site, cus's requests no route
# (lost_closed_door) until its answer moves to the EU door; ceu loses
# nothing. With ROUTING=bgp (test_front_door_bgp.sh) the same on FRR: each
# site's bgpd announces its door while its prober keeps it on lo. Refused at
# check: the service's address as a door, a site's, PowerDNS beside it.
# about 12 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

routing=${ROUTING:-static}
lab=it-fdoor-${routing:0:1}
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'' EXIT
r=$out/run

run_valid "$out/run.txt" topology/front-door.ini --set name=$lab --set routing=$routing --set pop.at=2s --set region.at=4.5s --set duration=6.5s -q --out "$r" || fail "the run: $(tail -20 "$out/run.txt")"
answers() { jq -r 'select(.event == "dns_answer") | .address' "$r/$1.client-dns.events.jsonl" | sort -u | tr '\n' ' '; }
first() { jq -r 'select(.event == "dns_answer") | .address' "$r/$1.client-dns.events.jsonl" | sed -n 1p; }
[ "$(first cus)" = 198.19.80.1 ] || fail "cus's first answer: $(first cus), not the US door 198.19.80.1"
[ "$(answers ceu)" = "198.19.81.1 " ] || fail "ceu's answers: $(answers ceu), not the EU door 198.19.81.1 alone"
echo "ok: cus given the US door, ceu the EU door"

# the PoP's failure: DNS kept the door, routing moved it to us2
t0=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed" and .site == "us1") | .t')
t1=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed" and .site == "us2") | .t')
[ -n "$t0" ] && [ -n "$t1" ] || fail "no site_failed of us1 and of us2"
kept=$(json "$r/clocks.json" '.schemes.dns.kept_by')
[ "$kept" = us2 ] || fail "the site that kept us1's front door: $kept, not us2"
steer=$(json "$r/clocks.json" '.schemes.dns.steer_s')
if [ "$routing" = bgp ]; then
	# the router's BGP session with us1 (BFD, or its hold timer) took its path out
	assert_le "$steer" 1.0 "us1's steer (its BGP session's end)"
else
	assert_ge "$steer" 0.2 "us1's steer (the route's hold timer, static_hold 600 ms after a refresh)"
	assert_le "$steer" 1.0 "us1's steer"
fi
# static: the route via us1 deleted (us2's, of a higher metric, was there);
# bgp: replaced by one via us2
left=$(jq -r --arg a "$t0" --arg b "$t1" 'select(.prefix == "198.19.80.1/32" and .t > ($a | tonumber) and .t < ($b | tonumber) and ((.event == "route_deleted" and .dev == "us1") or (.event == "route_added" and .dev == "us2"))) | .event' \
	"$r/core.collector.events.jsonl" | wc -l)
assert_ge "$left" 1 "core's route changes of the US door away from us1 between the failures"
moved=$(jq -r --arg a "$t0" --arg b "$t1" 'select(.event == "dns_answer" and .address != "198.19.80.1" and .t > ($a | tonumber) and .t < ($b | tonumber)) | .address' \
	"$r/cus.client-dns.events.jsonl" | wc -l)
assert_eq "$moved" 0 "cus's answers other than the US door between the two failures"
after=$(jq -r '.schemes.dns.captured_after_t0.us2 // 0' "$r/clocks.json")
assert_ge "$after" 500 "requests captured at us2 after us1's failure"
echo "ok: us1 out: the US door kept in DNS, routing moved it to us2 ${steer} s after t0 ($after requests there)"

# the region's failure: the door closed until DNS moved cus to the EU door
t_eu=$(jq -r --arg b "$t1" 'select(.event == "dns_answer" and .address == "198.19.81.1" and .t > ($b | tonumber)) | .t' \
	"$r/cus.client-dns.events.jsonl" | sed -n 1p)
[ -n "$t_eu" ] || fail "cus never given the EU door after us2's failure"
moved_s=$(awk -v a="$t1" -v b="$t_eu" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
assert_le "$moved_s" 2.5 "cus's move to the EU door after us2's failure (detect 0.25 s + TTL 1 s)"
closed=$(jq -r '[.warnings[]? | select(.code == "lost_closed_door")] | length' "$r/clocks.json")
assert_eq "$closed" 1 "lost_closed_door warnings"
grep -m1 'lost_closed_door' "$out/run.txt" || true
assert_eq "$(jq -r 'select(.event == "client_summary") | .lost' "$r/ceu.client-dns.events.jsonl")" 0 "ceu's lost requests"
echo "ok: us2 out: cus on the EU door $moved_s s later, ceu lost nothing"
assert_no_leftovers $lab "$r"

check_refused "a site's address as a front door" "\[site us1\] front_door: 198.19.80.1 is \[site eu2\]'s address" \
	topology/front-door.ini --set eu2.address=198.19.80.1
[ "$routing" = bgp ] && {
	rm -rf "$out"
	echo "PASS: test_front_door (bgp)"
	exit 0
}
check_refused "the service as a front door" "\[site us1\] front_door: 198.19.0.1 is the \[lab\] service's address" \
	topology/front-door.ini --set us1.front_door=198.19.0.1
check_refused "PowerDNS beside front doors" "front_door: \[dns ns\] is impl = pdns" \
	topology/front-door.ini --set ns.impl=pdns
check_left_nothing
rm -rf "$out"
echo "PASS: test_front_door"
