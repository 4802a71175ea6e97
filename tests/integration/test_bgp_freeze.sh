#!/usr/bin/env bash
# A silent failure under BGP (issue 12, item 7): site a frozen (nftables
# drop in its namespace, links up, its prober still seeing it healthy over
# loopback), so only BGP's hold timer, or BFD, can notice. Two short runs of
# one router and two sites, timed from the freeze's event_applied to the
# router's first FIB change of the service prefix (its collector's
# route events):
#   1. bgp_keepalive = 1s, bgp_hold = 3s, no BFD: the route leaves within
#      the hold time +- one keepalive (2 s .. 4 s);
#   2. bfd = yes, 100 ms x 3: BFD noticed (core's bgpd sent no Hold Timer
#      Expired; not before two intervals, and before the hold timer could
#      have: 0.2 s .. 2 s).
# Then a BFD session that never comes up fails the warm-up, naming it.
# In both the route moves to b, and the anycast FIB clocks say so.
# about 26 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-bgpfreeze
lab_guard $lab
[ -x /usr/lib/frr/bgpd ] || fail "FRR is not installed (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)

cat >"$out/freeze.ini" <<EOF2
[lab]
name = $lab
routing = bgp
duration = 7s
bgp_keepalive = 1s
bgp_hold = 3s
[router core]
[site a]
link = core
metric = 10
[site b]
link = core
metric = 20
[client c1]
link = core
rate = 200
[event e1]
at = 1s
action = freeze
target = a
EOF2

# leave RUNDIR: seconds from e1's event_applied to core's first route
# event of the service prefix after it, and that event's next hop
leave() {
	local t moved
	t=$(jq -r 'select(.event == "event_applied" and .name == "e1") | .t' "$1/lab.events.jsonl")
	moved=$(jq -r --argjson t "$t" 'select((.event == "route_added" or .event == "route_deleted")
		and .prefix == "198.19.0.1/32" and .t > $t) | "\(.t) \(.event) \(.via)"' \
		"$1/core.collector.events.jsonl" | sed -n 1p)
	[ -n "$moved" ] || fail "$1: core's route to the service never changed after the freeze"
	read -r mt ev via <<<"$moved"
	awk -v a="$mt" -v b="$t" -v ev="$ev" -v via="$via" 'BEGIN { printf "%.3f %s %s\n", (a - b) / 1e9, ev, via }'
}

for mode in hold bfd; do
	set -- --set name=$lab
	# the warm-up waits for every BFD session to be up (bfdd at SCHED_FIFO:
	# at 100 ms x 3 a loaded machine holding it back went down at bring-up)
	[ $mode = bfd ] && set -- "$@" --set bfd=yes --set bfd_interval=100ms --set bfd_multiplier=3
	rc=0
	$STEERLAB run "$out/freeze.ini" -q "$@" --out "$out/$mode" >"$out/$mode.txt" 2>&1 || rc=$?
	# a freeze is noticed by no prober of a's own: the run may carry warnings,
	# even invalidating ones (said), and is judged on its events here
	[ $rc = 0 ] || [ $rc = 3 ] || fail "$mode: run exited with status $rc: $(tail "$out/$mode.txt")"
	[ $rc = 0 ] || echo "note: $mode: an invalid run ($(run_codes "$out/$mode")): judged on its events"
	t0=$(jq -r 'select(.event == "site_failed") | .t' "$out/$mode/lab.events.jsonl")
	slack=$(sched_slack "$out/$mode" $((t0 - 1000000000)) $((t0 + 5000000000)))
	read -r s ev via < <(leave "$out/$mode")
	echo "$mode: core's route changed $s s after the freeze ($ev via $via)"
	[ "$ev $via" = "route_added 198.18.0.6" ] || [ "$ev" = route_deleted ] ||
		fail "$mode: core's first change after the freeze is $ev via $via, expected the move to b"
	if [ $mode = hold ]; then
		assert_ge "$s" 2.0 "hold: not before hold - keepalive (s)"
		assert_le "$s" "$(awk -v s="$slack" 'BEGIN { print 4.0 + s }')" \
			"hold: within hold + keepalive, and the slack $slack (s)"
	else
		# BFD noticed, not the hold timer: core's bgpd sent a no Hold
		# Timer Expired, and the route moved before the hold timer could
		# have (hold - keepalive). BFD's 0.3 s is then bgpd's and zebra's
		# time on top, which a loaded gate stretched to 0.68 s (0.30-0.35
		# s on a quiet machine)
		grep "sent to neighbor 198.18.0.2 4/0 (Hold Timer Expired)" "$out/$mode/core.bgpd.log" >/dev/null &&
			fail "bfd: core's bgpd let the hold timer expire: BFD did not notice the freeze"
		assert_ge "$s" 0.2 "bfd: not before two BFD intervals (s)"
		assert_lt "$s" 2.0 "bfd: before the hold timer could have (hold 3 s - keepalive 1 s)"
	fi
	# the FIB clocks see it too: core's route after is b's
	assert_eq "$(json "$out/$mode/clocks.json" '.schemes.anycast.fib.routers.core.after.site == "b"' |
		sed 's/true/1/;s/false/0/')" 1 "$mode: the FIB clocks' route after the freeze leads to b"
	assert_no_leftovers $lab "$out/$mode"
done
# a BFD session that never comes up (a's bgpd asks for none: its bfdd
# ignores core's): the warm-up fails at settle, naming it, with bfdd at
# SCHED_FIFO 40 meanwhile (settle 8 s: BGP must converge first, which a
# loaded gate took past 3 s)
sed 's/^\[site a\]$/[site a]\nfrr = router bgp 65101\nfrr =  no neighbor 198.18.0.1 bfd/' \
	"$out/freeze.ini" >"$out/nobfd.ini"
rc=0
$STEERLAB run "$out/nobfd.ini" -q --set name=$lab --set bfd=yes --set settle=8s --out "$out/nobfd" \
	>"$out/nobfd.txt" 2>&1 &
run=$!
bfdd_fifo() {
	local pid
	pid=$(awk '$3 == "core" && $4 == "bfdd" { print $1 }' "$out/nobfd/agents.tsv" 2>/dev/null)
	[ -n "$pid" ] && chrt -p "$pid" 2>/dev/null | grep 'SCHED_FIFO' >/dev/null &&
		chrt -p "$pid" | grep 'priority: 40$' >/dev/null
}
wait_until 10 bfdd_fifo || fail "core's bfdd never ran at SCHED_FIFO 40: $(chrt -p "$(awk '$4 == "bfdd" { print $1; exit }' "$out/nobfd/agents.tsv")" 2>&1)"
echo "ok: bfdd runs at SCHED_FIFO 40"
wait "$run" || rc=$?
assert_eq "$rc" 1 "exit status of a run whose BFD session never came up"
grep -qF "BFD was not up within 8.0 s (settle): BFD session of core with a (198.18.0.2): down" "$out/nobfd.txt" ||
	fail "no 'BFD was not up' naming core's session with a: $(cat "$out/nobfd.txt")"
echo "ok: $(grep -o 'BFD was not up.*: down' "$out/nobfd.txt")"
assert_no_leftovers $lab "$out/nobfd"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_bgp_freeze"
