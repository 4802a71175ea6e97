#!/usr/bin/env bash
# [lab] ip = 6 (docs/topology.md, "IPv6 alone"; topology/ipv6-only.ini;
# issue 28): the network in IPv6 alone. check prints the plan saying its
# IPv4 addresses are on no interface, FRR's sessions over IPv6 without
# IPv4 unicast, and refuses a client of family 4; `up` (topology/real-
# resolvers.ini with ip = 6) configures no global IPv4 address in any
# namespace and every global IPv6 one in 2001:2::/48, the router's route
# to the service is BGP's over IPv6 via a, `steerlab nodes` lists IPv6
# addresses alone, and unbound, Knot Resolver and BIND, walking the lab's
# tree over IPv6, answer the name's AAAA over IPv6 and no A; a run of
# topology/compare.ini --set ip=6 (resolverd's caches walking the tree over
# IPv6) is valid with both schemes' clocks within the model's: anycast
# steered when a's IPv6 route left the router's FIB, DNS when authd
# stopped handing out a's AAAA, the report naming the IPv6 addresses; a's
# capture holds IPv6 requests and no IPv4 packet. The same lab with
# routing = static: the site probers announce the service's IPv6 address
# over IPv6 to routed on [::]:7179, which installs it via each prober's
# IPv6 link address (the datagram's source) and deletes a's on its
# withdrawal; valid with both schemes' clocks, anycast steered when that
# IPv6 route left the FIB, no IPv4 packet on a's link; that run has
# PowerDNS in place of authd (its checks over IPv6, its answers AAAA
# alone), which steers too.
# about 32 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ipv6only
lab_guard $lab
command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
ini=topology/ipv6-only.ini

$STEERLAB check $ini --set name=$lab >"$out/check.out"
for want in 'ip = 6' '# ip = 6: the IPv4 addresses below are on no interface: they name the nodes' \
	'#    no bgp default ipv4-unicast' '#   IPv6: 2001:2::1/64 <-> 2001:2::2/64'; do
	grep -qxF -- "$want" "$out/check.out" || fail "check does not print '$want'"
done
if grep -q '^#    address-family ipv4 unicast' "$out/check.out"; then fail "FRR has IPv4 unicast"; fi
echo "ok: check prints the IPv6 plan and FRR's IPv6 sessions alone"
check_refused "a client of family 4" "\[client c1\] family = 4: the lab's network has no IPv4 (ip = 6)" $ini --set c1.family=4

# up: topology/real-resolvers.ini in IPv6 alone, its three real resolvers
# walking the lab's tree over IPv6 (AAAA root hints and glue)
$STEERLAB up topology/real-resolvers.ini --set name=$lab --set ip=6 --set routing=bgp --out "$out/up" >"$out/up.txt" 2>&1 ||
	fail "up: $(tail -5 "$out/up.txt")"
nodes=$(ip netns list | awk -v p="$lab-" 'index($1, p) == 1 { print substr($1, length(p) + 1) }' | sort)
[ -n "$nodes" ] || fail "no namespace of $lab"
v4=$(for n in $nodes; do ip -n "$lab-$n" -4 -o addr show scope global; done)
[ -z "$v4" ] || fail "IPv4 addresses in an IPv6-only lab: $v4"
addrs=$(for n in $nodes; do ip -n "$lab-$n" -6 -o addr show scope global | awk '{ print $4 }'; done | sort)
assert_ge "$(echo "$addrs" | wc -l)" 12 "the lab's global IPv6 addresses"
stray=$(echo "$addrs" | grep -v '^2001:2:' || true)
[ -z "$stray" ] || fail "IPv6 addresses outside 2001:2::/48: $stray"
echo "ok: no global IPv4 address in $(echo "$nodes" | wc -l) namespaces; $(echo "$addrs" | wc -l) IPv6 ones, all in 2001:2::/48"
route=""
for _ in $(seq 50); do
	route=$(ip -n "$lab-core" -6 route show 2001:2:0:ff00::1/128)
	[ -n "$route" ] && break
	sleep 0.2
done
case $route in *"via 2001:2::2 "*"proto bgp"*) ;; *) fail "core's route to the service: '$route'" ;; esac
echo "ok: core routes 2001:2:0:ff00::1 by BGP via a (2001:2::2)"
fams=$($STEERLAB nodes $lab --json | jq -r '[.nodes[].addresses[]?.family] | unique | map(tostring) | join(",")')
[ "$fams" = 6 ] || fail "steerlab nodes lists families $fams"
echo "ok: steerlab nodes lists IPv6 addresses alone"
for rsv in ru=2001:2:0:8000::1 rk=2001:2:0:8001::1 rb=2001:2:0:8002::1; do
	got=$(ip netns exec "$lab-cu" dig +short +tries=2 +time=2 AAAA www.lab.example "@${rsv#*=}")
	[ "$got" = 2001:2:0:ff01::1 ] || fail "${rsv%%=*} at ${rsv#*=}: AAAA www.lab.example: '$got'"
	got=$(ip netns exec "$lab-cu" dig +short +tries=2 +time=2 A www.lab.example "@${rsv#*=}")
	[ -z "$got" ] || fail "${rsv%%=*}: an A answer in an IPv6-only lab: '$got'"
done
$STEERLAB down $lab >/dev/null
echo "ok: unbound, Knot Resolver and BIND answer www.lab.example's AAAA (a's) over IPv6, no A"

