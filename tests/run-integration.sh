#!/usr/bin/env bash
# Run the integration tests (tests/integration/test_*.sh, or those given), as
# root, INTEGRATION_JOBS at a time (default 4: a lab mostly waits on its
# clocks, so four share two cores; five made every lab slower: 1927 s of
# labs against 1575, no sooner done), the longest first (each test's "# about
# N s" line). Each test runs in a mount namespace of its own whose
# /run/netns and /run/steerlab are empty tmpfs: two tests can bring up labs
# of the same name without meeting, and what a test leaves behind is seen:
# a process still in its mount namespace when it ends fails it (and is
# killed, by PID). A test that runs longer than INTEGRATION_TIMEOUT
# (default 600 s) is stopped and fails. Tests marked "# heavy" (a client
# population at thousands of requests/s) run one at a time.
#
# Without root the tests cannot run: that fails, unless
# STEERLAB_SKIP_ROOT=1 says a run without them is wanted, and then the
# skipped tests are counted and named as skipped.
cd "$(dirname "$0")/.." || exit 1
if [ $# -gt 0 ]; then tests=("$@"); else tests=(tests/integration/test_*.sh); fi
jobs=${INTEGRATION_JOBS:-4}
limit=${INTEGRATION_TIMEOUT:-600}

if [ "$(id -u)" != 0 ]; then
	if [ "${STEERLAB_SKIP_ROOT:-}" = 1 ]; then
		echo "integration: SKIPPED all ${#tests[@]}: not root (STEERLAB_SKIP_ROOT=1); they need network namespaces"
		echo "integration: 0 passed, 0 failed, ${#tests[@]} skipped"
		exit 0
	fi
	echo "integration: the ${#tests[@]} integration tests need root (network namespaces): run sudo make check," >&2
	echo "integration: or STEERLAB_SKIP_ROOT=1 make check to skip them knowingly" >&2
	exit 1
fi
command -v unshare >/dev/null || { echo "integration: no unshare (util-linux)" >&2; exit 1; }

logs=$(mktemp -d /tmp/steerlab-integration.XXXXXX)
mkdir -p /run/netns /run/steerlab

# the longest first: "# about N s" in a test's first 40 lines, else 30
order=$(for t in "${tests[@]}"; do
	s=$(head -n 40 "$t" | sed -n 's/^# about \([0-9]*\) s.*/\1/p' | head -n 1)
	echo "${s:-30} $t"
done | sort -k1,1nr -k2 | awk '{print $2}')

# isolated T LOG NSFILE: run test T in a mount namespace of its own. A
# sentinel (sleep) holds the namespace until the runner has looked for what
# the test left in it: a namespace that ended could give its number to
# another test's, whose processes would then be taken for leftovers. A
# heavy test (below) runs at nice -10: its population must keep each 100
# ms on schedule, and on a 2-core gate the other labs and the sanitizers'
# build beside them took that from it (client_stalled, twice in a row).
isolated() {
	local t=$1 log=$2 nsfile=$3 prio=0
	[ -n "${heavy[$t]:-}" ] && prio=-10
	# its CPU counted apart, where cgroup v1's cpuacct lets us (cputime)
	[ -n "$cgroot" ] && mkdir -p "$cgroot/$(basename "$t" .sh)" 2>/dev/null &&
		echo "$BASHPID" >"$cgroot/$(basename "$t" .sh)/cgroup.procs" 2>/dev/null
	timeout --kill-after=10 "$limit" nice -n "$prio" unshare --mount --propagation private -- bash -c '
		mount -t tmpfs -o mode=0755 steerlab-it /run/netns &&
		mount -t tmpfs -o mode=0711 steerlab-it /run/steerlab || exit 1
		sleep infinity </dev/null >/dev/null 2>&1 &
		echo "$! $(readlink /proc/self/ns/mnt)" >"$2"
		exec bash "$1"' isolated "$t" "$nsfile" >"$log" 2>&1 &
	echo $! >"$nsfile.timeout"
	wait $!
}

# The CPU each test took (its agents, daemons and tools, all it started),
# said beside its wall time: what loads the gate's two cores is CPU, not
# wall time. Counted in a cpuacct cgroup (v1) per test when there is one to
# make; otherwise not said.
cgroot=
if [ -w /sys/fs/cgroup/cpuacct ] && [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
	cgroot=/sys/fs/cgroup/cpuacct/steerlab-it.$$
	mkdir "$cgroot" 2>/dev/null || cgroot=
fi
# cputime NAME: the CPU seconds test NAME took, "" if not counted
cputime() {
	local u
	[ -n "$cgroot" ] && u=$(cat "$cgroot/$1/cpuacct.usage" 2>/dev/null) && [ -n "$u" ] &&
		awk -v u="$u" 'BEGIN { printf "%.0f", u / 1e9 }'
}
# cgroups_remove: each test's cgroup, then ours; a cgroup with a process
# still exiting in it (a sentinel just killed) is tried again for up to 2 s
cgroups_remove() {
	[ -n "$cgroot" ] || return 0
	local d i
	for d in "$cgroot"/*/ "$cgroot"; do
		[ -d "$d" ] || continue
		for i in $(seq 1 40); do
			rmdir "$d" 2>/dev/null && break
			sleep 0.05
		done
	done
	return 0
}

# leftovers NSFILE: the PIDs still in the test's mount namespace but its
# sentinel's (one find: a readlink per process cost 16 s of CPU a make check)
leftovers() {
	local sentinel ns pattern p
	read -r sentinel ns <"$1" 2>/dev/null || return 0
	[ -n "$ns" ] || return 0
	pattern=${ns//[/\\[} pattern=${pattern//]/\\]}
	for p in $(find /proc/[0-9]*/ns/mnt -maxdepth 0 -lname "$pattern" 2>/dev/null); do
		p=${p#/proc/} p=${p%%/*}
		[ "$p" != "$sentinel" ] && echo "$p"
	done
}

# release NSFILE: end the sentinel, and with it the namespace
release() {
	local sentinel ns
	read -r sentinel ns <"$1" 2>/dev/null || return 0
	[ "$(readlink "/proc/$sentinel/ns/mnt" 2>/dev/null)" = "$ns" ] && kill "$sentinel" 2>/dev/null
	return 0
}

declare -A pid_of start_of
passed=0 failed=0 failures=() times=() cpus=()
finish() { # finish T RC
	local t=$1 rc=$2 name secs left p cpu
	name=$(basename "$t" .sh)
	secs=$(($(date +%s) - start_of[$t]))
	left=$(leftovers "$logs/$name.ns")
	if [ -n "$left" ]; then
		for p in $left; do
			echo "left running by $t: pid $p ($(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)): killed" >>"$logs/$name.log"
			kill -KILL "$p" 2>/dev/null
		done
		rc=1
	fi
	release "$logs/$name.ns"
	[ "$rc" = 124 ] && echo "stopped after ${limit} s (INTEGRATION_TIMEOUT)" >>"$logs/$name.log"
	times+=("$secs $name")
	cpu=$(cputime "$name")
	[ -n "$cpu" ] && cpus+=("$cpu $name") && cpu=", cpu $cpu s"
	if [ "$rc" = 0 ]; then
		echo "PASS $t ($secs s$cpu)"
		passed=$((passed + 1))
	else
		# its last lines first (what failed: a log cut to its first
		# lines shows that), then all of it
		echo "FAIL $t ($secs s): its last lines:"
		tail -n 12 "$logs/$name.log" | sed 's/^/  > /'
		echo "FAIL $t: its output:"
		sed 's/^/  | /' "$logs/$name.log"
		echo "FAIL $t ($secs s)"
		failed=$((failed + 1))
		failures+=("$t")
	fi
}

# interrupted: stop every test still running (each timeout passes it on
# to its test's process group), and say so
stop_all() {
	local t f
	trap - INT TERM HUP
	echo "integration: interrupted: stopping ${#pid_of[@]} running test(s)" >&2
	for t in "${!pid_of[@]}"; do
		kill -TERM "$(cat "$logs/$(basename "$t" .sh).ns.timeout" 2>/dev/null)" 2>/dev/null
	done
	wait
	for f in "$logs"/*.ns; do release "$f"; done
	cgroups_remove
	echo "integration: logs in $logs" >&2
	exit 130
}
trap stop_all INT TERM HUP

# heavy T: the test says "# heavy" in its first 40 lines: it runs a client
# population at thousands of requests/s, and two such at once starve each
# other on a 2-core machine (a population that falls behind its schedule
# invalidates its run: client_stalled); one heavy test runs at a time
declare -A heavy
for t in "${tests[@]}"; do
	head -n 40 "$t" | grep -q '^# heavy' && heavy[$t]=1
done
heavy_running() {
	local t
	for t in "${!pid_of[@]}"; do [ -n "${heavy[$t]:-}" ] && return 0; done
	return 1
}
# next_test: the first of the queue that may start now (a heavy one waits
# while another runs, the others go past it), into t; 1 if none
next_test() {
	local i
	for i in "${!queue[@]}"; do
		t=${queue[$i]}
		if [ -z "${heavy[$t]:-}" ] || ! heavy_running; then
			unset "queue[$i]"
			queue=("${queue[@]}")
			return 0
		fi
	done
	return 1
}

begin=$(date +%s)
queue=($order)
while [ ${#queue[@]} -gt 0 ] || [ ${#pid_of[@]} -gt 0 ]; do
	while [ ${#queue[@]} -gt 0 ] && [ ${#pid_of[@]} -lt "$jobs" ] && next_test; do
		name=$(basename "$t" .sh)
		start_of[$t]=$(date +%s)
		isolated "$t" "$logs/$name.log" "$logs/$name.ns" &
		pid_of[$t]=$!
	done
	wait -n -p done_pid "${pid_of[@]}"
	rc=$?
	for t in "${!pid_of[@]}"; do
		if [ "${pid_of[$t]}" = "$done_pid" ]; then
			unset "pid_of[$t]"
			finish "$t" "$rc"
		fi
	done
done
wall=$(($(date +%s) - begin))

# top5 "SECONDS NAME"...: the five largest, "NAME S s, ..."
top5() {
	printf '%s\n' "$@" | sort -nr | head -n 5 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }'
}
echo "integration: the slowest: $(top5 "${times[@]}")"
[ ${#cpus[@]} -gt 0 ] && echo "integration: CPU $(printf '%s\n' "${cpus[@]}" |
	awk '{ s += $1 } END { print s }') s in all; the hungriest: $(top5 "${cpus[@]}")"
cgroups_remove
[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
echo "integration: $passed passed, $failed failed in $wall s ($jobs at a time; logs in $logs)"
[ "$failed" -eq 0 ] && rm -rf "$logs"
[ "$failed" -eq 0 ]
