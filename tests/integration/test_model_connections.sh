#!/usr/bin/env bash
# TCP clients through a kill beside their model (topology/failures.ini,
# proto = tcp, static routing; docs/model.md, "Connections"): a's kernel
# closes the connections at t0 and refuses the new ones, so no request
# reaches a after t0 and none is lost; each fails at once (an error) until
# the client reconnects elsewhere: anycast at the backoff's 0.3 s (the
# route left at 0.25 s), DNS at 2.5 s (its 2 s TTL ran out at 2.0 s, the
# attempts at 0, 0.1, 0.3, 0.7, 1.5, 2.5 s). The errors lie within the
# model's interval, and so does every other clock (no model_disagrees).
# about 8 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-modeltcp
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

run_valid - topology/failures.ini --set name=$lab --set e1.action=kill --set proto=tcp \
	--set routing=static --set duration=5s --out "$rundir" --quiet
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" .warnings)"
echo "ok: a valid run"
for s in anycast dns; do
	m=$(json "$clocks" ".schemes.$s.model.errors.p50")
	[ "$m" != null ] || fail "$s: no model of the errors"
	e=$(json "$clocks" ".schemes.$s.errors")
	echo "$s: $e errors, the model's $m"
	assert_gt "$e" 0 "$s: requests refused while the clients were on a"
	assert_eq "$(json "$clocks" ".schemes.$s.lost_client")" 0 "$s: requests lost"
done
# 0.3 s and 2.5 s at 1000/s, and the kill's own return on a loaded machine
# (the model draws the failure within it: a gate's run gave 302.7)
m=$(json "$clocks" ".schemes.anycast.model.errors.p50")
assert_ge "$m" 300 "the model's anycast errors (0.3 s at 1000/s)"
assert_lt "$m" 320 "the model's anycast errors (0.3 s at 1000/s, the kill's delay)"
m=$(json "$clocks" ".schemes.dns.model.errors.p50")
assert_ge "$m" 2500 "the model's DNS errors (2.5 s at 1000/s)"
assert_lt "$m" 2520 "the model's DNS errors (2.5 s at 1000/s, the kill's delay)"
disagree=$(jq -r '.warnings[] | select(.code == "model_disagrees") | .message' "$clocks")
[ -z "$disagree" ] || fail "model_disagrees: $disagree"
echo "ok: every clock the model predicts within its bounds (no model_disagrees)"
assert_no_leftovers $lab "$rundir"
echo "PASS: TCP clients through a kill beside their model"
