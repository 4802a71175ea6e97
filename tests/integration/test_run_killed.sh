#!/usr/bin/env bash
# `steerlab run` SIGKILLed during the traffic, then `steerlab down` of its
# lab: down marks the run interrupted (traffic_stopped "by": "down"), and
# `steerlab report` of its directory exits 3 with the verdict interrupted,
# not a valid run, and not client_behind (issue 19, item 5).
# about 6 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=t19kill
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
run_pid=
trap 'set +e; [ -n "$run_pid" ] && kill -KILL $run_pid 2>/dev/null; lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set duration=6s \
	--set fail_at=1s -q >"$out/run.log" 2>&1 &
run_pid=$!
wait_until 30 has_event "$rundir/lab.events.jsonl" site_failed || fail "no site_failed within 30 s"
sleep 1
kill -KILL $run_pid
wait $run_pid 2>/dev/null || true
run_pid=
$STEERLAB down $lab >"$out/down.log" 2>&1 || { cat "$out/down.log"; fail "down failed"; }
cat "$out/down.log"
grep -q "never finished (its steerlab run was killed?): marked interrupted" "$out/down.log" ||
	fail "down does not say the run never finished"
[ -n "$(jq -c 'select(.event == "traffic_stopped" and .interrupted == true and .by == "down")' \
	"$rundir/lab.events.jsonl")" ] || fail "no traffic_stopped interrupted by down"
echo "ok: down marked the killed run interrupted"
assert_no_leftovers $lab "$rundir"

rc=0
$STEERLAB report "$rundir" >"$out/report.log" 2>&1 || rc=$?
tail -3 "$out/report.log"
[ "$rc" = 3 ] || fail "report of the killed run: exit status $rc, expected 3"
[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "clocks.json says the run is valid"
json "$rundir/clocks.json" '.warnings[] | select(.code == "interrupted") | .message' |
	grep "^steerlab run never finished this run" >/dev/null || fail "no interrupted warning naming the killed run"
json "$rundir/clocks.json" '.warnings[].code' | grep -x client_behind >/dev/null &&
	fail "the killed run is blamed on client_behind: $(jq -c .warnings "$rundir/clocks.json")"
grep -q "INVALID RUN (.*interrupted" "$out/report.log" || fail "the report does not say interrupted"
echo "ok: report exits 3: interrupted, not client_behind"
