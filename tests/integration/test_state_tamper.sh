#!/usr/bin/env bash
# steerlab's files and state cannot be turned against the machine:
# (d) a symbolic link planted in an `up --out` directory (an agent's log,
#     an agent's events file, the lab's events file) is not followed: up
#     refuses the directory (not empty: lab/build/rundir.c) before it makes
#     anything, its target is untouched, nothing of the lab remains;
# (e) `down` of a lab whose state was tampered with (a namespaces line
#     ../../VICTIM and a foreign namespace; an agents.tsv line with the PID
#     and true start time of a process that is not an agent) refuses those
#     lines, keeps the victim file, the foreign namespace and the process,
#     and removes only what is the lab's;
# and, under umask 000, the state is still private (/run/steerlab 0711:
# FRR's daemons traverse it, nobody else lists it; a lab's 0700, files
# 0644), and an agent holds no descriptor of steerlab's.
# about 3 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-tamper
foreign=it-foreign
lab_guard $lab
ip netns list | awk '{print $1}' | grep -x $foreign >/dev/null && fail "namespace $foreign already exists"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
victim=$out/victim
sleep_pid=
cleanup() {
	set +e # every step, whatever the one before returned
	lab_cleanup $lab
	[ -n "$sleep_pid" ] && kill "$sleep_pid" 2>/dev/null
	ip netns list | awk '{print $1}' | grep -x $foreign >/dev/null && ip netns delete $foreign
	rm -rf "$out"
}
trap cleanup EXIT
echo "not to be written" >"$victim"
victim_sum=$(sha256sum <"$victim")

# (d) one planted link per up
for planted in a.sited.log a.prober.events.jsonl lab.events.jsonl; do
	rundir=$out/planted-${planted//./-}
	mkdir "$rundir"
	ln -s "$victim" "$rundir/$planted"
	rc=0
	$STEERLAB up topology/anycast.ini --set name=$lab --out "$rundir" >"$out/up.out" 2>&1 || rc=$?
	cat "$out/up.out"
	[ "$rc" -eq 1 ] || fail "up with $planted planted: exit status $rc, expected 1"
	# refused before anything is made: the directory is not empty
	grep -q "^steerlab: up: $rundir is not empty (it has $planted" "$out/up.out" ||
		fail "up does not refuse the directory that holds $planted"
	[ -L "$rundir/$planted" ] || fail "$planted is no longer the planted link"
	[ "$(sha256sum <"$victim")" = "$victim_sum" ] || fail "the victim file was written through $planted"
	[ -e /run/steerlab/$lab ] && fail "up with $planted planted left its state"
	ip netns list | grep "^$lab-" >/dev/null && fail "up with $planted planted left namespaces"
	echo "ok: $planted planted: not followed, the victim is untouched, nothing remains"
done

# (e) a lab up under umask 000
rundir=$out/run
(umask 000 && $STEERLAB up topology/anycast.ini --traffic --set name=$lab --out "$rundir") || fail "steerlab up failed"
[ "$(stat -c %a /run/steerlab)" = 711 ] || fail "/run/steerlab is $(stat -c %a /run/steerlab), expected 711"
[ "$(stat -c %a /run/steerlab/$lab)" = 700 ] || fail "the state directory is not 0700"
for f in /run/steerlab/$lab/* "$rundir"/*; do
	case $(stat -c %a "$f") in
	644 | 755) ;;
	*) fail "$f is $(stat -c %a "$f") under umask 000" ;;
	esac
done
echo "ok: under umask 000 the state directory is 0700 and no file is writable by others"
# what an agent holds: its standard streams and its own files and sockets
sited=$(awk '$3 == "b" && $4 == "sited" { print $1 }' "$rundir/agents.tsv")
fds=$(ls -l /proc/$sited/fd | awk 'NR > 1 { print $9, $10, $11 }')
echo "$fds"
grep -q "lab.events.jsonl\|pipe:" <<<"$fds" && fail "sited holds a descriptor of steerlab's"
grep -q "^0 -> /dev/null$" <<<"$fds" || fail "sited's standard input is not /dev/null"
echo "ok: sited holds no descriptor of steerlab's"

ip netns add $foreign
sleep 1000 &
sleep_pid=$!
start=$(sed 's/.*) //' /proc/$sleep_pid/stat | awk '{ print $20 }')
state=/run/steerlab/$lab
printf '../../%s\n%s\n' "${victim#/}" $foreign >>$state/namespaces
printf '%d\t%s\tc1\tclient\n' $sleep_pid "$start" >>$state/agents.tsv
# an FRR label is FRR's program, and only it
printf '%d\t%s\tcore\tbgpd\n' $sleep_pid "$start" >>$state/agents.tsv
rc=0
$STEERLAB down $lab >"$out/down.out" 2>&1 || rc=$?
cat "$out/down.out"
[ "$rc" -eq 1 ] || fail "down of a tampered lab: exit status $rc, expected 1"
grep -q "namespaces:[0-9]*: refused: '../..${victim}' is not a namespace of lab $lab" "$out/down.out" ||
	fail "down does not refuse the ../.. line by its line"
grep -q "namespaces:[0-9]*: refused: '$foreign' is not a namespace of lab $lab" "$out/down.out" ||
	fail "down does not refuse $foreign by its line"
grep -q "agents.tsv:[0-9]*: refused: pid $sleep_pid runs .*sleep, not .*/bin/client" "$out/down.out" ||
	fail "down does not refuse the sleep's line"
grep -q "agents.tsv:[0-9]*: refused: pid $sleep_pid runs .*sleep, not /usr/lib/frr/bgpd" "$out/down.out" ||
	fail "down does not refuse the sleep's line labelled bgpd"
grep -q "^steerlab: $lab down: 7 agents stopped, 4 namespaces removed; 4 lines of its state refused" "$out/down.out" ||
	fail "down's summary"
[ "$(sha256sum <"$victim")" = "$victim_sum" ] || fail "the victim file changed"
ip netns list | awk '{print $1}' | grep -x $foreign >/dev/null || fail "the foreign namespace $foreign was removed"
kill -0 $sleep_pid || fail "the sleep (pid $sleep_pid) was signalled"
echo "ok: the victim, $foreign and the sleep are untouched"
assert_no_leftovers $lab "$rundir"
kill $sleep_pid
wait $sleep_pid 2>/dev/null || true
sleep_pid=
ip netns delete $foreign
