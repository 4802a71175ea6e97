#!/usr/bin/env bash
# Repeatable statistics (docs/repeat.md): `steerlab run --repeat 5` of a
# short anycast lab (2 s of traffic, failure after 1 s, probe_interval
# 100ms) with fail_jitter = 100ms. It exits 0 with five run directories and
# a table of statistics; each run's failure fell at fail_at plus the offset
# its seed gives, recorded in its events and clocks.json; the seed 669
# gives offsets that cover the probe interval with no gap over 22 % (so the
# failures fall at every phase of a probe cycle that keeps its phase to the
# traffic's start); each detect time is what a failure at some phase of
# the cycle gives (from 2 intervals less a timeout to 3 intervals and a
# timeout, and the scheduling slack), and the five are distinct. A single
# run with --set seed=S of one repetition fails at the same offset. The
# same command again resumes: every repetition done, none run again. The
# model of the runs is beside the spread: stats.csv's model columns are
# numbers, the detects' bounds the runs' own, and the detects within them.
# about 17 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-rpt
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
dir=$out/repeat
sets=(--set name=$lab --set duration=2s --set fail_at=1s --set probe_interval=100ms
	--set fail_jitter=100ms)
args=(run topology/anycast.ini --repeat 5 "${sets[@]}" --set seed=669 --out "$dir" --quiet)

rc=0
$STEERLAB "${args[@]}" >"$out/repeat.log" 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat "$out/repeat.log"; fail "run --repeat 5 exited $rc"; }
for i in 1 2 3 4 5; do
	[ -s "$dir/rep-$i/clocks.json" ] || fail "no $dir/rep-$i/clocks.json"
	grep -q "^steerlab: rep $i/5 done (seed [0-9]*, failure 0\.[0-9]* s after fail_at)" \
		"$out/repeat.log" || { cat "$out/repeat.log"; fail "no progress line for rep $i"; }
done
echo "ok: five repetitions, each with its clocks.json and a progress line"
grep -Eq '^\| anycast detect \(s\) +\| 5 \|' "$out/repeat.log" ||
	{ cat "$out/repeat.log"; fail "no statistics table with 5 detect values printed"; }
for f in repeat.csv stats.csv stats.md repeat.args; do
	[ -s "$dir/$f" ] || fail "no $dir/$f"
done
command -v gnuplot >/dev/null || fail "gnuplot is not installed (make deps installs it)"
[ -s "$dir/spread.png" ] || fail "no spread.png"
echo "ok: the table printed; repeat.csv, stats.csv, stats.md and spread.png written"

# each repetition: its seed, and the offset that seed gives, in its events
# and its clocks.json, within [0, 100 ms)
csv=$dir/repeat.csv
[ "$(grep -c "^[0-9]" "$csv")" = 5 ] || { cat "$csv"; fail "repeat.csv has not 5 rows"; }
col() { csv_header "$csv" | tr , '\n' | grep -n "^$1\$" | cut -d: -f1; }
cdetect=$(col anycast_detect_s)
[ -n "$cdetect" ] || fail "repeat.csv: no anycast_detect_s column"
detects=() offsets=() slacks=()
for i in 1 2 3 4 5; do
	row=$(grep ",rep-$i\$" "$csv") || fail "repeat.csv: no row for rep-$i"
	seed=$(echo "$row" | cut -d, -f2)
	ev=$dir/rep-$i/lab.events.jsonl
	[ "$(jq -r 'select(.event == "traffic_started") | .seed' "$ev")" = "$seed" ] ||
		fail "rep-$i: traffic_started has not the seed $seed of repeat.csv"
	[ "$(json "$dir/rep-$i/clocks.json" .seed)" = "$seed" ] || fail "rep-$i: clocks.json seed"
	off=$(jq -r 'select(.event == "site_failed") | .jitter_offset_ns' "$ev")
	assert_ge "$off" 0 "rep-$i: jitter offset (ns)"
	assert_lt "$off" 100000000 "rep-$i: jitter offset (ns)"
	awk -v s="$(json "$dir/rep-$i/clocks.json" .failed.jitter_offset_s)" -v n="$off" \
		'BEGIN { d = s * 1e9 - n; exit !(s != "" && d < 2 && d > -2) }' ||
		fail "rep-$i: clocks.json's jitter_offset_s is not the event's $off ns"
	# t0 is that far after the nominal fail_at, within the scheduling slack
	# (traffic_started is stamped just after the instant the wait counts from)
	start=$(jq -r 'select(.event == "traffic_started") | .t' "$ev")
	t0=$(jq -r 'select(.event == "site_failed") | .t' "$ev")
	assert_ge "$((t0 - start))" "$((1000000000 + off - 5000000))" "rep-$i: t0 - traffic start (ns)"
	slack=$(sched_slack "$dir/rep-$i" $((t0 - 500000000)) $((t0 + 500000000)))
	assert_le "$((t0 - start))" "$((1000000000 + off + 30000000 + $(awk -v s="$slack" 'BEGIN { printf "%d", s * 1e9 }')))" \
		"rep-$i: t0 - traffic start (ns), within 30 ms and the slack ($slack s)"
	d=$(echo "$row" | cut -d, -f"$cdetect")
	is_number "$d" || fail "rep-$i: no detect time in repeat.csv"
	detects+=("$d")
	offsets+=("$off")
	slacks+=("$slack")
	[ "$(json "$dir/rep-$i/clocks.json" .valid)" = true ] || fail "rep-$i is invalid"
