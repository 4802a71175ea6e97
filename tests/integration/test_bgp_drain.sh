#!/usr/bin/env bash
# A drain on BGP loses nothing (topology/failures.ini, e1 = drain): the
# prober removes the service address from a's lo, bgpd withdraws it, and
# the requests still on their way to a while the withdrawal travels are
# answered all the same (a's local route for the service, AnyIP): the
# anycast clients lose no request, the route leaves the router's FIB
# (steer), and the run is valid. The model agrees (no model_disagrees)
# and says nothing is lost.
# about 9 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-bgpdrain
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

run_valid - topology/failures.ini --set name=$lab --set e1.action=drain --set duration=4s \
	--out "$rundir" --quiet
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" .warnings)"
echo "ok: a valid run"
any=.schemes.anycast
assert_gt "$(json "$clocks" "$any.steer_s")" 0 "a's route left the FIB after the drain (steer)"
assert_eq "$(json "$clocks" "$any.lost_client")" 0 "anycast requests lost in the drain"
assert_gt "$(json "$clocks" "$any.lost_capture")" 0 "requests that reached a after t0, answered"
assert_eq "$(json "$clocks" ".schemes.dns.lost_client")" 0 "DNS requests lost in the drain"
assert_eq "$(json "$clocks" "$any.model.lost_client.max")" 0 "the model's anycast losses"
disagree=$(jq -r '.warnings[] | select(.code == "model_disagrees") | .message' "$clocks")
[ -z "$disagree" ] || fail "model_disagrees: $disagree"
echo "ok: every clock the model predicts within its bounds (no model_disagrees)"
assert_no_leftovers $lab "$rundir"
echo "PASS: a drain on BGP loses nothing"
