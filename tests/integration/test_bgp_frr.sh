#!/usr/bin/env bash
# routing = bgp (FRR): topology/bgp-simple.ini, one router and two sites each
# in its own AS. check shows the FRR configurations and runs FRR's dry run; a
# line FRR rejects is refused before anything is built, with nothing left
# behind; a run is valid, the router's route to the service is bgpd's
# (proto bgp) before t0 and moves to site b after the kill; the same
# topology with routing = static gives the baseline; with two routers
# (topology/two-routers.ini) the withdrawal crosses an AS (the FIB clocks and
# catchments say so, the router link's capture shows the UPDATEs); vtysh, as the docs say,
# reaches the daemons of an `up` lab, bfdd's sessions among them; after
# `down` no FRR process, socket, pid file or namespace remains; a bgpd that
# dies mid-run makes the run invalid (exit status 3, agent_exited), and its
# crash directory is removed.
# about 40 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-bgp
lab_guard $lab
run_pid=
trap 'set +e; if [ -n "$run_pid" ]; then kill -INT "$run_pid" 2>/dev/null; wait "$run_pid"; fi
	lab_cleanup '$lab'' EXIT
[ -x /usr/lib/frr/bgpd ] || fail "FRR is not installed (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
topo=topology/bgp-simple.ini

# check: every generated configuration, dry-run by FRR
$STEERLAB check $topo --set name=$lab >"$out/check.txt"
grep -q '^#    neighbor 198.18.0.2 remote-as 65101$' "$out/check.txt" ||
	fail "check does not show core's bgpd configuration"
grep -q '^#    set metric 10$' "$out/check.txt" || fail "check does not show a's MED"
tail -1 "$out/check.txt" | grep '^# configuration OK$' >/dev/null || fail "check did not pass"
echo "ok: check shows the FRR configurations and passes FRR's dry run"

# a line FRR rejects: refused, naming the node and FRR's message, nothing made
rc=0
$STEERLAB run $topo --set name=$lab --set a.frr=bogus --out "$out/bad" 2>"$out/bad.err" || rc=$?
cat "$out/bad.err"
[ $rc -eq 1 ] || fail "a rejected FRR configuration: expected exit status 1, got $rc"
grep -q "^steerlab: node a: FRR rejected its configuration (vtysh line [0-9]*: % Unknown command\[[0-9]*\]: bogus; from --set a.frr=bogus)$" \
	"$out/bad.err" || fail "the refusal does not name node a and FRR's message"
[ -e "/run/steerlab/$lab" ] && fail "a refused lab left /run/steerlab/$lab"
ip netns list | awk '{print $1}' | grep "^$lab-" >/dev/null && fail "a refused lab left namespaces"
[ -e "$out/bad" ] && [ -n "$(ls -A "$out/bad")" ] && fail "a refused lab left files in $out/bad"
ps -eo args | grep -v grep | grep "/run/steerlab/$lab/" >/dev/null && fail "a refused lab left an FRR process"
echo "ok: FRR's rejection refused the lab before anything was built"

# one run with BGP, one with static routing: both valid (5 s, the kill at
# 2 s: the withdrawal takes well under a second)
for mode in bgp static; do
	run_valid "$out/$mode.txt" $topo --quiet --set name=$lab --set routing=$mode --set duration=5s --set fail_at=2s --out "$out/$mode" || fail "routing = $mode: run exited with status $?"
	clocks=$out/$mode/clocks.json
	[ "$(json "$clocks" .valid)" = true ] || fail "routing = $mode: the run is not valid"
	detect=$(json "$clocks" .schemes.anycast.detect_s)
	steer=$(json "$clocks" .schemes.anycast.steer_s)
	window=$(json "$clocks" .schemes.anycast.window_s)
	echo "routing = $mode: detect=$detect steer=$steer window=$window (s after t0)"
	eval "${mode}_detect=$detect ${mode}_steer=$steer ${mode}_window=$window"
	assert_le "$detect" "$steer" "routing = $mode: the route moved after the site was declared dead"
	assert_le "$window" "$(awk -v s="$steer" 'BEGIN { print s + 0.05 }')" \
		"routing = $mode: window <= steer + 50 ms"
done
r=$out/bgp
for f in "$out/bgp/agents.tsv" "$out/static/agents.tsv"; do
	while read -r pid start node agent; do
		case $agent in zebra | bgpd | bfdd) ;; *) continue ;; esac
		[ -e "/var/tmp/frr/$agent.$pid" ] && fail "/var/tmp/frr/$agent.$pid remains after the run"
	done <"$f"
