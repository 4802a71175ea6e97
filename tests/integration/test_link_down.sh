#!/usr/bin/env bash
# A cut link beside its model (topology/failures.ini, e1 = link-down;
# docs/model.md, "Ways to fail"): the veth between a and core goes down at
# t0. Nothing reaches a after it (both windows about 0: the packets in
# flight); the router's BGP session with a ends with the link and its
# bgpd and zebra put b's route in (steer about 72 ms), the anycast requests
# of that time lost on the way; the vantage points' probes go unanswered,
# so DNS steers after three probe timeouts (0.30 s) and its clients lose
# every request until their 2 s TTL runs out. Every clock lies within the
# model's interval (no model_disagrees), and the model said so before
# the run: lost requests but no window.
# about 10 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-linkdown
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run
sets=(--set name=$lab --set e1.action=link-down --set duration=4s)

# the prediction, before anything is built
$STEERLAB model topology/failures.ini "${sets[@]}" --json >"$out/model.json"
[ "$(jq -r .failed.how "$out/model.json")" = link-down ] || fail "the model's failure: $(jq -r .failed.how "$out/model.json")"
assert_eq "$(jq -r .schemes.anycast.window_s.max "$out/model.json")" 0 "the model's anycast window"
assert_gt "$(jq -r .schemes.anycast.lost_client.p50 "$out/model.json")" 0 "the model's anycast losses"

run_valid - topology/failures.ini "${sets[@]}" --out "$rundir" --quiet
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" .warnings)"
echo "ok: a valid run"
any=.schemes.anycast
dns=.schemes.dns
# t0 is the instant before the step; the link is down once the step is
# done (both ends set down from steerlab: a loaded machine took 14 ms)
took=$(jq -r 'select(.event == "event_applied" and .name == "e1") | (.done_ns - .t) / 1e9' \
	"$rundir/lab.events.jsonl")
until_down=$(awk -v x="$took" 'BEGIN { print x + 0.01 }')
assert_lt "$(json "$clocks" "$any.window_s")" "$until_down" "anycast's window: nothing reaches a once the link is down ($took s after t0)"
assert_lt "$(json "$clocks" "$dns.window_s")" "$until_down" "dns's window: nothing reaches a once the link is down ($took s after t0)"
assert_gt "$(json "$clocks" "$any.steer_s")" 0.03 "b's route in after the session's end (steer)"
assert_lt "$(json "$clocks" "$any.steer_s")" 0.2 "b's route in after the session's end (steer)"
assert_gt "$(json "$clocks" "$any.lost_client")" 0 "anycast requests lost on the way"
assert_gt "$(json "$clocks" "$dns.lost_client")" 1500 "DNS requests lost until the TTL ran out"
for s in anycast dns; do
	for k in steer_s lost_client; do
		[ "$(json "$clocks" ".schemes.$s.model.$k.p50")" != null ] ||
			fail "$s: no model of $k beside the measurement"
	done
done
disagree=$(jq -r '.warnings[] | select(.code == "model_disagrees") | .message' "$clocks")
[ -z "$disagree" ] || fail "model_disagrees: $disagree"
echo "ok: every clock the model predicts within its bounds (no model_disagrees)"
assert_no_leftovers $lab "$rundir"
echo "PASS: a cut link beside its model"
