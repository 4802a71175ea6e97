#!/usr/bin/env bash
# The progress line follows the packets (docs/sweeps.md, "Progress"): during
# a run the collector writes capture_progress at most 200 ms apart, and the
# first one that shows anycast leaving the dead site a (its first request
# captured on b's link after t0) comes within 0.3 s of that packet, less the
# progress tick (100 ms) the line adds at most. The plain lines (standard
# output not a terminal) fit 80 columns and show both schemes whole.
# about 7 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

BUILD=${BUILD:-build/release}
capdump=$BUILD/tools/capdump
[ -x "$capdump" ] || make -s "$capdump" >/dev/null
lab=it-prg
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
run=$out/run

rc=0
run_valid "$out/run.log" tests/integration/data/compare.ini --set name=$lab --set duration=5s \
	--set fail_at=2s --out "$run" || rc=$?
[ $rc = 0 ] || { cat "$out/run.log"; fail "steerlab run exited $rc"; }
ev=$run/core.collector.events.jsonl
has_event "$ev" capture_progress || fail "no capture_progress in $ev"

# the plain progress lines: at most 80 columns, both schemes, numbers whole
lines=$(grep -c '^steerlab: \[' "$out/run.log" || true)
[ "$lines" -ge 2 ] || { cat "$out/run.log"; fail "fewer than 2 progress lines"; }
wide=$(grep '^steerlab: \[' "$out/run.log" | awk 'length($0) > 80' || true)
[ -z "$wide" ] || fail "progress lines wider than 80 columns: $wide"
grep '^steerlab: \[observing\]' "$out/run.log" | grep -E 'any(cast)? ([0-9]+%|-).* dns ([0-9]+%|-)' >/dev/null ||
	{ cat "$out/run.log"; fail "no observing line with both schemes"; }
echo "ok: $lines plain progress lines, all within 80 columns, e.g.:"
grep '^steerlab: \[observing\]' "$out/run.log" | tail -1

# capture_progress during the traffic: at most 200 ms apart
start=$(jq -r 'select(.event == "traffic_started") | .t' "$run/lab.events.jsonl")
stop=$(jq -r 'select(.event == "traffic_stopped") | .t' "$run/lab.events.jsonl")
t0=$(jq -r 'select(.event == "site_failed") | .t' "$run/lab.events.jsonl")
is_number "$start" && is_number "$stop" && is_number "$t0" || fail "no traffic_started, traffic_stopped or site_failed"
gap=$(jq -r --argjson a "$start" --argjson b "$stop" \
	'select(.event == "capture_progress" and .t >= $a and .t <= $b) | .t' "$ev" |
	awk 'NR > 1 && $1 - prev > max { max = $1 - prev } { prev = $1; n++ }
	     END { if (n < 10) print "few"; else printf "%.3f\n", max / 1e9 }')
[ "$gap" != few ] || fail "fewer than 10 capture_progress events during the traffic"
assert_le "$gap" 0.2 "the longest gap between capture_progress events (s)"
echo "ok: capture_progress during the traffic at most $gap s apart"

# anycast's first request on b after t0 (client ids 1..99999), from the pcap
tb=$("$capdump" "$run" | awk -v t0="$t0" '$1 == "b" && $2 > 0 && $2 < 100000 && $4 > t0 &&
	(min == "" || $4 < min) { min = $4 } END { print min }')
is_number "$tb" || fail "no anycast request reached b after t0"
# the first capture_progress counting more anycast requests on b than the
# last one before that packet
te=$(jq -r 'select(.event == "capture_progress") | "\(.t) \(.links.b.anycast)"' "$ev" |
	awk -v tb="$tb" '$1 <= tb { base = $2; next } $2 > base && te == "" { te = $1 } END { print te }')
is_number "$te" || fail "no capture_progress shows anycast reaching b"
lag=$(awk -v a="$tb" -v b="$te" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
assert_le "$lag" 0.2 "capture_progress after anycast's first packet to b (s)"
echo "ok: anycast moved at $(awk -v a="$tb" -v t="$t0" 'BEGIN { printf "%.3f", (a - t) / 1e9 }') s after t0; capture_progress showed it $lag s later (the line: at most 0.1 s more)"
assert_no_leftovers $lab "$run"
rm -rf "$out"
echo "PASS: test_progress_live"