done
echo "detect times (s): ${detects[*]}"
[ "$(printf '%s\n' "${detects[@]}" | sort -u | wc -l)" = 5 ] || fail "the detect times are not 5 distinct values"
# the offsets on the probe cycle (100 ms): the cycle less the widest gap
# between them. The seed fixes them, so this is exact, not a chance: where
# the prober's own cycle stands at the traffic's start is not (the
# detect times' phases were once asserted, and failed a run in ten).
spread=$(printf '%s\n' "${offsets[@]}" | awk '{ printf "%.6f\n", $1 / 1e6 % 100 }' | sort -g |
	awk 'NR == 1 { first = $1; gap = 0 } NR > 1 && $1 - last > gap { gap = $1 - last }
		{ last = $1 } END { if (first + 100 - last > gap) gap = first + 100 - last
		printf "%.6f", (100 - gap) / 1000 }')
assert_ge "$spread" 0.078 "seed 669: the offsets' spread on the probe cycle (s)"
# (a probe of a that failed in the 300 ms before t0, a stall's late reply,
# counts towards the three: the bound is then an interval less for each; a
# loaded gate's rep-5 had one, and its detect was 0.111 s)
early() {
	local t0
	t0=$(jq -r 'select(.event == "site_failed") | .t' "$dir/rep-$1/lab.events.jsonl")
	jq -s --argjson t0 "$t0" '[.[] | select(.event == "probe_failed" and .site == "a"
		and .t < $t0 and .t > $t0 - 300000000)] | length' "$dir/rep-$1/a.prober.events.jsonl"
}
for i in 0 1 2 3 4; do
	n=$(early $((i + 1)))
	[ "$n" = 0 ] || echo "note: rep-$((i + 1)): $n probe(s) of a failed in the 300 ms before t0"
	assert_ge "${detects[$i]}" "$(awk -v n="$n" 'BEGIN { print 0.15 - 0.1 * n }')" \
		"rep-$((i + 1)): detect at least 2 probe intervals less a timeout, less one a failure before t0 (s)"
	assert_le "${detects[$i]}" "$(awk -v s="${slacks[$i]}" 'BEGIN { print 0.35 + s }')" \
		"rep-$((i + 1)): detect within 3 probe intervals and a timeout, and the slack (s)"
done

# stats.csv agrees with repeat.csv
line=$(grep '^anycast,detect_s,' "$dir/stats.csv") || fail "stats.csv: no anycast detect_s"
[ "$(echo "$line" | cut -d, -f3)" = 5 ] || fail "stats.csv: anycast detect n is not 5: $line"
assert_eq "$(echo "$line" | cut -d, -f4)" "$(printf '%s\n' "${detects[@]}" | sort -g | sed -n 1p)" "stats.csv min = repeat.csv's least detect"
assert_eq "$(echo "$line" | cut -d, -f7)" "$(printf '%s\n' "${detects[@]}" | sort -g | tail -1)" "stats.csv max = repeat.csv's greatest detect"

# the model beside the spread (docs/model.md, "In sweeps and repeats"): the
# table has its column and the judgement's; stats.csv, for each clock the
# model has, numbers in its model columns, ordered; each run's model is at
# the run's own failure instant, so the five detects' models differ (the
# offsets span at least 78 ms) and stats.csv's bounds are the least and the
# greatest of the runs' (their clocks.json); the detects lie within them,
# widened by the tolerance, and no run's own model_disagrees named one
grep -Eq '^\| clock +\| n \| +min \| +median \| +p95 \| +max \| +model \| +within \|$' \
	"$out/repeat.log" || { cat "$out/repeat.log"; fail "no model and within columns in the table"; }
