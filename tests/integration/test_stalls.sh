#!/usr/bin/env bash
# A stalled agent makes the run invalid, though each catches up after
# (issue 19, items 3 and 4), each case an anycast run of 5 s failing at 3 s:
# - the router's collector SIGSTOPped from 0.5 s before t0 for 1.8 s reads
#   the route change late. It says it stalled (collector_stalled, and
#   stalled_ns on the route change), and the verdict says steer is not
#   measured twice over: route_monitor_stalled, and steer_after_window from
#   the packets (the last request reached the dead site long before the
#   route "left");
# - the client SIGSTOPped for 1 s across t0 sends its backlog in a burst
#   after (its rate is right): client_stalled names it and the gap.
# steerlab run exits 3 for each.
# about 17 s
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

# stall NODE AGENT AFTER_MS FOR_S: a run whose agent AGENT of NODE is
# SIGSTOPped AFTER_MS into the traffic (from traffic_started's own time
# stamp; t0 is at 3000) for FOR_S seconds; it must exit 3
stall() {
	local node=$1 agent=$2 after=$3 for=$4 started wait_ms rc=0
	rm -rf "$rundir"
	$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set duration=5s \
		--set fail_at=3s -q >"$out/run.log" 2>&1 &
	run_pid=$!
	wait_until 30 has_event "$rundir/lab.events.jsonl" traffic_started ||
		fail "no traffic within 30 s"
	col=$(awk -v n="$node" -v a="$agent" '$3 == n && $4 == a {print $1}' "$rundir/agents.tsv")
	[ -n "$col" ] || fail "no $agent of $node in agents.tsv"
	started=$(jq -r 'select(.event == "traffic_started") | .t' "$rundir/lab.events.jsonl")
	wait_ms=$(((started / 1000000 + after) - $(date +%s%3N)))
	[ "$wait_ms" -gt 0 ] || fail "the test saw traffic_started too late to stop $agent in time"
	sleep "$(awk -v m="$wait_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -STOP "$col"
	sleep "$for"
	kill -CONT "$col"
	col=
	wait $run_pid || rc=$?
	run_pid=
	tail -2 "$out/run.log"
	[ "$rc" = 3 ] || fail "$agent stopped: steerlab run exited $rc, expected 3 (invalid)"
	[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "clocks.json says valid"
	assert_no_leftovers $lab "$rundir"
}

# invalid CODE: clocks.json has CODE, invalidating
invalid() {
	json "$rundir/clocks.json" '.warnings[] | select(.invalidates) | .code' | grep -x "$1" >/dev/null ||
		fail "no invalidating $1: $(jq -c .warnings "$rundir/clocks.json")"
	echo "ok: $1: $(json "$rundir/clocks.json" ".warnings[] | select(.code == \"$1\") | .message" | sed -n 1p | cut -c 1-200)..."
}

# the collector, 0.5 s before t0 (the route leaves ~0.3 s after t0), 1.8 s
stall core collector 2500 1.8
ev=$rundir/core.collector.events.jsonl
stalled=$(jq -r 'select(.event == "collector_stalled") | .stalled_ns' "$ev" | sort -n | tail -1)
assert_ge "$stalled" 1000000000 "the collector's longest collector_stalled, ns"
late=$(jq -r 'select(.event == "route_deleted" or .event == "route_added")
	| select(.prefix == "198.19.0.1/32" and .stalled_ns != null) | .stalled_ns' "$ev" | sed -n 1p)
assert_ge "${late:-none}" 1000000000 "stalled_ns of the route change read after the stall"
invalid route_monitor_stalled
invalid steer_after_window

# the client, from 0.5 s before t0 for 1 s
stall c1 client 2500 1
invalid client_stalled
json "$rundir/clocks.json" '.warnings[] | select(.code == "client_behind")' | grep . >/dev/null &&
	fail "the stalled client is blamed on client_behind"
echo "ok: not client_behind: the client caught up"
