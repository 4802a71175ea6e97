# Helpers for the integration tests (sourced). Each test runs a lab under a
# name of its own, refuses to start if that name is in use, and cleans up by
# exact names on exit, as OpenBSD's bgpd integration tests do.

STEERLAB=${STEERLAB:-bin/steerlab}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# lab_guard LAB: refuse to run over an existing lab or namespace of that name.
lab_guard() {
	local lab=$1
	[ -e "/run/steerlab/$lab" ] && fail "lab $lab already exists: sudo $STEERLAB down $lab"
	if ip netns list | awk '{print $1}' | grep -q "^$lab-"; then
		fail "namespaces $lab-* already exist"
	fi
	trap "lab_cleanup $lab" EXIT
}

lab_cleanup() {
	[ -e "/run/steerlab/$1" ] && $STEERLAB down "$1" >/dev/null 2>&1
	return 0
}

# json FILE FILTER: a value from a JSON file (jq).
json() {
	jq -r "$2" "$1"
}

# is_number S: S is a decimal number (as jq prints them: 12, -0.5, 1e-05).
is_number() {
	[[ $1 =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]
}

# assert_cmp OP A B WHAT: A OP B as floats, OP one of < <= == >= >. Both
# must be numbers: awk reads "null" or "" as 0 and bash's [ -ge ] says only
# "integer expression expected", so a missing value would pass or mislead.
assert_cmp() {
	is_number "$2" || fail "$4: expected a number, got '$2'"
	is_number "$3" || fail "$4: expected a number, got '$3'"
	awk -v a="$2" -v b="$3" -v op="$1" 'BEGIN {
		if (op == "<") r = a < b; else if (op == "<=") r = a <= b
		else if (op == "==") r = a == b; else if (op == ">=") r = a >= b
		else if (op == ">") r = a > b; else exit 2
		exit !r }' || fail "$4: not $2 $1 $3"
	echo "ok: $4 ($2 $1 $3)"
}

# assert_le A B WHAT: A <= B; and its friends, each with the same refusal
# of non-numbers (assert_cmp).
assert_le() { assert_cmp '<=' "$@"; }
# assert_near GOT WANT WHAT: GOT within max(0.5 ms, 5 %) of WANT (seconds),
# the accuracy a configured delay is held to (docs/topology.md, "Distance")
assert_near() {
	local got=$1 want=$2 what=$3 tol
	tol=$(awk -v w="$want" 'BEGIN { t = w * 0.05; if (t < 0.0005) t = 0.0005; print t }')
	assert_ge "$got" "$(awk -v w="$want" -v t="$tol" 'BEGIN { print w - t }')" "$what >= $want - $tol"
	assert_le "$got" "$(awk -v w="$want" -v t="$tol" 'BEGIN { print w + t }')" "$what <= $want + $tol"
}
assert_lt() { assert_cmp '<' "$@"; }
assert_eq() { assert_cmp '==' "$@"; }
assert_ge() { assert_cmp '>=' "$@"; }
assert_gt() { assert_cmp '>' "$@"; }

# has_event FILE EVENT: FILE (JSON Lines) has a line whose event is EVENT
# (a line being written, not yet ending in "}", is skipped). grep, not jq:
# wait_until polls with it, and a jq costs 50 ms of CPU to grep's 4 (a make
# check ran 881 jq). The writers write jansson's compact form, "event":"NAME".
has_event() {
	[ -r "$1" ] && grep -Eq -- "\"event\":\"$2\"(,.*)?}\$" "$1"
}

# assert_no_leftovers LAB RUNDIR: no namespace, state or process of the lab.
assert_no_leftovers() {
	local lab=$1 rundir=$2 pid start node agent now state
	if ip netns list | awk '{print $1}' | grep -q "^$lab-"; then
		fail "namespaces of $lab remain: $(ip netns list | grep "^$lab-" | tr '\n' ' ')"
	fi
	[ -e "/run/steerlab/$lab" ] && fail "state directory /run/steerlab/$lab remains"
	[ -s "$rundir/agents.tsv" ] || fail "no agents.tsv in $rundir"
	while read -r pid start node agent; do
		if [ -r "/proc/$pid/stat" ]; then
			read -r state now < <(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null |
				awk '{print $1, $20}') || continue # gone meanwhile
			# a zombie has exited: after `steerlab up` its reaper is init, in its own time
			[ "$now" = "$start" ] && [ "$state" != Z ] && fail "$agent of $node (pid $pid) is still running"
		fi
	done <"$rundir/agents.tsv"
	echo "ok: no namespace, state or process of $lab remains"
}

