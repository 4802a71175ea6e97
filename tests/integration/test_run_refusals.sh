#!/usr/bin/env bash
# A run stopped by Ctrl-C is analysed and reported as interrupted (exit 3,
# traffic_stopped interrupted); `run --out` of that directory is refused
# and leaves it byte for byte as it was. (A topology with no failing site
# is a steady-state run now: test_steady.sh.)
# about 4 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-refusals
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
run_pid=
# set +e: the run's own exit status must not end the cleanup
trap 'set +e; if [ -n "$run_pid" ]; then kill -INT "$run_pid" 2>/dev/null; wait "$run_pid"; fi
	lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

# (b) SIGINT one second after t0 of a 20 s run
$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab --set duration=20s \
	--set fail_at=2s -q >"$out/run.out" 2>&1 &
run_pid=$!
wait_until 30 has_event "$rundir/lab.events.jsonl" site_failed || fail "no site_failed within 30 s"
t0=$(date +%s%3N)
a_second_after_t0() { [ $(($(date +%s%3N) - t0)) -ge 1000 ]; }
wait_until 5 a_second_after_t0
kill -INT $run_pid
rc=0
wait $run_pid || rc=$?
run_pid=
cat "$out/run.out"
[ "$rc" -eq 3 ] || fail "interrupted run: exit status $rc, expected 3"
echo "ok: exit status 3"
[ "$(jq -cR 'fromjson? | select(.event == "traffic_stopped") | .interrupted' "$rundir/lab.events.jsonl")" = true ] ||
	fail "traffic_stopped does not say interrupted"
echo "ok: traffic_stopped interrupted true"
grep -q "^steerlab: the run was interrupted at [0-9.]* s of 20.0 s of traffic" "$out/run.out" || fail "the terminal does not say the run was interrupted"
[ -s "$rundir/clocks.json" ] || fail "the interrupted run was not analysed"
[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "clocks.json: valid is not false"
json "$rundir/clocks.json" '.warnings[].code' | grep -x interrupted >/dev/null ||
	fail "clocks.json: no interrupted warning"
echo "ok: clocks.json: valid false, warning interrupted"
# the rates are over the traffic actually run (about 3 s of the 20),
# so the client's 1000 requests/s come out as about 1000, not 150
rate=$(json "$rundir/clocks.json" .schemes.anycast.budget.rate_per_s)
assert_le 900 "$rate" "anycast request rate of the interrupted run, per s"
assert_le "$rate" 1100 "anycast request rate of the interrupted run, per s"
assert_no_leftovers $lab "$rundir"

# (c) the same --out again: refused, nothing in it touched
sums() { (cd "$rundir" && find . -type f -print0 | sort -z | xargs -0 sha256sum; find . | sort | sha256sum); }
before=$(sums)
rc=0
$STEERLAB run topology/anycast.ini --out "$rundir" --set name=$lab -q >"$out/again.out" 2>&1 || rc=$?
cat "$out/again.out"
[ "$rc" -eq 1 ] || fail "run --out an existing run: exit status $rc, expected 1"
grep -q "^steerlab: run: $rundir is not empty (it has lab.events.jsonl: a run)" "$out/again.out" ||
	fail "no clear refusal of the existing directory"
[ "$(sums)" = "$before" ] || fail "the existing run directory changed"
echo "ok: --out an existing run is refused and the run is untouched"
[ -e /run/steerlab/$lab ] && fail "the refused run made its state directory"
if ip netns list | grep "^$lab-" >/dev/null; then fail "the refused run made namespaces"; fi
echo "ok: the refused run made no state directory and no namespace"
# (no failing site is no longer refused: a steady-state run, test_steady.sh)