done
t0=$(jq -r 'select(.event == "site_failed") | .t' "$r/lab.events.jsonl")
before=$(jq -r --argjson t0 "$t0" 'select(.event == "route_added" and .prefix == "198.19.0.1/32"
	and .t < $t0) | "\(.via) \(.protocol)"' "$r/core.collector.events.jsonl" | tail -1)
[ "$before" = "198.18.0.2 186" ] || fail "before t0 the route is via a, proto bgp (186): got '$before'"
echo "ok: before t0 the router's route to the service is bgpd's, via site a"
removed=$(jq -r 'select(.event == "address_removed") | .t' "$r/a.prober.events.jsonl")
moved=$(jq -r --argjson t0 "$t0" 'select(.event == "route_added" and .t > $t0 and
	.via == "198.18.0.6") | .t' "$r/core.collector.events.jsonl" | sed -n 1p)
assert_gt "$removed" "$t0" "a's prober removed the address after the kill"
assert_gt "$moved" "$removed" "the route moved to b after the address left a's lo"
echo "BGP withdrawal: address removed -> FIB via b in $(( (moved - removed) / 1000000 )) ms"
echo "failover window: bgp $bgp_window s, static $static_window s (steer: bgp $bgp_steer s, static $static_steer s)"

# two routers in their own ASes ([link r1 r2]): r1 reaches the service via
# its own site a, then, once a withdraws, via r2 (b's route passed on by
# eBGP); r2 keeps b throughout
run_valid "$out/two.txt" topology/two-routers.ini --quiet --set name=$lab --set routing=bgp --set duration=5s --set fail_at=2s --out "$out/two" || fail "two routers, routing = bgp: run exited with status $?"
[ "$(json "$out/two/clocks.json" .valid)" = true ] || fail "two routers: the run is not valid"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$out/two/lab.events.jsonl")
# (while the lab came up r1 may have had r2's route before a's, as the
# sessions came up: its route at t0 is the last one before it)
r1=$(jq -r --argjson t0 "$t0" 'select(.event == "route_added" and .prefix == "198.19.0.1/32")
	| "\(if .t < $t0 then "before" else "after" end) \(.via) \(.protocol)"' \
	"$out/two/r1.collector.events.jsonl" |
	awk '$1 == "before" { last = $0 } $1 == "after" { after = after $0 "," } END { print last "," after }')
[ "$r1" = "before 198.18.0.2 186,after 198.18.32.2 186," ] ||
	fail "two routers: r1's routes to the service: expected via a at t0, then via r2, got '$r1'"
r2=$(route_changes "$out/two" r2 "$t0")
[ -z "$r2" ] || fail "two routers: r2's route changed after t0: $r2"
echo "ok: two routers: r1 moved from a to r2 (b) by BGP, r2 kept b; window" \
	"$(json "$out/two/clocks.json" .schemes.anycast.window_s) s"
# the same in the FIB clocks and the catchments (docs/clocks.md), and the
# BGP of the router link in its capture, as tshark decodes it
fib=.schemes.anycast.fib
clocks=$out/two/clocks.json
got=$(json "$clocks" "$fib.routers.r1 | [.changes > 0, .first_s > 0, .before.site, .after.site, .after.protocol] | join(\" \")")
[ "$got" = "true true a b 186" ] || fail "two routers: r1's FIB clocks: $(json "$clocks" "$fib.routers.r1")"
got=$(json "$clocks" "$fib.routers.r2 | [.changes, .before.site, .after.site] | join(\" \")")
[ "$got" = "0 b b" ] || fail "two routers: r2's FIB clocks: $(json "$clocks" "$fib.routers.r2")"
[ "$(json "$clocks" "$fib.convergence_s")" = "$(json "$clocks" "$fib.routers.r1.final_s")" ] ||
	fail "two routers: convergence is not r1's final change"
for want in "1 a b" "2 b b"; do
	set -- $want
	got=$(json "$clocks" ".schemes.anycast.catchments[\"$1\"] | [.before.site, .after.site] | join(\" \")")
	[ "$got" = "$2 $3" ] || fail "two routers: catchment of client $1: '$got', expected '$2 $3'"
done
link=$out/two/capture-link-r1-r2.pcap
# a NOTIFICATION only if it is Cease/Connection Collision Resolution (6/7):
# both routers' bgpd start at once, both may open a connection, and one is
# closed as RFC 4271 6.8 says
types=$(tshark -r "$link" -Y 'bgp && !(bgp.notify.major_error == 6 && bgp.notify.minor_error_cease == 7)' \
	-T fields -e bgp.type 2>/dev/null | tr ',' '\n' | sort -u | tr '\n' ' ')
