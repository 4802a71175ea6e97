#!/usr/bin/env bash
# An interrupted sweep resumes (docs/sweeps.md): a 3-point sweep of the TTL
# on tests/integration/data/compare.ini, 4 s of traffic each, is sent SIGINT
# once its first point's clocks.json exists, in the middle of the second
# point. It stops after taking down the lab it was running, leaving nothing
# behind. The same command with the same --out then skips the first point
# (its clocks.json untouched), runs the second again from an empty
# directory and the third, and writes a table of three rows, each point's
# run's model beside it.
# about 18 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-swp
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
dir=$out/sweep
args=(sweep tests/integration/data/compare.ini --set name=$lab --set duration=4s
	--set fail_at=1s --set ttl=1,2,3 --out "$dir" --quiet)

# SIGINT once the first point is done and the second has failed its site:
# mid-run, after t0, so the interrupted point has a clocks.json of its own
# (of what it captured) and must be run again all the same
failed_site() {
	grep -qs '"site_failed"' "$dir/ttl-2/lab.events.jsonl"
}
$STEERLAB "${args[@]}" >"$out/first.log" 2>&1 &
pid=$!
wait_until 60 test -s "$dir/ttl-1/clocks.json" ||
	{ kill -INT $pid; cat "$out/first.log"; fail "the first point did not finish within 60 s"; }
wait_until 30 failed_site ||
	{ kill -INT $pid; cat "$out/first.log"; fail "the second point did not reach t0 within 30 s"; }
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc -ne 0 ] || { cat "$out/first.log"; fail "an interrupted sweep exits 0"; }
grep -q "^steerlab: sweep interrupted: 1 of 3 points done; resume with: " "$out/first.log" ||
	{ cat "$out/first.log"; fail "the sweep does not say it was interrupted after one point"; }
echo "ok: the interrupted sweep says so and exits $rc"
[ -e "$dir/sweep.csv" ] && fail "an interrupted sweep wrote sweep.csv"
assert_no_leftovers $lab "$dir/ttl-2"
[ -s "$dir/ttl-2/clocks.json" ] || fail "the interrupted point did not analyse what it had"
grep -q '"interrupted":true' "$dir/ttl-2/lab.events.jsonl" || fail "ttl-2 was not interrupted"
echo "ok: the interrupted point ttl=2 has a clocks.json of its interrupted run"
first=$(stat -c %y "$dir/ttl-1/clocks.json")

# exit 3, a point measured but invalid, is the points' own verdict, not
# the resume's (a loaded gate once had ttl=1 fall behind: client_behind)
rc=0
$STEERLAB "${args[@]}" >"$out/second.log" 2>&1 || rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$out/second.log"; fail "the resumed sweep failed ($rc)"; }
grep -q "^steerlab: point ttl=1: done, skipped$" "$out/second.log" ||
	{ cat "$out/second.log"; fail "the first point was not skipped"; }
[ "$(stat -c %y "$dir/ttl-1/clocks.json")" = "$first" ] || fail "the first point was run again"
echo "ok: the first point was skipped, its clocks.json untouched"
for n in 2 3; do
	grep -q "^steerlab: point ttl=$n ($n of 3): $dir/ttl-$n$" "$out/second.log" ||
		{ cat "$out/second.log"; fail "point ttl=$n was not run"; }
	[ -s "$dir/ttl-$n/clocks.json" ] || fail "no $dir/ttl-$n/clocks.json"
done
grep -q "^steerlab: point ttl=2: removing the unfinished run in $dir/ttl-2$" "$out/second.log" ||
	{ cat "$out/second.log"; fail "the interrupted point's directory was not emptied first"; }
grep -q '"interrupted":false' "$dir/ttl-2/lab.events.jsonl" ||
	fail "ttl-2/lab.events.jsonl is not the complete run's"
echo "ok: the interrupted point ttl=2 ran again from an empty directory, and ttl=3 ran"

csv=$dir/sweep.csv
[ "$(csv_header "$csv" | cut -d, -f1)" = ttl ] || fail "sweep.csv: no ttl column"
[ "$(grep -c "^[0-9]" "$csv")" = 3 ] || { cat "$csv"; fail "sweep.csv has not 3 rows"; }
col=$(csv_header "$csv" | tr , '\n' | grep -n '^dns_window_s$' | cut -d: -f1)
[ -n "$col" ] || fail "sweep.csv: no dns_window_s column"
for n in 1 2 3; do
	row=$(grep ",ttl-$n\$" "$csv") || fail "sweep.csv: no row for ttl-$n"
	[ "${row%%,*}" = $n ] || fail "sweep.csv: row of ttl-$n: $row"
	[ -n "$(echo "$row" | cut -d, -f"$col")" ] || fail "sweep.csv: ttl=$n has no DNS window"
done
echo "ok: sweep.csv has the three points, each with its DNS window"
# the model of each point's run beside its clocks (docs/sweeps.md, "The
# model beside each point"): sweep.csv's model columns are numbers at every
# point, the DNS window's its run's clocks.json's; sweep.md has a model and
# a difference row under each point of each scheme, sweep.gp the dashed lines
for name in anycast_model_detect_s_p50 anycast_model_window_s_p5 anycast_model_lost_client_p95 \
	dns_model_detect_s_p50 dns_model_window_s_p50 dns_model_window_s_p95 \
	dns_model_last_p50_s_p50 dns_model_lost_client_p50 dns_model_upstream_queries_p50; do
	c=$(csv_header "$csv" | tr , '\n' | grep -n "^$name\$" | cut -d: -f1)
	[ -n "$c" ] || fail "sweep.csv: no $name column"
	for n in 1 2 3; do
		v=$(grep ",ttl-$n\$" "$csv" | cut -d, -f"$c")
		is_number "$v" || fail "sweep.csv: $name at ttl=$n is '$v', not a number"
	done
done
c=$(csv_header "$csv" | tr , '\n' | grep -n '^dns_model_window_s_p50$' | cut -d: -f1)
for n in 1 2 3; do
	assert_near "$(grep ",ttl-$n\$" "$csv" | cut -d, -f"$c")" \
		"$(json "$dir/ttl-$n/clocks.json" .schemes.dns.model.window_s.p50)" \
		"sweep.csv's model DNS window at ttl=$n, its clocks.json's"
done
[ "$(grep -Ec '^\| +model \| ' "$dir/sweep.md")" = 6 ] || { cat "$dir/sweep.md"; fail "sweep.md: not 6 model rows"; }
[ "$(grep -Ec '^\| +difference \| ' "$dir/sweep.md")" = 6 ] ||
	{ cat "$dir/sweep.md"; fail "sweep.md: not 6 difference rows"; }
grep -q 'dt 2 pt 6 title "dns: the model (p50)"' "$dir/sweep.gp" || fail "sweep.gp: no dashed model line"
echo "ok: the model of each point's run beside its clocks, in sweep.csv, sweep.md and sweep.gp"
grep -Eq "^\| +3 \| " "$dir/sweep.md" || fail "sweep.md has no row for ttl=3"
command -v gnuplot >/dev/null || fail "gnuplot is not installed (make deps installs it)"
[ -s "$dir/sweep.png" ] || fail "no sweep.png"
echo "ok: sweep.png"

assert_no_leftovers $lab "$dir/ttl-3"
rm -rf "$out"