# the issue's done-when: topology/compare.ini in IPv6 alone, resolverd's
# four caches walking the lab's tree over IPv6 (transport = 6), both
# schemes' clocks within the model's
r=$out/run
run_model_agrees "$out/run.txt" "$r" topology/compare.ini --set name=$lab --set ip=6
grep -q '^2001:2:0:8000::1 ' "$out/run.txt" || fail "the upstream table names no cache by its IPv6 address"
grep -qF "(site link 2001:2::2, site address 2001:2:0:ff01::1, service 2001:2:0:ff00::1/128," "$out/run.txt" ||
	fail "the report does not name the IPv6 addresses: $(grep 'site link' "$out/run.txt")"
[ "$(json "$r/lab.events.jsonl" 'select(.event == "lab_up") | .ip')" = 6 ] || fail "lab_up has no ip 6"
for s in anycast dns; do
	steer=$(jq -r ".schemes.$s.steer_s" "$r/clocks.json")
	assert_ge "$steer" 0 "$s's steer"
	assert_le "$steer" 1.5 "$s's steer"
done
# anycast: a's bgpd withdraws once its prober takes the address off lo
# (probe_down 3 of 100 ms); DNS: c3's sticky 8 s held from its last
# resolution, at most 5 s past t0 here (the TTL 2 s for the others)
assert_le "$(jq -r '.schemes.anycast.window_s' "$r/clocks.json")" 1.5 "anycast's window"
assert_le "$(jq -r '.schemes.dns.window_s' "$r/clocks.json")" 8.5 "dns's window"
v6=$(tshark -r "$r/capture-a.pcap" -Y 'ipv6 && udp.dstport == 7000' 2>/dev/null | wc -l)
v4=$(tshark -r "$r/capture-a.pcap" -Y 'ip' 2>/dev/null | wc -l)
assert_ge "$v6" 1000 "IPv6 requests captured at a"
assert_eq "$v4" 0 "IPv4 packets captured at a"
echo "ok: valid; anycast steer $(jq -r .schemes.anycast.steer_s "$r/clocks.json") s, dns steer $(jq -r .schemes.dns.steer_s "$r/clocks.json") s; a's capture: $v6 IPv6 requests, no IPv4"
assert_no_leftovers $lab "$r"

# routing = static, with PowerDNS in place of authd (its own checks: no
# prober): routed's announcements and routes in IPv6 alone, PowerDNS on its
# link's IPv6 address alone, a LUA AAAA record and no A
sed -e '/^\[prober p1\]/,/^$/d' -e 's/^\[dns ns\]$/[dns ns]\nimpl = pdns\ncheck_interval = 1s\ncheck_timeout = 1s/' \
	$ini >"$out/pdns.ini"
r=$out/static
run_valid "$out/static.txt" "$out/pdns.ini" --set name=$lab --set routing=static --set duration=5s -q --out "$r" ||
	fail "the static run: $(tail -20 "$out/static.txt")"
sent=$(json "$r/a.prober.events.jsonl" 'select(.event == "announce_sent") | .router + " " + .prefix' | sort -u)
[ "$sent" = "[2001:2::1]:7179 2001:2:0:ff00::1/128" ] || fail "a's prober announced '$sent'"
# via: the announcement's source address, so it crossed a's link in IPv6
applied=$(json "$r/core.routed.events.jsonl" 'select(.event == "route_applied" and .site == "a") | .prefix + " via " + .via' | sort -u)
[ "$applied" = "2001:2:0:ff00::1/128 via 2001:2::2" ] || fail "core's routed applied '$applied'"
[ "$(json "$r/core.routed.events.jsonl" 'select(.event == "route_withdrawn" and .site == "a") | .via')" = 2001:2::2 ] ||
	fail "core's routed did not withdraw a's IPv6 route"
grep -qF "steer = the route via 2001:2::2 leaves the FIB" "$out/static.txt" ||
	fail "anycast's steer is not a's IPv6 route leaving the FIB"
steer=$(jq -r ".schemes.anycast.steer_s" "$r/clocks.json")
assert_ge "$steer" 0 "anycast's steer (static)"
assert_le "$steer" 1.5 "anycast's steer (static)"
v4=$(tshark -r "$r/capture-a.pcap" -Y 'ip' 2>/dev/null | wc -l)
assert_eq "$v4" 0 "IPv4 packets captured at a (static)"
echo "ok: routing = static valid; a announced 2001:2:0:ff00::1/128 to [2001:2::1]:7179, core routed it via 2001:2::2; anycast steer $steer s; no IPv4 at a"
[ "$(sed -n 's/^local-address=//p' "$r/ns.pdns/pdns.conf")" = 2001:2:0:2::2 ] ||
	fail "pdns.conf: $(grep local-address "$r/ns.pdns/pdns.conf")"
grep -q 'IN LUA AAAA' "$r/ns.pdns/lab.example.zone" || fail "no LUA AAAA record"
if grep -q 'IN LUA A ' "$r/ns.pdns/lab.example.zone"; then fail "a LUA A record in an IPv6-only lab"; fi
steer=$(jq -r '.schemes.dns.steer_s' "$r/clocks.json")
assert_ge "$steer" 0 "PowerDNS's steer"
assert_le "$steer" 2.5 "PowerDNS's steer (its checks every second)"
echo "ok: PowerDNS on 2001:2:0:2::2 alone, AAAA by LUA, steered at $steer s"
assert_no_leftovers $lab "$r"
echo "PASS: test_ipv6_only"
