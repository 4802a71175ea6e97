#!/usr/bin/env bash
# A router link captured for BGP, as every router's collector does it for
# the [link]s it is the first end of (-b, filter "tcp port 179"): two
# namespaces joined by a veth, a synthetic BGP exchange over TCP port 179
# (tests/tools/bgpsend: OPEN, KEEPALIVE, UPDATE announcing the service
# prefix, UPDATE withdrawing it), and a request datagram that the filter
# keeps out. tshark must show the four BGP messages in capture-link-r1-r2.pcap,
# the announced and the withdrawn prefix, and no UDP. The same collector,
# with no site link, monitors the FIB: a route present before it started
# (op present), replaced by a routing daemon's (protocol 186, op replace),
# by an ECMP route over two links (one event, both next hops), by a route
# on a nexthop object, as FRR's zebra installs them, whose change is seen
# as the route replaced, then deleted; each with its next hops and protocol.
# about 3 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

ns1=itbgpcap-r1 ns2=itbgpcap-r2
COLLECTOR=${COLLECTOR:-bin/collector}
BGPSEND=${BUILD:-build/release}/tools/bgpsend
[ -x "$COLLECTOR" ] || fail "no $COLLECTOR (make all)"
[ -x "$BGPSEND" ] || fail "no $BGPSEND (make all)"
command -v tshark >/dev/null || fail "no tshark (make deps)"
for ns in $ns1 $ns2; do
	[ ! -e "/run/netns/$ns" ] || fail "namespace $ns exists: another run of this test? (ip netns del $ns)"
done
out=$(mktemp -d /tmp/steerlab-it-bgpcap.XXXXXX)
cpid= lpid=
cleanup() {
	[ -n "$cpid" ] && kill -TERM "$cpid" 2>/dev/null && wait "$cpid" 2>/dev/null
	[ -n "$lpid" ] && kill -TERM "$lpid" 2>/dev/null && wait "$lpid" 2>/dev/null
	for ns in $ns1 $ns2; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	[ -n "${KEEP_OUT:-}" ] || rm -rf "$out"
	return 0
}
trap cleanup EXIT

ip netns add $ns1
ip netns add $ns2
ip -n $ns1 link set lo up
ip -n $ns2 link set lo up
ip -n $ns1 link add r2 type veth peer name r1 netns $ns2
ip -n $ns1 addr add 198.18.32.1/30 dev r2
ip -n $ns2 addr add 198.18.32.2/30 dev r1
ip -n $ns1 link set r2 up
ip -n $ns2 link set r1 up
# a second link, for an ECMP route
ip -n $ns1 link add r2b type veth peer name r1b netns $ns2
ip -n $ns1 addr add 198.18.32.5/30 dev r2b
ip -n $ns2 addr add 198.18.32.6/30 dev r1b
ip -n $ns1 link set r2b up
ip -n $ns2 link set r1b up
ip -n $ns1 route add 198.19.0.1/32 via 198.18.32.2 metric 20
link_up() {
	local l
	for l in "$ns1 r2" "$ns2 r1" "$ns1 r2b" "$ns2 r1b"; do
		set -- $l
		ip -n "$1" link show "$2" | grep LOWER_UP >/dev/null || return 1
	done
}
wait_until 5 link_up || fail "the veth does not come up"

ip netns exec $ns1 "$COLLECTOR" -o "$out" -b r2=link-r1-r2 -P 198.19.0.1/32 -n r1 \
	-e "$out/r1.collector.events.jsonl" 2>"$out/collector.log" &
cpid=$!
wait_until 5 has_event "$out/r1.collector.events.jsonl" capture_ready ||
	fail "the collector is not capturing: $(cat "$out/collector.log")"
[ "$(jq -r 'select(.event == "capture_ready") | .label' "$out/r1.collector.events.jsonl")" = link-r1-r2 ] ||
	fail "capture_ready is not of link-r1-r2: $(cat "$out/r1.collector.events.jsonl")"

