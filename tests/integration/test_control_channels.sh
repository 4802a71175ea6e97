#!/usr/bin/env bash
# In-lab control channels (docs/agents.md, "Control channels"): in a lab up
# from topology/dns.ini, a client node sends routed an ANNOUNCE of the
# default route and of the service, and a WITHDRAW of the service; site a's
# own prober address announces the default route; routed's routes must not
# change, and routed must write control_rejected. The client also sends
# authd a forged HEALTH report and 70 invented prober ids, and a real
# prober's address reports under an invented id: authd must still answer
# site a, change no health, and write control_rejected. Nothing of the lab
# may remain afterwards.
# about 4 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=${IT_PREFIX:-it}-ctl
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run
service=198.19.0.1

$STEERLAB up topology/dns.ini --out "$rundir" --set name=$lab --set probe_interval=100ms \
	--set probe_timeout=50ms >"$out/up.log" 2>&1 || { cat "$out/up.log"; fail "steerlab up failed"; }

# in_ns NODE COMMAND...: run COMMAND in the lab node's namespace
in_ns() {
	local node=$1
	shift
	ip netns exec "$lab-$node" "$@"
}
# udp_send NODE ADDR PORT LINE: one datagram of LINE from NODE (bash's /dev/udp)
udp_send() {
	in_ns "$1" bash -c 'printf "%s\n" "$3" >"/dev/udp/$1/$2"' _ "$2" "$3" "$4"
}
routes() {
	in_ns core ip -4 route show
}
service_routed() { # by both sites: the lab has settled
	[ "$(routes | grep -c "^$service ")" = 2 ]
}
count_events() { # FILE EVENT: how many
	local n
	n=$(grep -c "\"event\":\"$2\"" "$1" 2>/dev/null) || true
	echo "${n:-0}"
}
rejected_count() { # FILE: the drops control_rejected events report so far
	jq -s '[.[] | select(.event == "control_rejected") | .count] | add // 0' "$1"
}
routed_ev=$rundir/core.routed.events.jsonl
authd_ev=$rundir/ns.authd.events.jsonl

wait_until 10 service_routed || fail "the service was never routed: $(routes)"
# the healthy announcements are refreshes from here on: no route changes
router=$(in_ns c1 ip -4 route show default | awk '{print $3}')
c1=$(in_ns c1 ip -4 -o addr show eth0 | awk '{split($4, a, "/"); print a[1]}')
authd=$(in_ns ns ip -4 -o addr show eth0 | awk '{split($4, a, "/"); print a[1]}')
[ -n "$router" ] && [ -n "$c1" ] && [ -n "$authd" ] || fail "addresses: router '$router' c1 '$c1' ns '$authd'"
before=$(routes)
echo "--- routes of $lab-core before"
echo "$before"

# (a) routed: from a client node, and a bad prefix from a site's prober address
udp_send c1 "$router" 7179 "ANNOUNCE a 0.0.0.0/0 1"
udp_send c1 "$router" 7179 "ANNOUNCE a $service/32 1"
udp_send c1 "$router" 7179 "WITHDRAW a $service/32"
udp_send c1 "$router" 7179 "WITHDRAW b $service/32"
site_router=$(in_ns a ip -4 route show default | awk '{print $3}')
udp_send a "$site_router" 7179 "ANNOUNCE a 0.0.0.0/0 1"
routed_rejected() {
	[ "$(rejected_count "$routed_ev")" -ge 5 ]
}
# the first drop is reported at once, the others within the next second
wait_until 5 routed_rejected || fail "routed reported $(rejected_count "$routed_ev") of 5 drops: $(cat "$routed_ev")"
echo "--- routed's control_rejected events"
grep '"control_rejected"' "$routed_ev"
grep '"control_rejected"' "$routed_ev" | grep "\"from\":\"$c1\",\"reason\":\"sender not allowed\"" >/dev/null ||
	fail "no control_rejected from $c1 (sender not allowed)"
grep -q "rejected announcement from $c1: sender not allowed" "$rundir/core.routed.log" ||
	fail "routed's log does not say it rejected announcements: $(cat "$rundir/core.routed.log")"
after=$(routes)
[ "$after" = "$before" ] || fail "routes changed: before
$before
after
$after"
echo "ok: no route changed"
[ "$(count_events "$routed_ev" route_withdrawn)" = 0 ] || fail "routed withdrew a route"
echo "ok: routed dropped and reported the forged announcements"

# (b) authd: a forged HEALTH from a client, invented ids, a real prober under another id
answer() {
	in_ns c1 dig +short +time=1 +tries=2 "@$authd" www.lab.example A | tail -1
}
[ "$(answer)" = 198.19.1.1 ] || fail "authd does not answer site a (198.19.1.1) before: $(answer)"
health_before=$(count_events "$authd_ev" health_changed)
udp_send c1 "$authd" 5353 "HEALTH p1 a down 0"
udp_send c1 "$authd" 5353 "HEALTH p2 a down 0"
in_ns c1 bash -c 'for i in $(seq 0 69); do printf "HEALTH fake%d a down 0\n" $i >"/dev/udp/$1/5353"; done' _ "$authd"
udp_send p1 "$authd" 5353 "HEALTH fake99 a down 0"
authd_rejected() {
	[ "$(rejected_count "$authd_ev")" -ge 73 ]
}
wait_until 5 authd_rejected || fail "authd reported $(rejected_count "$authd_ev") of 73 drops: $(grep control_rejected "$authd_ev")"
echo "--- authd's control_rejected events"
grep '"control_rejected"' "$authd_ev"
grep '"control_rejected"' "$authd_ev" | grep "\"from\":\"$c1\"" >/dev/null || fail "no control_rejected from $c1"
[ "$(answer)" = 198.19.1.1 ] || fail "authd answers $(answer) after forged reports, expected site a"
[ "$(count_events "$authd_ev" health_changed)" = "$health_before" ] ||
	fail "a forged report changed a site's health: $(grep health_changed "$authd_ev")"
echo "ok: authd still answers site a, no health changed"

# the real probers still count: site a dies, authd steers away
kill -9 "$(awk '$3 == "a" && $4 == "sited" {print $1}' "$rundir/agents.tsv")"
steered() {
	[ "$(answer)" = 198.19.1.2 ]
}
wait_until 5 steered || fail "authd did not steer to site b once site a died: $(answer)"
echo "ok: the real probers' reports still steer"

$STEERLAB down $lab >"$out/down.log" 2>&1 || { cat "$out/down.log"; fail "steerlab down failed"; }
jq -se 'any(.[]; .event == "routed_summary" and .rejected >= 5)' "$routed_ev" >/dev/null ||
	fail "routed_summary does not count the rejected: $(grep routed_summary "$routed_ev")"
jq -se 'any(.[]; .event == "authd_summary" and .rejected_reports >= 73)' "$authd_ev" >/dev/null ||
	fail "authd_summary does not count the rejected: $(grep authd_summary "$authd_ev")"
echo "ok: the summaries count the rejected messages"
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
