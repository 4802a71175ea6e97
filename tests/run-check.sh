#!/usr/bin/env bash
# make check (README.md): the gate, every stage, in under 10 minutes on two
# cores. In order: the formatting; the release build (with the unit tests
# and the tools); its unit tests (as many suites at once as CPUs); the man
# pages; then the integration tests (root: namespaces), four at a time
# (tests/run-integration.sh), and beside them, at a lower priority, what
# only needs CPU: the shell unit tests (nice 10); the sanitizers' build
# (AddressSanitizer and UndefinedBehaviorSanitizer, nice 19) then their unit
# tests (nice 5); the fuzzers' build (nice 19) then the fuzzers (all at
# once, each for FUZZ_SECONDS of wall time, 5 here: libFuzzer's budget is
# the clock's, so nine at once take 5 s and what CPU there is). The labs
# mostly wait on their clocks (their CPU is about a core's of the gate's
# two, tests/run-integration.sh says it per test) and leave the rest idle,
# which those fill; at nice 19 a build takes idle CPU alone. The
# sanitizers' build ran in the foreground before the labs until 2026-12
# (36 s of the gate's wall on a quiet machine). The release unit tests
# run in the foreground: beside four labs a suite whose loop serves itself
# lost answers to timeouts of 200 ms. At the end, the wall time of every
# stage, the result, and what the machine did meanwhile (its CPUs' busy,
# iowait and steal shares, /proc/stat; CPU and I/O pressure, /proc/pressure):
# a gate slower than here says whether it lacked CPU or disk.
#
# Without root the integration tests cannot run, and make check fails at
# once, unless STEERLAB_SKIP_ROOT=1 asks for the rest without them (their
# number is said). make check MAKE=... passes make on; CHECK_JOBS sets the
# builds' -j and the unit tests' parallelism (default: the CPUs).
cd "$(dirname "$0")/.." || exit 1
make=${MAKE:-make}
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
fuzz_seconds=${FUZZ_SECONDS:-5}
fuzz_targets=$(ls tests/fuzz/fuzz_*.c | wc -l)
logs=$(mktemp -d /tmp/steerlab-check.XXXXXX)
begin=$(date +%s)
# machine_now: the CPUs' times (/proc/stat's cpu line, in ticks) and the
# pressure stall totals (us), for machine_said
machine_now() {
	local cpu io
	cpu=$(sed -n 's/^some .*total=\([0-9]*\)$/\1/p' /proc/pressure/cpu 2>/dev/null)
	io=$(sed -n 's/^some .*total=\([0-9]*\)$/\1/p' /proc/pressure/io 2>/dev/null)
	echo "$(head -n 1 /proc/stat) ${cpu:--} ${io:--}"
}
machine_begin=$(machine_now)
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

# step NAME CMD...: run CMD beside the integration tests, timed: its name,
# wall time and status go to $logs/bg.times, its output to $logs/NAME.log
step() {
	local name=$1 t rc=0
	shift
	t=$(date +%s)
	"$@" >"$logs/$name.log" 2>&1 || rc=$?
	echo "$name $(($(date +%s) - t)) $rc" >>"$logs/bg.times"
	return "$rc"
}

# beside: the shell unit tests (nice 10); the sanitizers' build (nice 19)
# then their unit tests (nice 5); and at the same time the fuzzers' build
# then the fuzzers (nice 19: they only ever take idle CPU); a build that
# failed is not run
beside() {
	step unit-sh nice -n 10 "$make" --no-print-directory unit-sh &
	{
		step build-asan nice -n 19 "$make" -j"$jobs" --no-print-directory SAN=1 \
			BUILD=build/asan unit-bins &&
			step unit-asan nice -n 5 env UNIT_JOBS="$jobs" "$make" \
				--no-print-directory SAN=1 BUILD=build/asan unit-run
	} &
	# the fuzzers' build too, at nice 19 (idle CPU only: beside the labs,
	# which mostly wait on their clocks, it took 23 s off the gate's wall)
	step build-fuzz nice -n 19 "$make" -j"$jobs" --no-print-directory fuzz &&
		step fuzz-run nice -n 19 "$make" -j"$fuzz_targets" --no-print-directory \
			fuzz-run FUZZ_SECONDS="$fuzz_seconds"
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
	machine_said
}