# route_changes DIR ROUTER T0 [PREFIX]: ROUTER's route events for PREFIX
# (default the service, 198.19.0.1/32) after T0 while the traffic flowed,
# "EVENT via VIA" one a line. From traffic_stopped on the lab's teardown
# deletes every route: a fixed window after t0 once caught it, on a run
# whose t0 was stamped late.
route_changes() {
	local stop
	stop=$(jq -r 'select(.event == "traffic_stopped") | .t' "$1/lab.events.jsonl")
	[ -n "$stop" ] || fail "$1: no traffic_stopped event"
	jq -r --argjson t0 "$3" --argjson stop "$stop" --arg prefix "${4:-198.19.0.1/32}" \
		'select((.event == "route_added" or .event == "route_deleted") and
		.prefix == $prefix and .t > $t0 and .t < $stop) | "\(.event) via \(.via)"' \
		"$1/$2.collector.events.jsonl"
}

# wait_until SECONDS COMMAND...: run COMMAND every 50 ms until it succeeds;
# return 1 if it has not after SECONDS (a whole or decimal number). Polling
# instead of a guessed sleep: quick when things are quick, patient when not.
# The clock is bash's ($EPOCHREALTIME) and the pause a read that times out
# on a pipe nobody writes to: a date and a sleep a poll were 1,300 of the
# 14,000 programs an integration run started, each fork and exec costly on
# a virtual machine.
#	wait_until 5 dig_ok || fail "authd did not answer within 5 s"
wait_until() {
	local deadline now secs=$1 frac
	[[ $secs == *.* ]] || secs=$secs.0
	frac=${secs#*.}000000
	deadline=$((${EPOCHREALTIME/./} + ${secs%.*} * 1000000 + 10#${frac:0:6}))
	shift
	until "$@"; do
		now=${EPOCHREALTIME/./}
		[ "$now" -lt "$deadline" ] || return 1
		nap 0.05
	done
}

# nap SECONDS: a pause without a process (read's timeout on a pipe of our
# own that nobody writes to)
nap() {
	[ -n "${nap_fd:-}" ] || exec {nap_fd}<> <(:)
	read -r -t "$1" -u "$nap_fd" _ || true
}

# csv_header FILE: the header line of a CSV file steerlab wrote, after
# its '#' lines (lib/csvmeta.h; docs/analysis.md, "CSV files")
csv_header() {
	grep -m 1 -v '^#' "$1"
}

# sched_slack RUNDIR FROM_NS TO_NS: how late this machine ran the lab's
# processes between FROM_NS and TO_NS (absolute, ns), in seconds, as the
# clients' own records show it: each client sends on a fixed schedule, so
# the longest gap between two of its consecutive requests less its usual
# gap (the median) is how long it was kept from running. The largest over
# every client file, at least 0.005 s. A test adds it to a bound that the
# lab's own speed limits (a route withdrawn after a prober's verdict) so
# that a busy machine is measured, not guessed.
sched_slack() {
	local f
	for f in "$1"/requests-*.csv; do
		[ -s "$f" ] || continue
		awk -F, -v from="$2" -v to="$3" '/^[0-9]/ && $3 >= from && $3 <= to { print $1, $3 }' "$f" |
			sort -k1,1n -k2,2n | awk '$1 == c { print $2 - t } { c = $1; t = $2 }' | sort -n |
			awk '{ g[NR] = $1 } END { if (NR > 0) print (g[NR] - g[int((NR + 1) / 2)]) / 1e9 }'
	done | awk 'BEGIN { s = 0.005 } $1 > s { s = $1 } END { printf "%.6f\n", s }'
}

# run_valid LOG ARGS...: `steerlab run ARGS` (--out DIR among them), its
# output to LOG ("-": to ours), for a test that is not about the verdict: a
# run the verdict finds invalid (exit status 3: on a busy machine a site
# too slow for its own prober, BGP still settling) is said, with its codes,
# and run once more, the first kept as DIR.invalid (and LOG.invalid). The
# exit status of the last; the caller fails on it, and the second run's
# output names its codes. A run that failed says so with the last lines of
# LOG on stderr (a caller under set -e ends there, and its own output would
# otherwise stop at its last "ok").
run_valid() {
	local log=$1 dir="" prev="" a rc=0
	shift
	for a in "$@"; do
		[ "$prev" = --out ] && dir=$a
		prev=$a
	done
	[ -n "$dir" ] || fail "run_valid: no --out DIR in: $*"
	if [ "$log" = - ]; then $STEERLAB run "$@" || rc=$?; else $STEERLAB run "$@" >"$log" 2>&1 || rc=$?; fi
	[ "$rc" = 3 ] || { run_valid_said "$rc" "$log"; return "$rc"; }
	echo "note: an invalid run ($(run_codes "$dir")); running it once more, the first kept in $dir.invalid" >&2
	rm -rf "$dir.invalid"
	mv "$dir" "$dir.invalid"
	[ "$log" = - ] || mv "$log" "$log.invalid"
	rc=0
	if [ "$log" = - ]; then $STEERLAB run "$@" || rc=$?; else $STEERLAB run "$@" >"$log" 2>&1 || rc=$?; fi
	[ "$rc" = 3 ] && echo "note: invalid again: $(run_codes "$dir")" >&2
	run_valid_said "$rc" "$log"
	return "$rc"
}

# run_valid_said RC LOG: a run that exited RC (not 0) said, with LOG's last
# lines (LOG "-": they are above already)
run_valid_said() {
	[ "$1" = 0 ] && return 0
	echo "run_valid: steerlab run exited with status $1" >&2
	[ "$2" = - ] || tail -n 15 "$2" | sed 's/^/  | /' >&2
	return 0
}

# run_model_agrees LOG DIR ARGS...: `steerlab run ARGS -q --out DIR`
# (run_valid, its output to LOG) must be valid, with every clock within the
# model's interval (no model_disagrees); the model's table is shown
run_model_agrees() {
	local log=$1 dir=$2 rc=0 codes
	shift 2
	run_valid "$log" "$@" -q --out "$dir" || rc=$?
	[ $rc = 0 ] || fail "run exited with status $rc (its last lines above)"
	echo "ok: the run is valid"
	sed -n '/^scheme  *clock/,/^$/p' "$log"
	codes=$(jq -r '[.warnings[]? | .code] | join(",")' "$dir/clocks.json")
	case ",$codes," in *,model_disagrees,*) fail "a clock outside the model's interval: $(grep 'model_disagrees' "$log")" ;; esac
	echo "ok: every clock within the model's interval"
}

# check_refused WHAT PATTERN ARGS...: `steerlab check ARGS` fails, printing
# PATTERN (a grep pattern: the file, line and what was expected). Its
# temporary directories (the products' checks) go to $out/tmp, a TMPDIR of
# the test's own that check_left_nothing then finds empty.
check_refused() {
	local what=$1 pattern=$2 rc=0
	shift 2
	mkdir -p "$out/tmp"
	TMPDIR=$out/tmp $STEERLAB check "$@" >"$out/check.txt" 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "$what: check passed"
	grep -q -- "$pattern" "$out/check.txt" || fail "$what: not '$pattern' in: $(cat "$out/check.txt")"
	echo "ok: $what refused: $(grep -m1 -- "$pattern" "$out/check.txt")"
}
check_left_nothing() {
	assert_eq "$(find "$out/tmp" -mindepth 1 | wc -l)" 0 "temporary directories the checks left"
}

# run_codes DIR: the invalidating codes of DIR's verdict
run_codes() {
	jq -r '[.warnings[]? | select(.invalidates) | .code] | unique | join(", ")' "$1/clocks.json" 2>/dev/null ||
		echo "no clocks.json"
}
