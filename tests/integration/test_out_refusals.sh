#!/usr/bin/env bash
# Every command that makes a run directory (run, up, sweep, run --repeat)
# applies the same rules, before anything is made (lab/build/rundir.c): an --out
# that is a symbolic link (to /etc), a directory that is not empty, a path
# with a newline, and a lab that is already up are each refused with exit
# status 1, and then nothing exists that did not: no run directory, no
# file in the one given, no state, no namespace, and `ls -la /etc` is as it
# was (issue 19, items 1, 8 and 9).
# about 5 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=t19out
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT
topo=topology/anycast.ini
etc_before=$(ls -la --time-style=full-iso /etc)

# refused WHAT EXPECT CMD...: CMD exits 1 and says EXPECT (a grep -F pattern)
refused() {
	local what=$1 expect=$2 rc=0
	shift 2
	"$@" >"$out/cmd.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] || { cat "$out/cmd.log"; fail "$what: exit status $rc, expected 1"; }
	grep -qF -- "$expect" "$out/cmd.log" || { cat "$out/cmd.log"; fail "$what: no '$expect'"; }
	[ -e /run/steerlab/$lab ] && fail "$what: made the lab's state directory"
	if ip netns list | grep "^$lab-" >/dev/null; then fail "$what: made namespaces"; fi
	echo "ok: $what: refused ($expect)"
}

# the four commands, each with --out DIR: "NAME ARGS..."
cmds() {
	local dir=$1
	echo "run run $topo --set name=$lab --out $dir -q"
	echo "up up $topo --set name=$lab --out $dir"
	echo "sweep sweep $topo --set name=$lab --set probe_interval=100ms,200ms --out $dir -q"
	echo "repeat run $topo --set name=$lab --repeat 2 --out $dir -q"
}

# 1. --out a symbolic link to /etc
ln -s /etc "$out/link"
while read -r -a c; do
	refused "${c[0]} --out a link to /etc" "is a symbolic link (to /etc): refused" \
		$STEERLAB "${c[@]:1}"
done < <(cmds "$out/link")
[ "$(ls -la --time-style=full-iso /etc)" = "$etc_before" ] || fail "/etc changed"
echo "ok: ls -la /etc unchanged"

# 2. --out a directory that is not empty: untouched
mkdir "$out/full"
echo mine >"$out/full/notes.txt"
sums() { (cd "$out/full" && find . -printf '%p %s %T@\n' | sort); }
before=$(sums)
while read -r -a c; do
	case ${c[0]} in
	sweep | repeat) expect="is not a ${c[0]} directory (it has no ${c[0]}.args)" ;;
	*) expect="is not empty (it has notes.txt)" ;;
	esac
	refused "${c[0]} into a directory that is not empty" "$expect" $STEERLAB "${c[@]:1}"
done < <(cmds "$out/full")
[ "$(sums)" = "$before" ] || fail "the directory that was not empty changed"
echo "ok: the directory that was not empty is untouched"

# 3. a newline in --out
nl=$out/$'a\nb'
for c in run up sweep repeat; do
	case $c in
	run) args=(run $topo --set name=$lab -q) ;;
	up) args=(up $topo --set name=$lab) ;;
	sweep) args=(sweep $topo --set name=$lab --set probe_interval=100ms,200ms -q) ;;
	repeat) args=(run $topo --set name=$lab --repeat 2 -q) ;;
	esac
	refused "$c --out with a newline" "a control character (byte 0x0a) in the path: refused" \
		$STEERLAB "${args[@]}" --out "$nl"
	[ -e "$nl" ] && fail "$c made the directory with a newline"
	[ -e "$out/a" ] && fail "$c made a directory named after the path's first line"
done

# 4. the lab already up: up, run, sweep refused before their directory is made
$STEERLAB up $topo --set name=$lab --no-agents --out "$out/first" >"$out/up.log" 2>&1 ||
	{ cat "$out/up.log"; fail "up --no-agents failed"; }
for c in up run sweep; do
	case $c in
	up) args=(up $topo --set name=$lab) ;;
	run) args=(run $topo --set name=$lab -q) ;;
	sweep) args=(sweep $topo --set name=$lab --set probe_interval=100ms,200ms -q) ;;
	esac
	rc=0
	$STEERLAB "${args[@]}" --out "$out/second-$c" >"$out/cmd.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] || { cat "$out/cmd.log"; fail "$c of a lab that is up: exit status $rc, expected 1"; }
	grep -qF "lab '$lab' is already up" "$out/cmd.log" || { cat "$out/cmd.log"; fail "$c: no clear refusal"; }
	[ -e "$out/second-$c" ] && fail "the refused $c left its output directory: $(ls -A "$out/second-$c")"
	echo "ok: $c of a lab that is up: refused, no output directory made"
done
$STEERLAB down $lab >/dev/null
[ "$(ls -la --time-style=full-iso /etc)" = "$etc_before" ] || fail "/etc changed"
echo "ok: ls -la /etc unchanged"
