#!/usr/bin/env bash
# A quiet link's capture survives a stalled collector (lib/capring.h): a
# lab client of 800 requests/s (1,600 packets/s on site a's link, with the
# replies) and the collector stopped (SIGSTOP) for 0.25 s during the
# traffic. The ring is the smallest (2 MiB, eight blocks); the kernel hands
# a block over 50 ms after its first packet however full, so eight hold
# 400 ms. With four blocks of 10 ms (the rings before) the same stall
# dropped 272 packets; a loaded gate's collector dropped 6 and made a run
# invalid (capture_drops). The stall is seen (collector_stalled), so the
# test cannot pass without one.
# about 8 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-cstall
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
run_pid= col=
trap 'set +e; [ -n "$col" ] && kill -CONT $col 2>/dev/null
	[ -n "$run_pid" ] && { kill -INT $run_pid 2>/dev/null; wait $run_pid; }
	lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

$STEERLAB run topology/anycast.ini --out "$r" --set name=$lab --set c1.rate=800 \
	--set duration=4s --set fail_at=3s -q >"$out/run.log" 2>&1 &
run_pid=$!
wait_until 30 has_event "$r/lab.events.jsonl" traffic_started ||
	{ cat "$out/run.log"; fail "no traffic_started within 30 s"; }
col=$(awk '$3 == "core" && $4 == "collector" { print $1 }' "$r/agents.tsv")
[ -n "$col" ] || fail "no collector of core in $r/agents.tsv"
sleep 0.5
kill -STOP "$col"
sleep 0.25
kill -CONT "$col"
col=
rc=0
wait $run_pid || rc=$?
run_pid=
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$out/run.log"; fail "run exited with status $rc"; }

ev=$r/core.collector.events.jsonl
stalled=$(jq -r 'select(.event == "collector_stalled") | .stalled_ns / 1e9' "$ev" | sort -n | tail -1)
[ -n "$stalled" ] || fail "no collector_stalled in $ev: the collector was not stopped"
assert_ge "$stalled" 0.2 "the collector's longest stall (s)"
ring=$(jq -r 'select(.event == "capture_ready" and .label == "a") | .buffer' "$ev")
assert_eq "$ring" $((2 << 20)) "site a's ring (bytes)"
jq -r 'select(.event == "capture_stats") | "\(.label) \(.packets) \(.dropped)"' "$ev" >"$out/stats.txt"
cat "$out/stats.txt"
[ "$(wc -l <"$out/stats.txt")" = 2 ] || fail "capture_stats of $(wc -l <"$out/stats.txt") links, not 2"
# a's link carries c1's requests and replies until b takes them at 3 s
assert_gt "$(awk '$1 == "a" { print $2 }' "$out/stats.txt")" 3000 "packets captured on link a"
while read -r label packets dropped; do
	assert_eq "$dropped" 0 "packets the kernel dropped on link $label ($packets captured)"
done <"$out/stats.txt"
codes=$(run_codes "$r")
[[ $codes != *capture_drops* ]] || fail "the verdict found capture drops: $codes"
echo "ok: a stall of $stalled s lost no packet of a 2 MiB ring (codes: ${codes:-none})"
assert_no_leftovers $lab "$r"
