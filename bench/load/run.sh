#!/usr/bin/env bash
# bench/load: the population client against the raw floor (issue 13).
#
# One lab (bench/load/load.ini: a client node users, the router core, sites
# a and b; anycast; binary records). First the raw floor: the lab up without
# traffic, blast (tests/tools/blast, a bare sendmmsg sender) in users'
# namespace sending FLOOR_RATE requests/s to the service for SECONDS; the
# floor is what the collector captured on the site link per second. Then
# `steerlab run` of the same lab with users a population of 10^2, 10^3,
# 10^4 and 10^5 logical clients at RATE requests/s in all, for SECONDS
# each. For each: the achieved requests/s (the client's sent over its
# sending time), the ratio to the floor, the client's CPU per request (user
# + system, from /proc/PID/stat sampled until it exits), its peak memory
# (VmHWM) and the bytes per logical client above the 10^2 run's, the
# collector's drops, client and capture counts, whether they agree within
# 0.1 %, and whether the run was valid, and if not why (the codes of the
# invalidating warnings of its clocks.json, the first one's message
# below the table). The load average (1 min) at the start and the end of
# each point is printed with it: the machine may be shared.
#
# Then issue 13's target, once: 10,000 logical clients at 100,000
# requests/s for 60 s (BL_TARGET_SECS), a PASS when the run is valid, the
# collector dropped nothing and the client's and the captures' counts
# agree within 0.1 %. BL_TARGET=0 leaves it out.
#
#   bench/load/run.sh [SECONDS [RATE [SIZES]]]     (root; default 20 100000
#                                                  "100 1000 10000 100000")
# BL_FLOOR_RATE (default 400000): blast's rate, above what the path takes.
# BL_LAB (default bl-load): the lab's name.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/result.sh
secs=${1:-20} rate=${2:-100000} sizes=${3:-"100 1000 10000 100000"}
floor_rate=${BL_FLOOR_RATE:-400000}
target=${BL_TARGET:-1} target_secs=${BL_TARGET_SECS:-60}
STEERLAB=${STEERLAB:-bin/steerlab}
BLAST=${BLAST:-build/release/tools/blast}
lab=${BL_LAB:-bl-load}
[ "$(id -u)" = 0 ] || { echo "bench/load: needs root (namespaces)" >&2; exit 77; }
for f in "$STEERLAB" "$BLAST" bin/client; do
	[ -x "$f" ] || { echo "bench/load: $f not built (make all tools)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench/load: needs jq" >&2; exit 1; }
if [ -e /run/netns/$lab-users ] || $STEERLAB status $lab >/dev/null 2>&1; then
	echo "bench/load: lab $lab is up (another bench?); not touching it" >&2
	exit 1
fi
tmp=$(mktemp -d /tmp/steerlab-bench-load.XXXXXX)
up=0
cleanup() {
	[ $up = 1 ] && $STEERLAB down $lab >/dev/null 2>&1
	return 0
}
trap cleanup EXIT
load() { cut -d' ' -f1 /proc/loadavg; }

# the collector's captured requests on the site links, at its end (the lab
# has no remote probers: every packet captured is a request)
captured() {
	jq -s '[.[] | select(.event == "capture_stats") | .packets] | add' "$1"/core.collector.events.jsonl
}
drops() {
	jq -s '[.[] | select(.event == "capture_stats") | .dropped + .if_dropped] | add // 0' \
		"$1"/core.collector.events.jsonl
}

# the raw floor: blast's requests that crossed the router, per second of
# its sending
$STEERLAB up bench/load/load.ini --out "$tmp/floor" --set name=$lab >"$tmp/floor.log" 2>&1 ||
	{ cat "$tmp/floor.log"; exit 1; }
up=1
sleep 2
l=$(load)
$STEERLAB exec $lab users -- "$BLAST" -t 198.19.0.1:7000 -r "$floor_rate" -d "${secs}s" -i 1 \
	>"$tmp/blast.out"
$STEERLAB down $lab >/dev/null
up=0
# what crossed the router onto the site links
after=$(captured "$tmp/floor")
fdrops=$(drops "$tmp/floor")
# over the time blast took (it falls behind when the path cannot take more)
took=$(sed -E 's/.* in ([0-9.]+) s .*/\1/' "$tmp/blast.out")
floor=$(awk -v a="$after" -v s="$took" 'BEGIN { printf "%.0f", a / s }')
echo "raw floor: $(cat "$tmp/blast.out")"
echo "raw floor: $floor requests/s captured on the site links, $fdrops dropped (load $l)"
echo
# why: "yes", or "no:" and the codes of the invalidating warnings
why() {
	jq -r 'if .valid then "yes" else "no:" + ([.warnings[] | select(.invalidates) | .code] |
		unique | join(",")) end' "$1"/clocks.json 2>/dev/null || echo "no:no-clocks.json"
}

