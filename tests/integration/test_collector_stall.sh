#!/usr/bin/env bash
# A route monitor that falls behind makes the run invalid (issue 19, item 3):
# the router's collector is SIGSTOPped from just before the failure for
# 1.5 s, so it reads the route change late. The collector says it stalled
# (collector_stalled, and stalled_ns on the route change), and the verdict
# says steer is not measured twice over: route_monitor_stalled, and
# steer_after_window from the packets (the last request reached the dead
# site long before the route "left"); steerlab run exits 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=t19stall
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
run_pid= col=
trap 'set +e; [ -n "$col" ] && kill -CONT $col 2>/dev/null
	[ -n "$run_pid" ] && { kill -INT $run_pid 2>/dev/null; wait $run_pid; }
	lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set duration=4s \
	--set fail_at=2s -q >"$out/run.log" 2>&1 &
run_pid=$!
wait_until 30 has_event "$rundir/lab.events.jsonl" traffic_started || fail "no traffic within 30 s"
col=$(awk '$3 == "core" && $4 == "collector" {print $1}' "$rundir/agents.tsv")
[ -n "$col" ] || fail "no collector of core in agents.tsv"
# stopped 1.5 s into the traffic (0.5 s before t0; the route leaves ~0.3 s
# after t0), counted from traffic_started's own time stamp
started=$(jq -r 'select(.event == "traffic_started") | .t' "$rundir/lab.events.jsonl")
wait_ms=$(((started / 1000000 + 1500) - $(date +%s%3N)))
[ "$wait_ms" -gt 0 ] || fail "the test saw traffic_started too late to stop the collector before t0"
sleep "$(awk -v m="$wait_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
kill -STOP "$col"
sleep 1.8
kill -CONT "$col"
col=
rc=0
wait $run_pid || rc=$?
run_pid=
tail -4 "$out/run.log"
[ "$rc" = 3 ] || fail "steerlab run exited $rc, expected 3 (invalid)"
ev=$rundir/core.collector.events.jsonl
stalled=$(jq -r 'select(.event == "collector_stalled") | .stalled_ns' "$ev" | sort -n | tail -1)
assert_ge "$stalled" 1000000000 "the collector's longest collector_stalled, ns"
late=$(jq -r 'select(.event == "route_deleted" or .event == "route_added")
	| select(.prefix == "198.19.0.1/32" and .stalled_ns != null) | .stalled_ns' "$ev" | head -1)
assert_ge "${late:-none}" 1000000000 "stalled_ns of the route change read after the stall"
for code in route_monitor_stalled steer_after_window; do
	json "$rundir/clocks.json" '.warnings[] | select(.invalidates) | .code' | grep -qx $code ||
		fail "no invalidating $code: $(jq -c .warnings "$rundir/clocks.json")"
	echo "ok: $code: $(json "$rundir/clocks.json" ".warnings[] | select(.code == \"$code\") | .message" | head -c 160)..."
done
[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "clocks.json says valid"
assert_no_leftovers $lab "$rundir"
