#!/usr/bin/env bash
# A transit router's FIB is measured too (tests/integration/data/transit.ini:
# r1 - r2 - r3, a on r1 failing, b on r3, r2 with no site): r2's collector runs
# as a route monitor alone (no capture), and its route to the service goes
# from r1 (to a) to r3 (to b) after t0; every router's FIB clocks are after
# t0, the convergence is the last of them; c1 (on r2) moves from a to b, c2
# stays on b; each [link] has its capture, by its first router; the run is
# valid and nothing of the lab remains.
# about 6 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-fibtrans
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run

run_valid - tests/integration/data/transit.ini --out "$rundir" --quiet
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" .warnings)"
echo "ok: a valid run"

# r2's collector: no capture, the route monitor alone
[ -e "$rundir/r2.collector.events.jsonl" ] || fail "r2 runs no collector"
! has_event "$rundir/r2.collector.events.jsonl" capture_ready || fail "r2's collector captures a link"
has_event "$rundir/r2.collector.events.jsonl" route_deleted || fail "r2's collector saw no route leave"
for f in capture-link-r1-r2.pcap capture-link-r3-r2.pcap; do
	[ -e "$rundir/$f" ] || fail "no $f"
done
[ ! -e "$rundir/capture-link-r2-r1.pcap" ] || fail "a link captured twice"
echo "ok: r2's collector is a route monitor alone; each [link] captured once, by its first router"

fib=.schemes.anycast.fib
[ "$(json "$clocks" "$fib.routers | keys | join(\" \")")" = "r1 r2 r3" ] ||
	fail "FIB clocks of routers $(json "$clocks" "$fib.routers | keys")"
for r in r1 r2 r3; do
	assert_gt "$(json "$clocks" "$fib.routers.$r.first_s")" 0 "$r's first FIB change after t0"
done
for want in "r2 before a 198.18.32.1" "r2 after b 198.18.32.5"; do
	set -- $want
	[ "$(json "$clocks" "$fib.routers.$1.$2 | [.site, .via[0]] | join(\" \")")" = "$3 $4" ] ||
		fail "$1's route $2 t0: $(json "$clocks" "$fib.routers.$1.$2")"
done
assert_eq "$(json "$clocks" "$fib.routers.r2.path_changes")" 1 "r2's path changes"
conv=$(json "$clocks" "$fib.convergence_s")
[ "$conv" = "$(json "$clocks" "[$fib.routers[].final_s] | max")" ] ||
	fail "convergence $conv is not the last router's final change"
echo "ok: r2's route went from r1 (a) to r3 (b); convergence $conv s"

catch=.schemes.anycast.catchments
for want in "1 c1 a b true" "2 c2 b b false"; do
	set -- $want
	got="$(json "$clocks" "$catch[\"$1\"] | [.node, .before.site, .after.site, .moved] | join(\" \")")"
	[ "$got" = "$2 $3 $4 $5" ] || fail "catchment of client $1: '$got', expected '$2 $3 $4 $5'"
done
echo "ok: catchments c1 a -> b, c2 b -> b"

assert_no_leftovers $lab "$rundir"
