#!/usr/bin/env bash
# A run whose output sits on a full disk (a 2 MiB tmpfs, filled by 10,000
# requests a second): the collector must name the file and the error
# ("capture-a.pcap: No space left on device") in its log and in a
# capture_error event, count in capture_stats only the packets it wrote,
# and the run must say it cannot be trusted: exit status 3 with clocks.json
# ("valid": false, capture_write_error) in the room the run kept for its
# analysis, or 4 naming the file it could not write; with nothing of the
# lab left behind, and `steerlab report` of it later agreeing (exit 3).
# about 6 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=${IT_PREFIX:-it}-enospc
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
disk=$out/disk
mkdir "$disk"
mount -t tmpfs -o size=2m tmpfs "$disk"
trap 'lab_cleanup $lab; umount "$disk"; rm -rf "$out"' EXIT
rundir=$disk/run

rc=0
$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set duration=5s \
	--set fail_at=2s --set rate=10000 --quiet >"$out/run.log" 2>&1 || rc=$?
echo "--- steerlab run exited $rc"
tail -5 "$out/run.log"
df -k "$disk" | tail -1

ev=$rundir/core.collector.events.jsonl
log=$rundir/core.collector.log
[ -s "$ev" ] || fail "no collector events: $(ls -la "$rundir")"
echo "--- the collector's capture events"
grep -E '"event":"capture_(error|stats)"' "$ev" || true
grep -E 'No space left on device' "$log" || true
jq -se 'any(.[]; .event == "capture_error" and .errno == 28
	and .error == "No space left on device" and (.file | test("/capture-[a-z]+\\.pcap$")))' \
	"$ev" >/dev/null || fail "no capture_error naming a capture file and ENOSPC"
echo "ok: a capture_error event names the file and No space left on device"
grep -qE 'capture-[a-z]+\.pcap: No space left on device' "$log" ||
	fail "the collector's log does not name the file and the error: $(cat "$log")"
echo "ok: the collector's log names the file and the error"
# written counts what the file holds: less than what was captured
label=$(jq -r 'select(.event == "capture_error") | .label' "$ev" | sed -n 1p)
written=$(jq -r --arg l "$label" 'select(.event == "capture_stats" and .label == $l) | .written' "$ev")
packets=$(jq -r --arg l "$label" 'select(.event == "capture_stats" and .label == $l) | .packets' "$ev")
assert_lt "$written" "$packets" "capture $label: capture_stats written < packets"
in_file=$(tcpdump -nn -r "$rundir/capture-$label.pcap" 2>/dev/null | wc -l)
[ "$in_file" = "$written" ] || fail "capture-$label.pcap holds $in_file packets, capture_stats says $written"
echo "ok: capture-$label.pcap holds the $written packets capture_stats says were written (of $packets)"

# the verdict (docs/clocks.md): the run was measured and cannot be trusted:
# exit 3 with clocks.json saying why (the run keeps room for it), or 4 if
# even that could not be written, the file named (README, "Exit status")
case $rc in
3)
	[ -s "$rundir/clocks.json" ] || fail "steerlab run exited 3 but wrote no clocks.json"
	[ "$(json "$rundir/clocks.json" .valid)" = false ] ||
		fail "clocks.json does not say valid false: $(head -c 400 "$rundir/clocks.json")"
	jq -e '[.warnings[] | select(.code == "capture_write_error" and .invalidates)] | length > 0' \
		"$rundir/clocks.json" >/dev/null ||
		fail "clocks.json has no capture_write_error: $(jq -c .warnings "$rundir/clocks.json")"
	echo "ok: steerlab run exited 3; clocks.json says valid false, capture_write_error"
	;;
4)
	grep -q "steerlab: report: $rundir/[a-z.]*: cannot .*No space left on device (ENOSPC) (the tables above are complete; free some space" \
		"$out/run.log" || fail "exit 4 without naming the file and ENOSPC: $(tail -3 "$out/run.log")"
	echo "ok: steerlab run exited 4, naming the file it could not write"
	;;
*)
	fail "steerlab run exited $rc on a full disk, expected 3 (invalid, clocks.json written) or 4 (not saved)"
	;;
esac
[ -e "$rundir/.analysis-reserve" ] && fail "the room kept for the analysis is still there"
assert_no_leftovers $lab "$rundir"

# with room again, `steerlab report` recomputes the verdict from the files
# the run left: the capture_error events make it invalid (exit 3)
mount -o remount,size=64m "$disk"
rc=0
$STEERLAB report "$rundir" >"$out/report.log" 2>&1 || rc=$?
echo "--- steerlab report exited $rc"
[ -s "$rundir/clocks.json" ] || { cat "$out/report.log"; fail "steerlab report wrote no clocks.json"; }
[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "the report says the run is valid"
jq -e '[.warnings[] | select(.code == "capture_write_error")] | length > 0' \
	"$rundir/clocks.json" >/dev/null || fail "no capture_write_error warning: $(jq -c .warnings "$rundir/clocks.json")"
[ "$rc" = 3 ] || fail "steerlab report exited $rc, expected 3 (an invalid run)"
echo "ok: the report says valid false (capture_write_error) and exits 3"
