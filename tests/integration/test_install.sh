#!/usr/bin/env bash
# An installed steerlab runs labs from any directory with the agents of its
# LIBEXECDIR: make install to a PREFIX of its own (built apart, in a build
# directory of its own, since LIBEXECDIR is compiled in), `up` from there
# runs every agent from PREFIX/libexec/steerlab and `down` stops them, a
# short `run` of the installed anycast.ini from another directory writes its
# run directory there and measures the failover, and make uninstall leaves
# nothing of PREFIX. tests/unit/test_install.sh checks the files themselves.
# about 25 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=i-install
lab_guard $lab
tmp=$(mktemp -d /tmp/steerlab-it-install.XXXXXX)
trap 'lab_cleanup $lab; rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
vars=(PREFIX="$prefix" BUILD="$tmp/build" OUTBIN="$tmp/build/bin")
unset MAKEFLAGS MFLAGS MAKELEVEL

# from a copy of the checkout's build when there is one: only what
# LIBEXECDIR changes is built again (lab/agentdir.o, and the links)
[ -d build/release/obj ] && cp -a build/release "$tmp/build"
make -s -j2 install "${vars[@]}" >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make install ${vars[*]}"; }
tail -1 "$tmp/make.log"
STEERLAB=$prefix/bin/steerlab
libexec=$(realpath "$prefix/libexec/steerlab")
[ -x "$STEERLAB" ] && [ -x "$libexec/sited" ] || fail "make install put no steerlab or no agents under $prefix"
[ ! -e "$prefix/bin/sited" ] || fail "the agents are in $prefix/bin: steerlab would not need LIBEXECDIR"

# up: every agent is the installed one
mkdir "$tmp/work"
(cd "$tmp/work" && "$STEERLAB" up "$prefix/share/steerlab/topology/anycast.ini" --traffic --set name=$lab --out "$tmp/up") \
	>"$tmp/up.log" 2>&1 || { cat "$tmp/up.log"; fail "installed steerlab up"; }
[ "$(cat /run/steerlab/$lab/bindir)" = "$libexec" ] ||
	fail "the lab's agents are from $(cat /run/steerlab/$lab/bindir), not $libexec"
n=0
while read -r pid _ node agent; do
	exe=$(readlink "/proc/$pid/exe") || fail "$agent of $node (pid $pid) is not running"
	case $exe in "$libexec"/*) ;; *) fail "$agent of $node runs $exe, not from $libexec" ;; esac
	n=$((n + 1))
done <"$tmp/up/agents.tsv"
[ "$n" -ge 5 ] || fail "only $n agents in $tmp/up/agents.tsv"
echo "ok: up: the $n agents run from $libexec"
"$STEERLAB" down $lab >/dev/null || fail "installed steerlab down $lab"
assert_no_leftovers $lab "$tmp/up"

# run, from a directory of its own: the run directory is there. Not a test
# of the verdict: a run it finds invalid (exit status 3: a loaded machine
# starved the collector) is said, with its codes, and run once more
# (lib.sh's run_valid, for a run whose directory steerlab names)
installed_run() {
	(cd "$tmp/work" && "$STEERLAB" run "$prefix/share/steerlab/topology/anycast.ini" \
		--set name=$lab --set duration=3s --set fail_at=1s --quiet) >"$tmp/run.log" 2>&1
}
rc=0
installed_run || rc=$?
if [ "$rc" = 3 ]; then
	echo "note: an invalid run ($(run_codes "$(echo "$tmp"/work/runs/$lab-*)")); running it once more" >&2
	mv "$tmp/work/runs" "$tmp/runs.invalid"
	rc=0
	installed_run || rc=$?
fi
[ "$rc" = 0 ] || { cat "$tmp/run.log"; fail "installed steerlab run: exit status $rc"; }
rundir=$(echo "$tmp"/work/runs/$lab-*)
[ -d "$rundir" ] || fail "no run directory under $tmp/work/runs"
clocks=$rundir/clocks.json
window=$(json "$clocks" .schemes.anycast.window_s)
lost=$(json "$clocks" .schemes.anycast.lost_capture)
is_number "$window" || fail "no anycast window in $clocks"
assert_gt "$lost" 0 "requests reached the dead site after t0: the failure happened"
echo "ok: run from $tmp/work: $rundir, anycast window $window s, $lost requests lost"
assert_no_leftovers $lab "$rundir"

make -s uninstall "${vars[@]}" >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make uninstall"; }
[ ! -e "$prefix" ] || { find "$prefix" >&2; fail "make uninstall left the above"; }
echo "ok: make uninstall removed $prefix, which install had made"
