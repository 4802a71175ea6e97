#!/usr/bin/env bash
# make check (README.md): the gate, every stage, in under 10 minutes on two
# cores. In order: the formatting, the build (release, with the unit tests
# and the tools), the unit tests (as many suites at once as CPUs), the man
# pages, the shell unit tests, then
# the integration tests (root: namespaces) in parallel
# (tests/run-integration.sh). From the end of the release build on, beside
# the rest at a lower priority: the build under AddressSanitizer and
# UndefinedBehaviorSanitizer, then its unit tests, and at the same time the
# fuzzers' build and run (all at once, each for FUZZ_SECONDS of wall time,
# 5 here: libFuzzer's budget is the clock's, so eight at once take 5 s and
# what CPU there is, where two at a time took 20 s and two cores). What the
# labs leave of the CPU goes to those. At the end, the wall time of every
# stage, and the result.
#
# Without root the integration tests cannot run, and make check fails at
# once, unless STEERLAB_SKIP_ROOT=1 asks for the rest without them (their
# number is said). make check MAKE=... passes make on; CHECK_JOBS sets the
# build's -j (default: the CPUs).
cd "$(dirname "$0")/.." || exit 1
make=${MAKE:-make}
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
fuzz_seconds=${FUZZ_SECONDS:-5}
fuzz_targets=$(ls tests/fuzz/fuzz_*.c | wc -l)
logs=$(mktemp -d /tmp/steerlab-check.XXXXXX)
begin=$(date +%s)
names=() secs=() results=()
failed=0

if [ "$(id -u)" != 0 ] && [ "${STEERLAB_SKIP_ROOT:-}" != 1 ]; then
	echo "check: the integration tests need root (network namespaces): sudo make check;" >&2
	echo "check: STEERLAB_SKIP_ROOT=1 make check runs the rest and says what it skipped" >&2
	exit 1
fi

# record NAME SECONDS RC
record() {
	names+=("$1") secs+=("$2")
	if [ "$3" = 0 ]; then results+=(ok); else results+=(FAILED); failed=1; fi
}

# stage NAME CMD...: run CMD in the foreground, timed
stage() {
	local name=$1 t rc=0
	shift
	echo "== check: $name"
	t=$(date +%s)
	"$@" || rc=$?
	record "$name" $(($(date +%s) - t)) "$rc"
	[ "$rc" = 0 ] || echo "== check: $name FAILED (exit status $rc)"
	return "$rc"
}

# step NAME CMD...: run CMD in the background's order, timed: its name,
# wall time and status go to $logs/bg.times
step() {
	local name=$1 t rc=0
	shift
	t=$(date +%s)
	"$@" || rc=$?
	echo "$name $(($(date +%s) - t)) $rc" >>"$logs/bg.times"
	return "$rc"
}

# beside: the sanitizers' build and then its unit tests, and the fuzzers'
# build (lower) and run (every target at once). The sanitizers' unit tests
# run as many suites at once as CPUs: starved by the labs, their build ends
# about when the integration tests do, and they are what make check waits
# for last.
beside() {
	{
		step unit-asan-build nice -n 10 "$make" -j"$jobs" --no-print-directory SAN=1 \
			BUILD=build/asan unit-build &&
			step unit-asan nice -n 5 env UNIT_JOBS="$jobs" "$make" --no-print-directory SAN=1 \
				BUILD=build/asan unit-run
	} &
	step fuzz-build nice -n 15 "$make" -j"$jobs" --no-print-directory fuzz &&
		step fuzz-run nice -n 19 "$make" -j"$fuzz_targets" --no-print-directory fuzz-run \
			FUZZ_SECONDS="$fuzz_seconds"
	wait
}

summary() {
	local i
	echo
	echo "check: stage                      seconds  result"
	for i in "${!names[@]}"; do
		printf 'check: %-26s %7s  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"
	done
	printf 'check: %-26s %7s  %s\n' "all (wall)" $(($(date +%s) - begin)) \
		"$([ "$failed" = 0 ] && echo ok || echo FAILED)"
}

stage format-check "$make" --no-print-directory format-check || { summary; exit 1; }
stage build "$make" -j"$jobs" --no-print-directory all tools unit-build || { summary; exit 1; }

# the sanitizers and the fuzzers start as soon as the release build is done
beside >"$logs/bg.log" 2>&1 &
bg=$!
trap 'kill -TERM -- -$bg 2>/dev/null; kill -TERM $bg 2>/dev/null' INT TERM HUP

stage unit env UNIT_JOBS="$jobs" "$make" --no-print-directory unit-run
stage man-lint "$make" --no-print-directory man-lint
stage unit-sh "$make" --no-print-directory unit-sh

if [ "$(id -u)" = 0 ]; then
	stage integration tests/run-integration.sh
else
	n=$(ls tests/integration/test_*.sh | wc -l)
	echo "== check: integration: SKIPPED, all $n tests: not root (STEERLAB_SKIP_ROOT=1)"
	record "integration (skipped: $n)" 0 0
fi

echo "== check: waiting for the sanitizers' unit tests and the fuzzers"
wait "$bg"
bgfail=0
for want in unit-asan-build unit-asan fuzz-build fuzz-run; do
	line=$(grep "^$want " "$logs/bg.times" 2>/dev/null)
	if [ -z "$line" ]; then
		record "$want (not run)" 0 1
		bgfail=1
	else
		read -r name took rc <<<"$line"
		record "$name (beside)" "$took" "$rc"
		[ "$rc" = 0 ] || bgfail=1
	fi
done
if [ "$bgfail" = 1 ]; then
	echo "== check: the sanitizers' and fuzzers' output (its last 80 lines; all of it in $logs/bg.log):"
	tail -n 80 "$logs/bg.log"
fi
summary
[ "$failed" = 0 ] && rm -rf "$logs"
exit "$failed"
