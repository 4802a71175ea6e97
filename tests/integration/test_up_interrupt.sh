#!/usr/bin/env bash
# `steerlab up` interrupted at many points of its bring-up (SIGINT, SIGTERM,
# SIGHUP, and SIGKILL, which it cannot catch), then `steerlab down` if the
# lab's state is still there: afterwards no namespace, no state and no
# process of the lab remains, recorded or not (issue 19, item 2). A caught
# signal takes down what was made at once. A process started in a lab's
# namespace behind its back is stopped by down too, and two downs of one
# lab at once take it down once (item 10).
# about 20 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=t19sig
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT
bindir=$(realpath "$(dirname "$STEERLAB")")
topo=topology/anycast.ini

# lab_procs: the processes running one of this checkout's agent programs,
# wherever their network namespace (one already deleted included), in this
# test's mount namespace: tests/run-integration.sh gives each test its own,
# and another test's labs run the same programs beside this one
# (two finds: the processes of this mount namespace, then which of them run
# an agent; a readlink per agent process of every test's labs was 890
# programs started a gate)
mnt=$(readlink /proc/self/ns/mnt)
mnt_pattern=${mnt//[/\\[} mnt_pattern=${mnt_pattern//]/\\]}
lab_procs() {
	local p exes=()
	for p in $(find /proc/[0-9]*/ns/mnt -maxdepth 0 -lname "$mnt_pattern" 2>/dev/null); do
		exes+=("${p%/ns/mnt}/exe")
	done
	[ ${#exes[@]} -gt 0 ] || return 0
	find "${exes[@]}" -maxdepth 0 -lname "$bindir/*" ! -lname "$bindir/steerlab*" \
		-printf '%h %l\n' 2>/dev/null
	return 0
}

assert_clean() {
	local what=$1 left
	if ip netns list | grep "^$lab-" >/dev/null; then
		fail "$what: namespaces remain: $(ip netns list | grep "^$lab-" | tr '\n' ' ')"
	fi
	[ -e /run/steerlab/$lab ] && fail "$what: the state directory remains"
	left=$(lab_procs)
	[ -z "$left" ] || fail "$what: processes of the lab remain: $left"
	return 0
}

# a signal at each of these delays after the start (s): up takes ~0.7 s here
i=0
for case in INT:0.02 TERM:0.05 HUP:0.08 INT:0.12 KILL:0.12 TERM:0.16 INT:0.2 KILL:0.2 \
	HUP:0.25 INT:0.3 KILL:0.3 TERM:0.4 INT:0.5 KILL:0.45 HUP:0.6 INT:0.8 KILL:0.6; do
	sig=${case%:*} delay=${case#*:}
	i=$((i + 1))
	$STEERLAB up $topo --set name=$lab --out "$out/up$i" >"$out/up$i.log" 2>&1 &
	pid=$!
	sleep "$delay"
	kill -"$sig" $pid 2>/dev/null || true
	rc=0
	wait $pid || rc=$?
	if [ "$sig" != KILL ] && grep -q "interrupted" "$out/up$i.log"; then
		# caught: up took down what it made, by itself
		[ "$rc" = 1 ] || { cat "$out/up$i.log"; fail "SIG$sig at $delay s: exit status $rc"; }
		assert_clean "SIG$sig at $delay s (before down)"
		how="up took it down itself"
	else
		how="exit status $rc"
	fi
	if [ -e /run/steerlab/$lab ]; then
		$STEERLAB down $lab >"$out/down$i.log" 2>&1 ||
			{ cat "$out/up$i.log" "$out/down$i.log"; fail "SIG$sig at $delay s: down failed"; }
		how="$how; $(cat "$out/down$i.log")"
	fi
	assert_clean "SIG$sig at $delay s"
	echo "ok: SIG$sig at $delay s: nothing of the lab remains ($how)"
done

# a process in one of its namespaces that no agents.tsv names
$STEERLAB up $topo --set name=$lab --no-agents --out "$out/stray" >/dev/null
ip netns exec $lab-core sleep 300 &
stray=$!
# ip netns exec enters the namespace, then becomes sleep
is_sleep() { [[ $(readlink /proc/$stray/exe) == */sleep ]]; }
wait_until 5 is_sleep || fail "ip netns exec did not start sleep"
$STEERLAB down $lab >"$out/stray.log" 2>&1 || { cat "$out/stray.log"; fail "down with a stray process failed"; }
cat "$out/stray.log"
grep -q "1 process it had not recorded stopped (sleep $stray)" "$out/stray.log" ||
	fail "down did not say it stopped the stray process"
wait $stray 2>/dev/null || true
[ -e /proc/$stray ] && fail "the stray process $stray is still running"
assert_clean "a stray process"
echo "ok: a process in a lab namespace that no agents.tsv names is stopped by down"

# two downs at once: one takes the lab down, the other waits and says so
$STEERLAB up $topo --set name=$lab --out "$out/twice" >/dev/null
$STEERLAB down $lab >"$out/d1.log" 2>&1 &
d1=$!
$STEERLAB down $lab >"$out/d2.log" 2>&1 &
d2=$!
rc1=0 rc2=0
wait $d1 || rc1=$?
wait $d2 || rc2=$?
cat "$out/d1.log" "$out/d2.log"
[ $((rc1 + rc2)) = 1 ] || fail "two downs at once: exit statuses $rc1 and $rc2, expected 0 and 1"
grep -h "agents stopped" "$out/d1.log" "$out/d2.log" | grep "6 agents stopped" >/dev/null ||
	fail "the down that took the lab down did not stop its 6 agents"
[ "$(grep -c "agents stopped" "$out/d1.log" "$out/d2.log" | awk -F: '{s += $2} END {print s}')" = 1 ] ||
	fail "both downs say they stopped agents"
for e in lab_stopping lab_down; do
	n=$(jq -cR --arg e $e 'fromjson? | select(.event == $e)' "$out/twice/lab.events.jsonl" | wc -l)
	[ "$n" = 1 ] || fail "lab.events.jsonl has $n $e events, expected 1"
done
assert_clean "two downs at once"
echo "ok: two downs at once: one took the lab down, its closing events written once"