# run_point N SECS RATE OUT: one run of the population client of N logical
# clients; its line of the table, and the reasons in OUT.why
run_point() {
	local n=$1 s=$2 r=$3 out=$4 l0 l1 runpid pid= ticks=0 hwm=0 t h ev sent took cap d v
	l0=$(load)
	$STEERLAB run bench/load/load.ini --out "$out" --set name=$lab --set users.population="$n" \
		--set rate="$r" --set duration="${s}s" --set fail_at="$((s / 2))s" --quiet \
		>"$out.log" 2>&1 &
	runpid=$!
	while kill -0 $runpid 2>/dev/null; do
		[ -z "$pid" ] && [ -s "$out/agents.tsv" ] &&
			pid=$(awk -F'\t' '$4 == "client" { print $1 }' "$out/agents.tsv")
		if [ -n "$pid" ] && [ -r /proc/$pid/stat ]; then
			t=$(awk '{ print $14 + $15 }' /proc/$pid/stat 2>/dev/null) && ticks=$t
			h=$(awk '/^VmHWM/ { print $2 }' /proc/$pid/status 2>/dev/null) && hwm=$h
		fi
		sleep 0.2
	done
	wait $runpid || true
	l1=$(load)
	ev=$out/users.client.events.jsonl
	sent=$(jq -s '[.[] | select(.event == "client_summary")][0].sent' "$ev")
	took=$(jq -s '[.[] | select(.event == "client_summary")][0].sending_ns' "$ev")
	cap=$(captured "$out")
	d=$(drops "$out")
	v=$(why "$out")
	jq -r '[.warnings[] | select(.invalidates) | "  " + .code + ": " + .message][0] // empty' \
		"$out"/clocks.json >"$out.why" 2>/dev/null || true
	[ -z "$base_kb" ] && base_kb=$hwm base_n=$n
	awk -v n="$n" -v s="$sent" -v t="$took" -v f="$floor" -v tk="$ticks" -v hz="$(getconf CLK_TCK)" \
		-v hwm="$hwm" -v bk="$base_kb" -v bn="$base_n" -v c="$cap" -v d="$d" -v v="$v" \
		-v l="$l0-$l1" 'BEGIN {
		r = s / (t / 1e9)
		per = "-"
		if (n > bn)
			per = hwm >= bk ? sprintf("%.0f", (hwm - bk) * 1024 / (n - bn)) : "(noise)"
		dd = s - c; if (dd < 0) dd = -dd
		agree = (s > 0 && dd <= s * 0.001) ? "yes" : "no"
		printf "%-8d %9.0f %7.1f%% %8.2f %7.1f %8s %9d %9d %6d %6s %-9s %s\n", n, r,
			100 * r / f, tk / hz * 1e6 / s, hwm / 1024, per, s, c, d, agree, l, v }'
}

printf '%-8s %9s %8s %8s %7s %8s %9s %9s %6s %6s %-9s %s\n' clients "req/s" "of floor" \
	"CPU us/r" "peak MB" B/client sent captured drops agree load valid
base_kb=
for n in $sizes; do
	run_point "$n" "$secs" "$rate" "$tmp/run-$n" | tee "$tmp/line-$n"
done
for n in $sizes; do
	[ -s "$tmp/run-$n.why" ] && echo "$n: $(cat "$tmp/run-$n.why")"
done
if [ "$target" = 1 ]; then
	echo
	echo "issue 13's target: 10000 logical clients, $rate requests/s, ${target_secs} s"
	line=$(run_point 10000 "$target_secs" "$rate" "$tmp/target")
	echo "$line"
	[ -s "$tmp/target.why" ] && cat "$tmp/target.why"
	set -- $line
	# columns: clients req/s floor cpu MB B/client sent captured drops agree load valid
	if [ "${12}" = yes ] && [ "$9" = 0 ] && [ "${10}" = yes ]; then
		echo "target: PASS (valid, 0 drops, counts agree within 0.1 %)"
		bench_result load.valid load "10000 clients at $rate/s, ${target_secs} s: valid, 0 drops" yes yes PASS
	else
		echo "target: FAIL (valid ${12}, drops $9, counts agree ${10})"
		bench_result load.valid load "10000 clients at $rate/s, ${target_secs} s: valid, 0 drops" \
			"${12}; drops $9" yes FAIL
	fi
	echo "$line" >"$tmp/line-summary"
fi

# make bench's summary (bench/result.sh), from the target run (else the
# largest population): issue 21's aim, the lab's rate at least 0.8 x the
# floor, at most 3 us of client CPU per request
[ -s "$tmp/line-summary" ] || cp "$tmp/line-${sizes##* }" "$tmp/line-summary"
read -r n r _ cpu _ <"$tmp/line-summary"
fr=$(awk -v r="$r" -v f="$floor" 'BEGIN { printf "%.2f", r / f }')
bench_result load.floor load "$n clients: lab requests/s / blast floor ($floor/s)" "$fr" ">= 0.8" \
	"$(bench_judge "$fr" ">=" 0.8)"
bench_result load.cpu load "$n clients: client CPU per request (us)" "$cpu" "<= 3" "$(bench_judge "$cpu" "<=" 3)"
echo
echo "runs kept in $tmp"
