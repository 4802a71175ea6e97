#!/usr/bin/env bash
# A steady-state run (tests/integration/data/steady.ini: no [event], no
# fail = yes) is run, not refused; its analysis writes no failover clock
# and says "steady state: no failure"; the DNS client's requests, counted on
# the site links' packets (tcpdump, by the client's address) and by
# clocks.json's steering, follow the weighted name's weights 50/30/20
# within a binomial bound (4 sigma over authd's answers, the unit a weight
# is handed out per); and the steering's deviation is that of the
# packets. Fails on the code before steady-state runs: run refuses the lab.
# about 7 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-steady
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" tests/integration/data/steady.ini --set name=$lab --out "$rundir" ||
	{ cat "$out/run.log"; fail "steerlab run of a steady-state topology failed"; }
grep -q "steady state: no failure" "$out/run.log" || fail "run does not say steady state"
clocks=$rundir/clocks.json
[ -s "$clocks" ] || fail "no $clocks"
[ "$(json "$clocks" .steady_state)" = true ] || fail "clocks.json: steady_state is not true"
[ "$(json "$clocks" .failure)" = "steady state: no failure" ] || fail "clocks.json: no failure text"
[ "$(json "$clocks" .valid)" = true ] || fail "the steady-state run is not valid: $(run_codes "$rundir")"
# no failover clock, not even a null one
for k in t0_ns failed explain; do
	[ "$(jq "has(\"$k\")" "$clocks")" = false ] || fail "clocks.json has $k"
done
for k in detect_s steer_s window_s last_per_client_s lost_capture; do
	[ "$(jq ".schemes.dns | has(\"$k\")" "$clocks")" = false ] || fail "clocks.json: dns has $k"
done
grep -q "^Steady state: no failure" "$rundir/report.md" || fail "report.md does not say steady state"
grep -q "^## Steering" "$rundir/report.md" || fail "report.md has no steering table"
echo "ok: steady state said, no failover clock written, valid"

# the client's requests on the site links' packets
addr=$(jq -r '.nodes[] | select(.name == "c1") | .link.address' "$rundir/plan.json")
[ -n "$addr" ] && [ "$addr" != null ] || fail "no address of c1 in plan.json"
declare -A pk
total=0
for s in a b c; do
	pk[$s]=$(tcpdump -nr "$rundir/capture-$s.pcap" "src host $addr and udp dst port 7000" 2>/dev/null | wc -l)
	total=$((total + pk[$s]))
done
# the answers authd handed out: the draws of the weights
res=$(json "$clocks" .steering.upstream_queries)
[ "$total" -ge 1500 ] || fail "only $total requests captured"
[ "$res" -ge 1000 ] || fail "only $res answers from authd"
dev=0
for s in a b c; do
	w=$(json "$clocks" ".steering.groups[] | select(.scheme == \"dns\") | .target.$s")
	share=$(awk -v n="${pk[$s]}" -v t=$total 'BEGIN { printf "%.6f", n / t }')
	js=$(json "$clocks" ".steering.groups[] | select(.scheme == \"dns\") | .share.$s")
	jn=$(json "$clocks" ".steering.groups[] | select(.scheme == \"dns\") | .captured.$s")
	[ "$jn" = "${pk[$s]}" ] || fail "site $s: clocks.json counts $jn requests, tcpdump ${pk[$s]}"
	bound=$(awk -v w="$w" -v n="$res" 'BEGIN { printf "%.6f", 4 * sqrt(w * (1 - w) / n) }')
	echo "site $s: ${pk[$s]} of $total requests, share $share (clocks.json $js), weight $w, bound ±$bound"
	assert_le "$(awk -v a="$share" -v w="$w" 'BEGIN { d = a - w; print d < 0 ? -d : d }')" "$bound" \
		"site $s's share is within the binomial bound of its weight"
	dev=$(awk -v d="$dev" -v a="$share" -v w="$w" 'BEGIN { x = a - w; print d + (x < 0 ? -x : x) / 2 }')
done
jdev=$(json "$clocks" '.steering.groups[] | select(.scheme == "dns") | .deviation')
assert_le "$(awk -v a="$dev" -v b="$jdev" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" 0.0005 \
	"clocks.json's deviation $jdev is the packets' $dev"
[ "$(json "$clocks" '.steering.groups[] | select(.scheme == "dns") | .records_disagreement')" = 0 ] ||
	fail "the clients' records and the captures disagree"
echo "ok: shares on the packets follow the weights; deviation $jdev"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
