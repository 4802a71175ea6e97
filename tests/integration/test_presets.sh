#!/usr/bin/env bash
# The presets from published numbers (topology/presets/, issue 26 item 6),
# each run compressed in time as its header says, and each clock measured
# inside the model's interval for the same settings (steerlab model, the
# compressed --set values too): the measurement and the prediction agree,
# or one of them is wrong.
#   1. route53.ini 30 times faster: eight HTTP checkers every second, three
#      failures, quorum 18 % (7 of 8), TTL 2 s, the kill 3 s into the
#      traffic: the probers' cycles are set at the traffic's start (a probe
#      half a second after it), so the model says 2.5 s exactly and the
#      DNS detect must land at it, up to 0.1 s late (measured: 4 ms); c1's
#      last packet to a at the model's 3 s, or up to 0.23 s after (the
#      client's 0.1 s floor on an expired answer, the few ms its first
#      query took: docs/model.md, and the scheduling);
#      then with a second of fail_jitter and the checkers at phases of
#      their own (probe_phase = random, seed 11), both inside the model's
#      bounds;
#   2. ebgp.ini with bfd = yes (BFD's own 300 ms x 3: no compression): the
#      router's FIB leaves a within the model's bounds, 0.672 to 0.972 s;
#   3. resolver-stale.ini with stale_ttl = 5 (a copy: resolverd's keys take
#      no --set), ns back at 8.3 s, 14 s of traffic: the model follows every
#      query through the outage (docs/model.md, "DNS outages"): c1 holds
#      the stale a 5 s from 5.5 s, 7.5 s after t0; c2's SERVFAIL retries
#      reach ns back at 8.5 s, 5.5 s after t0; every upstream query of the
#      model's on ns's link, and no model_disagrees.
# about 65 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-presets
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT

# within V LO HI MSG: LO - 20 ms <= V <= HI + 100 ms: the model's bounds are
# its draws' extremes, and a probe's verdict or a route's change reaches
# the lab's events some ms after the instant the model gives (4 ms on a
# quiet machine; a loaded gate's scheduling stalls have reached 100 ms)
within() {
	local lo hi
	lo=$(awk -v x="$2" 'BEGIN { print x - 0.02 }')
	hi=$(awk -v x="$3" 'BEGIN { print x + 0.1 }')
	assert_ge "$1" "$lo" "$4 (at least the model's $2 - 20 ms)"
	assert_le "$1" "$hi" "$4 (at most the model's $3 + 100 ms)"
}

# ---- route53, 30 times faster ----
r53=(--set name=$lab --set probe_interval=1s --set probe_connect_timeout=133ms
	--set probe_timeout=67ms --set ttl=2 --set duration=9s --set fail_at=3s --set settle=10s)
for jitter in 0s 1s; do
	d=$out/r53-$jitter
	# with jitter, the checkers also at phases of their own (probe_phase =
	# random, Route 53's do not coordinate), drawn from seed 11: the model
	# knows them from the seed
	ph=()
	[ $jitter = 0s ] || ph=(--set probe_phase=random --set seed=11)
	$STEERLAB model topology/presets/route53.ini "${r53[@]}" "${ph[@]}" --set fail_jitter=$jitter \
		--json >"$d.model.json"
	rc=0
	run_valid "$d.log" topology/presets/route53.ini "${r53[@]}" "${ph[@]}" --set fail_jitter=$jitter \
		--out "$d" -q || rc=$?
	[ $rc = 0 ] || { cat "$d.log"; fail "route53: run exited with status $rc (not a valid run)"; }
	m=$d.model.json c=$d/clocks.json
	# 7 of 8 checkers, each's third failure: (3 - 1) to 3 intervals after t0
	assert_eq "$(jq -r '.assumptions[] | select(test("verdict 7 of the 8"))' "$m" | wc -l)" 1 \
		"route53: the model takes 7 of the 8 checkers (quorum 0.18)"
	[ $jitter = 1s ] || assert_eq "$(json "$m" .schemes.dns.detect_s.max)" 2.5 \
		"route53: the model's detect without jitter (s)"
	within "$(json "$c" .schemes.dns.detect_s)" "$(json "$m" .schemes.dns.detect_s.min)" \
		"$(json "$m" .schemes.dns.detect_s.max)" "route53, jitter $jitter: dns detect (s)"
	lo=$(json "$m" '.schemes.dns.last_by_client_s.c1.min')
	hi=$(json "$m" '.schemes.dns.last_by_client_s.c1.max')
	got=$(json "$c" '.schemes.dns.last_by_client_s["100001"]')
	within "$got" "$lo" "$(awk -v w="$hi" 'BEGIN { print w + 0.13 }')" \
		"route53, jitter $jitter: c1's last packet to a (s after t0)"
	echo "ok: route53 compressed, jitter $jitter: detect and c1's last packet inside the model's"
	assert_no_leftovers $lab "$d"
