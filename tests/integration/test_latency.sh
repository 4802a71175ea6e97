#!/usr/bin/env bash
# about 8 s
# policy = latency on RTTs the lab measured (topology/latency.ini; issue 24,
# items 5 and 8): sites a and b behind links of 10 ms and 30 ms each way,
# the vantage prober p1 reporting its smoothed RTTs to authd. On the
# packets, c1's requests to a took 20 ms there and back and those to b 60 ms
# (each within max(0.5 ms, 5 %)); authd's answer turned from b (listed first, no
# RTT yet) to a, the lowest RTT, on p1's reports ("rtt from prober p1"),
# before the traffic's start (the warm-up waits for them), and c1 sent to
# a, with no model_disagrees; after the timeline's impair made a's link 60 ms each
# way, authd turned to b on p1's RTTs alone (a never declared dead: its
# 120 ms is under p1's 150 ms probe_timeout) and c1 followed within its TTL
# plus one refresh.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-lat
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

# p50 of the RTT (s) of c1's requests SITE answered, sent in [FROM, TO),
# and their number
p50() {
	awk -F, -v site="$1" -v from="$2" -v to="$3" '/^[0-9]/ && $4 == "ok" && $5 == site &&
		$3 >= from && $3 < to { print $6 }' "$rundir/requests-c1-dns.csv" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.6f %d\n", v[int((NR + 1) / 2)] / 1e9, NR; else print "- 0" }'
}

# the answers authd handed out to the lab's network (p1's vantage): "T
# ADDRESSES REASON" per answer_changed of www
answers() {
	jq -r 'select(.event == "answer_changed" and .name == "www.lab.example.") |
		"\(.t) \(.networks["198.18.0.0/15"] | join(",")) \(.reason)"' "$rundir/ns.authd.events.jsonl"
}

run_valid "$out/run.log" topology/latency.ini --set name=$lab --out "$rundir"
te=$(jq -r 'select(.event == "event_applied" and .name == "slow") | .t' "$rundir/lab.events.jsonl")
[ -n "$te" ] || fail "no event_applied of the impair 'slow' in lab.events.jsonl"
answers | tee "$out/answers.txt"
a_addr=$(awk '$0 ~ / rtt from prober / { print $2; exit }' "$out/answers.txt")
[ -n "$a_addr" ] || fail "authd's answer never changed on an RTT report"
first=$(awk '{ print $2; exit }' "$out/answers.txt")
[ "$first" != "$a_addr" ] || fail "authd's first answer was already the RTT's ($first): nothing was steered"
# before the impair: one change on p1's RTTs, to a; after it, one to b (the
# first answer's site, listed first)
t_to_a=$(awk -v te="$te" -v a="$a_addr" '$1 < te && $2 == a && $0 ~ / rtt from prober p1 to site / { print $1; exit }' "$out/answers.txt")
[ -n "$t_to_a" ] || fail "no answer_changed to $a_addr on p1's RTTs before the impair"
t_to_b=$(awk -v te="$te" -v b="$first" '$1 > te && $2 == b && $0 ~ / rtt from prober p1 to site / { print $1; exit }' "$out/answers.txt")
[ -n "$t_to_b" ] || fail "no answer_changed back to $first on p1's RTTs after the impair"
grep -q '"event":"declared_dead"' "$rundir/p1.prober.events.jsonl" &&
	fail "p1 declared a site dead: the answer moved on health, not on RTTs"
echo "ok: authd answered $first, then $a_addr on p1's RTTs, then $first again $(awk -v a="$t_to_b" -v te="$te" 'BEGIN { printf "%.3f", (a - te) / 1e9 }') s after the impair"
# the warm-up waited for p1's RTTs (docs/topology.md, "Latency steering on
# measured RTTs"): authd answered by them before the traffic began, so the
# run starts in the steady state the model takes (no model_disagrees on the
# steering shares: c1 on b for its first TTL had been one)
ts=$(jq -r 'select(.event == "traffic_started") | .t' "$rundir/lab.events.jsonl")
assert_lt "$t_to_a" "$ts" "authd's turn to a on p1's RTTs, before the traffic's start (ns)"
assert_eq "$(json "$rundir/clocks.json" '[.warnings[] | select(.code == "model_disagrees")] | length')" 0 \
	"model_disagrees warnings"

# on the packets: the RTTs the answers followed, and c1 with them
read -r ra na < <(p50 a "$t_to_a" "$te")
read -r rb nb < <(p50 b 0 "$t_to_a")
echo "c1: to a $ra s ($na requests, before the impair), to b $rb s ($nb, before the RTTs were known)"
assert_ge "$na" 50 "requests a answered between authd's turn to a and the impair"
assert_near "$ra" 0.020 "RTT c1-a"
[ "$nb" = 0 ] || assert_near "$rb" 0.060 "RTT c1-b"
# after the turn back to b, plus the TTL (1 s) and a margin of 0.5 s: no request to a
late=$(awk -F, -v from="$((t_to_b + 1500000000))" '/^[0-9]/ && $3 >= from && $5 == "a"' "$rundir/requests-c1-dns.csv" | wc -l)
read -r rb2 nb2 < <(p50 b "$((t_to_b + 1500000000))" 9e18)
assert_eq "$late" 0 "requests c1 sent to a 1.5 s after authd's turn back to b"
assert_ge "$nb2" 20 "requests b answered after the turn back"
assert_near "$rb2" 0.060 "RTT c1-b after the turn back"
echo "ok: on the packets, c1 went to the lowest RTT and followed it back to b ($nb2 requests, $rb2 s)"
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
