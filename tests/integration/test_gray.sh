#!/usr/bin/env bash
# about 7 s
# Impairments that change while the lab runs, and gray failures
# (topology/gray.ini; docs/topology.md, "Distance"; docs/clocks.md, "Gray
# failures"). One run: at 2 s the timeline's impair makes site a's link 40 ms
# each way instead of 10 ms; on the packets, the clients' requests to a took
# 20 ms there and back before the event and 80 ms after it, each within
# max(0.5 ms, 5 %); p1, whose probe_timeout is 60 ms, declared a dead after
# the event, and the run's detect is a number (a gray failure detected).
# Then `steerlab impair` on a lab that is up: ping's RTT follows it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-gray
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

# p50 of the RTT (s) of c1's requests a answered, sent in [FROM, TO) and
# answered before TO
p50() {
	awk -F, -v from="$1" -v to="$2" '/^[0-9]/ && $4 == "ok" && $5 == "a" && $3 >= from &&
		$3 + $6 < to { print $6 }' "$rundir/requests-c1-dns.csv" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.6f %d\n", v[int((NR + 1) / 2)] / 1e9, NR }'
}

run_valid "$out/run.log" topology/gray.ini --set name=$lab --set duration=4s --out "$rundir"
[ "$(json "$rundir/clocks.json" .valid)" = true ] || fail "the run is not valid: $(run_codes "$rundir")"
te=$(jq -r 'select(.event == "event_applied" and .name == "slow") | .t' "$rundir/lab.events.jsonl")
[ -n "$te" ] || fail "no event_applied of the impair 'slow' in lab.events.jsonl"
n=$(jq -r 'select(.event == "link_impaired" and .name == "slow") | .impairment' "$rundir/lab.events.jsonl" |
	grep -cx 'delay 40ms')
assert_eq "$n" 2 "link_impaired of both directions of a core, at delay 40ms"
read -r before nb < <(p50 0 "$te")
read -r after na < <(p50 "$((te + 50000000))" 9e18)
echo "c1 to a: RTT p50 $before s before the impair ($nb requests), $after s after ($na)"
assert_ge "$nb" 100 "requests a answered before the impair"
assert_ge "$na" 20 "requests a answered after the impair"
assert_near "$before" 0.020 "RTT before the impair"
assert_near "$after" 0.080 "RTT after the impair"
echo "ok: on the packets, the delay changed at the event (20 ms, then 80 ms there and back)"

dead=$(jq -r --arg te "$te" 'select(.event == "declared_dead" and .site == "a" and .t > ($te | tonumber)) | .t' \
	"$rundir/p1.prober.events.jsonl" | sed -n 1p)
[ -n "$dead" ] || fail "p1 did not declare a dead after the impair (probe_timeout 60ms, path 80ms)"
detect=$(json "$rundir/clocks.json" .schemes.dns.detect_s)
is_number "$detect" || fail "clocks.json: no detect for the gray failure: '$detect'"
grep -q "gray failure: site a's link was impaired" "$rundir/report.md" || fail "report.md does not say the failure was gray"
echo "ok: p1 declared the slow site dead $(awk -v d="$dead" -v t="$te" 'BEGIN { printf "%.3f", (d - t) / 1e9 }') s after the impair; detect $detect s"
assert_no_leftovers $lab "$rundir"

# steerlab impair on a lab that is up: ping from c1 to a follows it
$STEERLAB up tests/integration/data/distance.ini --set name=$lab --out "$out/up" >"$out/up.log" 2>&1 ||
	fail "up: $(cat "$out/up.log")"
# the minimum of 5: the path's delay; the mean adds whatever the scheduler
# added to one reply on a loaded machine (CI: 2.9 ms over 30 in one ping)
ping_rtt() {
	ip netns exec $lab-c1 ping -n -c 5 -i 0.05 -q 198.18.0.2 |
		awk '/^rtt/ { split($0, a, " = "); split(a[2], v, "/"); printf "%.6f\n", v[1] / 1000 }'
}
r1=$(ping_rtt)
$STEERLAB impair $lab c1 core delay=25ms >"$out/impair.txt" || fail "impair: $(cat "$out/impair.txt")"
r2=$(ping_rtt)
echo "ping c1 to a: $r1 s, then $r2 s after steerlab impair $lab c1 core delay=25ms"
assert_near "$r1" 0.030 "ping RTT before steerlab impair"
assert_near "$r2" 0.050 "ping RTT after steerlab impair"
has_event "$out/up/lab.events.jsonl" link_impaired || fail "no link_impaired in lab.events.jsonl"
# a direction the delay line does not delay: refused, naming the fix
if [ "$(bin/linkd -M 2>/dev/null)" = delayline ]; then
	rc=0
	$STEERLAB impair $lab a core delay=5ms 2>"$out/refused.txt" || rc=$?
	[ "$rc" = 1 ] || fail "impair of a core (not impaired at bring-up): exit $rc, expected 1"
	grep -qF "a>core: no linkd delays eth0 of a" "$out/refused.txt" || fail "refusal: $(cat "$out/refused.txt")"
fi
echo "ok: steerlab impair changed the RTT of a lab that is up"
$STEERLAB down $lab >/dev/null 2>&1 || fail "down"
assert_no_leftovers $lab "$out/up"
rm -rf "$out"
echo "ok: test_gray"
