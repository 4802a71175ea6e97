#!/usr/bin/env bash
# A 10-second anycast failover, probe interval 100 ms, threshold 3: the run
# is valid (so client-side and capture-side loss agree: the verdict's
# loss_mismatch), the route leaves the FIB within 50 ms of detection and the
# traffic the dead site within one request interval of that (each plus the
# scheduling slack the clients' records show: sched_slack), the capture
# drops nothing, and nothing of the lab remains afterwards.
# about 11 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-anycast
lab_guard $lab
links_before=$(ip -o link show | wc -l)
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid - topology/anycast.ini --out "$rundir" --set name=$lab --set duration=10s \
	--set fail_at=4s --set probe_interval=100ms --set probe_timeout=50ms --set probe_down=3

clocks=$rundir/clocks.json
[ -s "$clocks" ] || fail "no $clocks"
detect=$(json "$clocks" .schemes.anycast.detect_s)
steer=$(json "$clocks" .schemes.anycast.steer_s)
window=$(json "$clocks" .schemes.anycast.window_s)
lost_client=$(json "$clocks" .schemes.anycast.lost_client)
lost_capture=$(json "$clocks" .schemes.anycast.lost_capture)
drops=$(json "$clocks" .schemes.anycast.capture_drops)
sent=$(json "$clocks" .schemes.anycast.sent)
echo "detect=$detect steer=$steer window=$window sent=$sent lost_client=$lost_client lost_capture=$lost_capture drops=$drops"

for v in "$detect" "$steer" "$window"; do
	[ "$v" != null ] || fail "a clock is missing: detect=$detect steer=$steer window=$window"
done
# 3 failed probes at 100 ms: detection lands between 2 and 4 intervals
# a probe in flight at t0 fails at its timeout: 3 failures take at least
# 2 intervals - 1 timeout
assert_le 0.15 "$detect" "detect is at least 2 probe intervals less a timeout"
assert_le "$detect" 0.45 "detect is within 3 probe intervals + timeout"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$rundir/lab.events.jsonl")
slack=$(sched_slack "$rundir" $((t0 - 1000000000)) $((t0 + 1000000000)))
echo "scheduling slack around t0: $slack s"
assert_le "$steer" "$(awk -v d="$detect" -v s="$slack" 'BEGIN { print d + 0.05 + s }')" \
	"steer <= detect + 50 ms + slack"
# 1000 requests/s: one interval is 1 ms
assert_le "$window" "$(awk -v d="$steer" -v s="$slack" 'BEGIN { print d + 0.001 + s }')" \
	"window <= steer + 1 ms + slack"
assert_ge "$sent" 9000 "sent about 10000 requests"
assert_gt "$lost_client" 0 "a request was lost: the failure happened"
assert_gt "$lost_capture" 0 "a request reached the dead site after t0"
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" '[.warnings[].code] | join(" ")')"
assert_eq "$(json "$clocks" '[.warnings[] | select(.code == "loss_mismatch")] | length')" 0 \
	"loss_mismatch: the clients' and the capture's losses agree"
assert_eq "$drops" 0 "capture_drops"
[ -s "$rundir/capture-a.pcap" ] || fail "no capture of site a's link"

assert_no_leftovers $lab "$rundir"
links_after=$(ip -o link show | wc -l)
[ "$links_before" -eq "$links_after" ] || fail "root namespace links: $links_before before, $links_after after"
echo "ok: the root namespace has the links it had"
rm -rf "$out"