done

# ---- ebgp with BFD 300 ms x 3 (the default settle, 15 s: a session closed at bring-up comes back at the 10 s connect retry) ----
bgp=(--set name=$lab --set bfd=yes --set duration=5s --set e1.at=2s)
$STEERLAB model topology/presets/ebgp.ini "${bgp[@]}" --json >"$out/bgp.model.json"
rc=0
run_valid "$out/bgp.log" topology/presets/ebgp.ini "${bgp[@]}" --out "$out/bgp" -q || rc=$?
# a freeze is seen by no prober of a's own: warnings, even invalidating
# ones, are the run's to say; the clock is judged here
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$out/bgp.log"; fail "ebgp: run exited with status $rc"; }
m=$out/bgp.model.json c=$out/bgp/clocks.json
within "$(json "$c" .schemes.anycast.steer_s)" "$(json "$m" .schemes.anycast.steer_s.min)" \
	"$(json "$m" .schemes.anycast.steer_s.max)" "ebgp with BFD: the route via a leaves core's FIB (s after t0)"
echo "ok: ebgp with BFD: steer inside the model's"
assert_no_leftovers $lab "$out/bgp"

# ---- resolver-stale, stale_ttl 5 s, ns back at 8.3 s ----
sed 's/^stale_recheck = 0s$/stale_recheck = 0s\nstale_ttl = 5/' topology/presets/resolver-stale.ini \
	>"$out/stale.ini"
assert_eq "$(grep -c '^stale_ttl = 5$' "$out/stale.ini")" 1 "stale.ini: stale_ttl = 5 written"
st=(--set name=$lab --set duration=14s --set back.at=8300ms)
$STEERLAB model "$out/stale.ini" "${st[@]}" --json >"$out/stale.model.json"
m=$out/stale.model.json
# resolverd's 10 ms timer at the draws' phases: up to two ticks late
assert_ge "$(json "$m" '.schemes.dns.last_by_client_s.c1.min')" 7.5 "stale: the model's c1 (s after t0)"
assert_le "$(json "$m" '.schemes.dns.last_by_client_s.c1.max')" 7.52 "stale: the model's c1 (s after t0)"
assert_ge "$(json "$m" '.schemes.dns.last_by_client_s.c2.min')" 5.5 "stale: the model's c2 (s after t0)"
assert_le "$(json "$m" '.schemes.dns.last_by_client_s.c2.max')" 5.52 "stale: the model's c2 (s after t0)"
rc=0
run_valid "$out/stale.log" "$out/stale.ini" "${st[@]}" --out "$out/stale" -q || rc=$?
[ $rc = 0 ] || { cat "$out/stale.log"; fail "stale: run exited with status $rc (not a valid run)"; }
c=$out/stale/clocks.json
for k in c1:100001 c2:100002; do
	within "$(json "$c" ".schemes.dns.last_by_client_s[\"${k#*:}\"]")" \
		"$(json "$m" ".schemes.dns.last_by_client_s.${k%:*}.min")" \
		"$(json "$m" ".schemes.dns.last_by_client_s.${k%:*}.max")" "stale: ${k%:*}'s last packet to a (s after t0)"
done
assert_eq "$(json "$c" .schemes.dns.upstream_queries)" "$(json "$m" .schemes.dns.upstream_queries.p50)" \
	"stale: upstream queries on ns's link, the outage's dropped attempts included"
assert_eq "$(jq -r '.schemes.dns.model.outside | length' "$c")" 0 "stale: no clock outside the model's"
echo "ok: resolver-stale: c1 (stale) and c2 (SERVFAIL) inside the model's, upstream as the model's"
assert_no_leftovers $lab "$out/stale"