stats=$dir/stats.csv
scol() { csv_header "$stats" | tr , '\n' | grep -n "^$1\$" | cut -d: -f1; }
for c in model_p50 model_p5 model_p95 model_min model_max model_tolerance model_same model_within \
	model_runs_outside; do
	[ -n "$(scol $c)" ] || fail "stats.csv: no $c column"
done
for clock in detect_s steer_s window_s last_p50_s last_max_s lost_client lost_capture; do
	line=$(grep "^anycast,$clock," "$stats") || fail "stats.csv: no anycast $clock"
	get() { echo "$line" | cut -d, -f"$(scol "$1")"; }
	for c in model_p50 model_p5 model_p95 model_min model_max model_tolerance; do
		is_number "$(get $c)" || fail "stats.csv: anycast $clock $c is '$(get $c)', not a number"
	done
	assert_le "$(get model_min)" "$(get model_p5)" "anycast $clock: the model's min <= p5"
	assert_le "$(get model_p5)" "$(get model_p50)" "anycast $clock: the model's p5 <= p50"
	assert_le "$(get model_p50)" "$(get model_p95)" "anycast $clock: the model's p50 <= p95"
	assert_le "$(get model_p95)" "$(get model_max)" "anycast $clock: the model's p95 <= max"
	case $(get model_within) in
	yes | no | lower_bound | later_step) ;;
	*) fail "stats.csv: anycast $clock model_within is '$(get model_within)'" ;;
	esac
done
line=$(grep "^anycast,detect_s," "$stats")
get() { echo "$line" | cut -d, -f"$(scol "$1")"; }
[ "$(get model_same)" = 0 ] || fail "stats.csv: the runs' models of detect are the same, with fail_jitter: $line"
least=$(jq -s 'map(.schemes.anycast.model.detect_s.min) | min' "$dir"/rep-[1-5]/clocks.json)
most=$(jq -s 'map(.schemes.anycast.model.detect_s.max) | max' "$dir"/rep-[1-5]/clocks.json)
assert_near "$(get model_min)" "$least" "stats.csv's model_min of detect, the runs' least"
assert_near "$(get model_max)" "$most" "stats.csv's model_max of detect, the runs' greatest"
assert_cmp '==' "$(get model_tolerance)" 0.1 "the tolerance of a time (s)"
[ "$(get model_within)" = yes ] || fail "the detects ($(get min) to $(get max) s) outside the model's $least to $most s, widened by 0.1: $line"
[ "$(get model_runs_outside)" = 0 ] || fail "a run's own model_disagrees named its detect: $line"
echo "ok: the model beside the spread: detect $(get min) to $(get max) s within the runs' models $least to $most s"

# one repetition alone, from its seed: the same jittered instant
row=$(grep ",rep-3\$" "$csv")
seed=$(echo "$row" | cut -d, -f2)
want=$(jq -r 'select(.event == "site_failed") | .jitter_offset_ns' "$dir/rep-3/lab.events.jsonl")
$STEERLAB run topology/anycast.ini "${sets[@]}" --set seed="$seed" --out "$out/again" --quiet \
	>"$out/again.log" 2>&1 || { cat "$out/again.log"; fail "the run with rep-3's seed failed"; }
got=$(jq -r 'select(.event == "site_failed") | .jitter_offset_ns' "$out/again/lab.events.jsonl")
[ "$got" = "$want" ] || fail "--set seed=$seed: offset $got ns, rep-3's was $want ns"
grep -q "^seed = $seed\$" "$out/again/topology.ini" || fail "the run's topology.ini has not seed = $seed"
echo "ok: --set seed=$seed reproduces rep-3's failure instant (offset $got ns)"
# a run without a seed draws one and records it, in topology.ini too
assert_no_leftovers $lab "$out/again"

# the same command again: every repetition done, none run again
first=$(stat -c %y "$dir/rep-1/clocks.json")
$STEERLAB "${args[@]}" >"$out/resume.log" 2>&1 || { cat "$out/resume.log"; fail "the rerun failed"; }
[ "$(grep -c "^steerlab: repetition [1-5] (seed [0-9]*): done, skipped$" "$out/resume.log")" = 5 ] ||
	{ cat "$out/resume.log"; fail "the rerun did not skip the 5 repetitions"; }
[ "$(stat -c %y "$dir/rep-1/clocks.json")" = "$first" ] || fail "rep-1 was run again"
echo "ok: the rerun skips every repetition"

assert_no_leftovers $lab "$dir/rep-5"
rm -rf "$out"
