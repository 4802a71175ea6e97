#!/usr/bin/env bash
# A 10-second anycast failover, probe interval 100 ms, threshold 3: traffic
# must leave the dead site within detection + 50 ms, client-side and
# capture-side loss must agree, the capture must drop nothing, and nothing of
# the lab may remain afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-anycast
lab_guard $lab
links_before=$(ip -o link show | wc -l)
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set duration=10s \
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
assert_le "$window" "$(awk -v d="$detect" 'BEGIN { print d + 0.05 }')" "window <= detect + 50 ms"
assert_ge "$sent" 9000 "sent about 10000 requests"
assert_gt "$lost_client" 0 "a request was lost: the failure happened"
diff=$(( lost_client > lost_capture ? lost_client - lost_capture : lost_capture - lost_client ))
max=$(( lost_client > lost_capture ? lost_client : lost_capture ))
assert_le "$((diff * 100))" "$max" "lost_client and lost_capture agree within 1 %"
assert_eq "$drops" 0 "capture_drops"
[ -s "$rundir/capture-a.pcap" ] || fail "no capture of site a's link"

assert_no_leftovers $lab "$rundir"
links_after=$(ip -o link show | wc -l)
[ "$links_before" -eq "$links_after" ] || fail "root namespace links: $links_before before, $links_after after"
echo "ok: the root namespace has the links it had"
rm -rf "$out"