# the BGP exchange, and a request datagram the filter keeps out
ip netns exec $ns2 "$BGPSEND" -l 198.18.32.2 >"$out/listen.out" &
lpid=$!
wait_until 5 grep -q listening "$out/listen.out" || fail "bgpsend does not listen"
ip netns exec $ns1 "$BGPSEND" -c 198.18.32.2 -p 198.19.0.1/32 -a 65001
wait "$lpid" || fail "the listener failed"
lpid=
grep -q '^read [1-9]' "$out/listen.out" || fail "the listener read nothing"
ip netns exec $ns1 bash -c 'echo request >/dev/udp/198.18.32.2/7000'

# a routing daemon's route replaces the static one, spreads over both links
# (ECMP), then goes
ip -n $ns1 route replace 198.19.0.1/32 via 198.18.32.2 metric 20 proto 186
ip -n $ns1 route replace 198.19.0.1/32 metric 20 proto 186 nexthop via 198.18.32.2 nexthop via 198.18.32.6
# as FRR's zebra installs routes: through a nexthop object, then changes
# the object, not the route (the kernel tells it as the route replaced)
ip -n $ns1 nexthop add id 10 via 198.18.32.2 dev r2
ip -n $ns1 route replace 198.19.0.1/32 nhid 10 metric 20 proto 186
ip -n $ns1 nexthop replace id 10 via 198.18.32.6 dev r2b
ip -n $ns1 route del 198.19.0.1/32 metric 20
wait_until 5 has_event "$out/r1.collector.events.jsonl" route_deleted ||
	fail "no route_deleted"
kill -TERM "$cpid"
wait "$cpid" || fail "the collector exited with an error: $(cat "$out/collector.log")"
cpid=

pcap=$out/capture-link-r1-r2.pcap
[ -s "$pcap" ] || fail "no $pcap"
types=$(tshark -r "$pcap" -Y bgp -T fields -e bgp.type 2>/dev/null | tr '\n,' '  ' | xargs)
echo "BGP message types in capture-link-r1-r2.pcap: $types"
[ "$types" = "1 4 2 2" ] || fail "tshark shows BGP types '$types', expected OPEN, KEEPALIVE, UPDATE, UPDATE (1 4 2 2)"
tshark -r "$pcap" -Y 'bgp.type == 2 && bgp.nlri_prefix == 198.19.0.1' 2>/dev/null | grep . >/dev/null ||
	fail "no UPDATE announcing 198.19.0.1/32"
tshark -r "$pcap" -Y 'bgp.type == 2 && bgp.withdrawn_prefix == 198.19.0.1' 2>/dev/null | grep . >/dev/null ||
	fail "no UPDATE withdrawing 198.19.0.1/32"
assert_eq "$(tshark -r "$pcap" -Y udp 2>/dev/null | wc -l)" 0 "UDP packets in the BGP capture"
echo "ok: tshark shows the OPEN, the KEEPALIVE, the announcement and the withdrawal; no UDP"

ev=$out/r1.collector.events.jsonl
jq -c 'select(.event | startswith("route_")) | [.op, .via, .protocol, .metric, .multipath,
	(.nexthops // [] | map(.via + " " + .dev) | join(", ")), .nhid]' "$ev" >"$out/routes.txt"
cat "$out/routes.txt"
[ "$(cat "$out/routes.txt")" = '["present","198.18.32.2",3,20,false,"",null]
["replace","198.18.32.2",186,20,false,"",null]
["replace","198.18.32.2",186,20,true,"198.18.32.2 r2, 198.18.32.6 r2b",null]
["replace","198.18.32.2",186,20,false,"",10]
["replace","198.18.32.6",186,20,false,"",10]
["del","198.18.32.6",186,20,false,"",10]' ] || fail "route events: $(cat "$out/routes.txt")"
echo "ok: the route monitor saw the route present, replaced (protocol 186), made ECMP, put on a nexthop object whose change it saw, deleted"
