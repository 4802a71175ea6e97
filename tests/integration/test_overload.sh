#!/usr/bin/env bash
# An overloaded lab does not publish clean clocks: a client told to send far
# faster than this machine can (500,000 requests/s; one core sends about
# 200,000) is named with the rate it achieved, and the run is invalid
# (exit 3, "valid": false, client_behind).
# about 3 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-overload
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

rc=0
$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set rate=500000 \
	--set duration=1s --set fail_at=500ms -q >"$out/run.out" 2>&1 || rc=$?
grep -E '^(\*\*\*|  client_behind)' "$out/run.out" | cut -c1-200
[ "$rc" -eq 3 ] || { cat "$out/run.out"; fail "overloaded run: exit status $rc, expected 3"; }
echo "ok: exit status 3"
[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "clocks.json: valid is not false"
msg=$(json "$rundir/clocks.json" '.warnings[] | select(.code == "client_behind") | .message')
[ -n "$msg" ] || fail "clocks.json: no client_behind warning"
echo "$msg" | grep -E '^client 1 \(client on c1\) sent [0-9]+ requests in [0-9.]+ s: [0-9.]+ per s, [0-9.]+ % behind its configured 500000.0 per s' >/dev/null ||
	fail "client_behind does not name the client and its achieved rate: $msg"
achieved=$(echo "$msg" | sed -E 's/.* s: ([0-9.]+) per s.*/\1/')
sent=$(jq -cR 'fromjson? | select(.event == "client_summary") | .sent' "$rundir/c1.client.events.jsonl")
took=$(jq -cR 'fromjson? | select(.event == "client_summary") | .sending_ns' "$rundir/c1.client.events.jsonl")
# the achieved rate is what the client's own counts say
awk -v a="$achieved" -v s="$sent" -v t="$took" 'BEGIN { r = s / (t / 1e9); exit !(a > r * 0.99 && a < r * 1.01) }' ||
	fail "achieved rate $achieved is not sent $sent over sending_ns $took"
assert_le "$achieved" 490000 "the achieved rate is below the configured one"
grep -q '^\*\*\* INVALID RUN' "$out/run.out" || fail "the terminal does not say INVALID RUN"
head -1 "$rundir/report.md" | grep 'INVALID RUN' >/dev/null || fail "report.md does not open with INVALID RUN"
echo "ok: client_behind names client 1 and its achieved rate, $achieved per s; the table and report.md say INVALID RUN"
assert_no_leftovers $lab "$rundir"