# machine_said: what the machine's CPUs did over the check (shares of their
# time: busy, and of it in the kernel (the labs' packets and timers are
# mostly the kernel's work, a build's the user's), waiting on I/O, stolen
# by the hypervisor) and the time some
# task waited for a CPU or for I/O (pressure; "-" where the kernel has none)
machine_said() {
	local end
	end=$(machine_now)
	awk -v a="$machine_begin" -v b="$end" -v secs=$(($(date +%s) - begin)) -v ncpu="$(nproc)" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		# cpu user nice system idle iowait irq softirq steal: fields 2-9
		for (i = 2; i <= 9; i++) { d[i] = y[i] - x[i]; all += d[i] }
		if (all <= 0) exit
		busy = d[2] + d[3] + d[4] + d[7] + d[8]
		cpu = (x[n - 1] == "-" || secs <= 0) ? "-" : sprintf("%.0f %%", (y[n - 1] - x[n - 1]) / 1e4 / secs)
		io = (x[n] == "-" || secs <= 0) ? "-" : sprintf("%.0f %%", (y[n] - x[n]) / 1e4 / secs)
		printf "check: machine: %d CPUs, over the check busy %.0f %% (kernel %.0f %%), iowait %.0f %%, " \
			"steal %.0f %%; some task waiting for a CPU %s of the time, for I/O %s\n", ncpu,
			100 * busy / all, 100 * (d[4] + d[7] + d[8]) / all, 100 * d[6] / all, 100 * d[9] / all,
			cpu, io
	}'
}

stage format-check "$make" --no-print-directory format-check || { summary; exit 1; }
stage build "$make" -j"$jobs" --no-print-directory all tools unit-build || { summary; exit 1; }

stage unit env UNIT_JOBS="$jobs" "$make" --no-print-directory unit-run
stage man-lint "$make" --no-print-directory man-lint
echo "== check: the shell unit tests, the sanitizers' build and unit tests and the fuzzers' build and runs, beside"
beside &
bg=$!
trap 'kill -TERM -- -$bg 2>/dev/null; kill -TERM $bg 2>/dev/null' INT TERM HUP

if [ "$(id -u)" = 0 ]; then
	stage integration tests/run-integration.sh
else
	n=$(ls tests/integration/test_*.sh | wc -l)
	echo "== check: integration: SKIPPED, all $n tests: not root (STEERLAB_SKIP_ROOT=1)"
	record "integration (skipped: $n)" 0 0
fi

echo "== check: waiting for the shell unit tests, the sanitizers' unit tests and the fuzzers beside"
wait "$bg"
want=(unit-sh build-asan build-fuzz)
grep -q '^build-asan [0-9]* 0$' "$logs/bg.times" 2>/dev/null && want+=(unit-asan)
grep -q '^build-fuzz [0-9]* 0$' "$logs/bg.times" 2>/dev/null && want+=(fuzz-run)
for w in "${want[@]}"; do
	line=$(grep "^$w " "$logs/bg.times" 2>/dev/null)
	if [ -z "$line" ]; then
		record "$w (beside: not run)" 0 1
		continue
	fi
	read -r name took rc <<<"$line"
	record "$name (beside)" "$took" "$rc"
	echo "== check: $name (beside): $([ "$rc" = 0 ] && echo "its last lines (all of it in $logs/$name.log)" || echo "its output")":
	if [ "$rc" = 0 ]; then
		tail -n 3 "$logs/$name.log"
	elif [ "$name" = fuzz-run ] || [ "${name#build-}" != "$name" ]; then
		tail -n 80 "$logs/$name.log"
	else
		cat "$logs/$name.log"
	fi
done
summary
[ "$failed" = 0 ] && rm -rf "$logs"
exit "$failed"