[ "$types" = "1 2 4 " ] || fail "two routers: BGP message types in $link: '$types', expected OPEN, UPDATE, KEEPALIVE"
t0s=$((t0 / 1000000000)).$(printf %09d $((t0 % 1000000000)))
assert_ge "$(tshark -r "$link" -Y "bgp.type == 2 && frame.time_epoch > $t0s" 2>/dev/null | wc -l)" 1 \
	"UPDATEs on the router link after t0"
echo "ok: two routers: FIB clocks r1 a -> b at $(json "$clocks" "$fib.routers.r1.first_s") s, r2 b;" \
	"catchments c1 a -> b, c2 b; tshark shows the sessions' OPEN, UPDATEs (after t0 too), KEEPALIVEs"

# up (with BFD: bfdd runs too): the documented vtysh command reaches the
# router's daemons
$STEERLAB up $topo --set name=$lab --set bfd=yes --set bfd_interval=100ms --out "$out/up" >/dev/null
# as steerlab exec puts it, the node's sockets where vtysh looks, and as
# ip netns exec with --vty_socket
summary=$($STEERLAB exec $lab core -- vtysh -c 'show bgp summary')
ip netns exec $lab-core vtysh --vty_socket /run/steerlab/$lab/frr/core -c 'show bgp summary' |
	grep 'local AS number 65001' >/dev/null || fail "vtysh --vty_socket: not the router's bgpd"
[ -z "$(awk '$5 == "/run/frr"' /proc/self/mountinfo)" ] ||
	fail "exec's mount over /run/frr is seen outside its own mount namespace"
echo "$summary"
echo "$summary" | grep 'local AS number 65001' >/dev/null || fail "vtysh: not the router's bgpd"
echo "$summary" | grep -E '^a\(198\.18\.0\.2\) +4 +65101 .* 2 +[0-9]+ site a$' >/dev/null ||
	fail "vtysh: no established session with site a (2 prefixes received)"
bfd_up() {
	bfd=$(ip netns exec $lab-core vtysh --vty_socket /run/steerlab/$lab/frr/core -c 'show bfd peers brief')
	[ "$(grep -c ' up *$' <<<"$bfd")" -eq 2 ]
}
wait_until 10 bfd_up || { echo "$bfd"; fail "vtysh: the router's two BFD sessions are not up after 10 s"; }
echo "$bfd"
echo "ok: bfdd runs in every node and the router's BFD sessions are up"
$STEERLAB down $lab
assert_no_leftovers $lab "$out/up"
while read -r pid start node agent; do
	case $agent in zebra | bgpd | bfdd) ;; *) continue ;; esac
	[ -e "/var/tmp/frr/$agent.$pid" ] && fail "/var/tmp/frr/$agent.$pid remains"
done <"$out/up/agents.tsv"
[ "$(grep -cE '	(zebra|bgpd|bfdd)$' "$out/up/agents.tsv")" -eq 9 ] ||
	fail "agents.tsv: expected zebra, bgpd and bfdd in each of the 3 nodes"
echo "ok: no FRR process, socket, pid file or directory of $lab remains"

# a bgpd killed mid-run: noticed, the run invalid, nothing of it left
rc=0
$STEERLAB run $topo --quiet --set name=$lab --set duration=4s --set fail_at=1s --out "$out/kill" \
	>"$out/kill.txt" 2>&1 &
run_pid=$!
wait_until 30 has_event "$out/kill/lab.events.jsonl" site_failed || fail "no site_failed within 30 s"
pid=$(awk '$3 == "b" && $4 == "bgpd" { print $1 }' "$out/kill/agents.tsv")
[ -n "$pid" ] || fail "no bgpd of node b in agents.tsv"
kill -KILL "$pid"
wait $run_pid || rc=$?
[ $rc -eq 3 ] || { cat "$out/kill.txt"; fail "bgpd killed: run exited $rc, expected 3"; }
grep "^steerlab: agent bgpd of node b died (signal 9) at [0-9.]* s: this run is invalid" "$out/kill.txt" ||
	{ cat "$out/kill.txt"; fail "no terminal line about bgpd of node b"; }
ev=$(jq -cR 'fromjson? | select(.event == "agent_exited" and .agent == "bgpd")' "$out/kill/lab.events.jsonl")
[ "$(jq -r .pid <<<"$ev")" = "$pid" ] && [ "$(jq -r .expected <<<"$ev")" = false ] ||
	fail "agent_exited of bgpd: $ev"
[ "$(json "$out/kill/clocks.json" .valid)" = false ] || fail "clocks.json: a run with a dead bgpd is valid"
[ -e "/var/tmp/frr/bgpd.$pid" ] && fail "/var/tmp/frr/bgpd.$pid (the killed bgpd's) remains"
assert_no_leftovers $lab "$out/kill"
echo "ok: a bgpd killed mid-run made the run invalid: $ev"
rm -rf "$out"
