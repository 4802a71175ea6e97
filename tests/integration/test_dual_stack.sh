#!/usr/bin/env bash
# [lab] ip = dual (docs/topology.md, "Addresses: IPv4 and dual stack";
# issue 28, item 1): the network in both families. check prints each IPv6
# address beside its IPv4 twin and refuses ip = 6 with what it cannot
# have yet (ecmp = resilient); `up` of
# topology/two-routers.ini gives every node its link's ::2, every router
# its ::1s, its loopback and a route by the IPv4 path to every node, site
# and resolver cache; every node reaches every site's own IPv6 address,
# every resolver cache and every router across the router link (ping -6);
# every global IPv6 address of the lab's namespaces is in 2001:2::/48;
# `steerlab nodes --json` lists them (family 6); authd answers over IPv6,
# www.lab.example's AAAA a's own IPv6 address until a fails, then b's;
# resolverd (walking the lab's tree, ecs = yes) answers over IPv6 at its
# cache's IPv6 address and passes c1's /56 on to authd (RFC 7871); a
# run of the same lab (the traffic IPv4) is valid; nothing remains after
# `down`.
# about 20 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-dual
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT

$STEERLAB check topology/two-routers.ini --set name=$lab --set ip=dual >"$out/check.out"
for want in 'ip = dual' '#   IPv6: 2001:2:0:1000::1/64 <-> 2001:2:0:1000::2/64' \
	'#   IPv6: 2001:2:0:2000::2/128 on lo' '# IPv6: 2001:2:0:ff01::1 (its own, on lo)'; do
	grep -qxF -- "$want" "$out/check.out" || fail "check does not print '$want'"
done
echo "ok: check prints the IPv6 plan"
check_refused "ip = 6 with ecmp = resilient" "\[lab\] ip = 6: not yet with ecmp = resilient" topology/anycast.ini --set ip=6 --set ecmp=resilient

# the lab's DNS tree, the resolver passing its clients' subnets on (ecs:
# resolverd's key, written in the file)
sed -e 's/^\[resolver r\]$/[resolver r]\necs = yes/' -e 's/^\[lab\]$/[lab]\ndns_tree = yes/' \
	topology/two-routers.ini >"$out/dual.ini"
$STEERLAB up "$out/dual.ini" --set name=$lab --set ip=dual --out "$out/up" >"$out/up.txt" 2>&1 ||
	fail "up: $(tail -5 "$out/up.txt")"
nodes=$(ip netns list | awk -v p="$lab-" 'index($1, p) == 1 { print substr($1, length(p) + 1) }' | sort)
[ -n "$nodes" ] || fail "no namespace of $lab"
# every global IPv6 address: the plan's, in 2001:2::/48
addrs=$(for n in $nodes; do ip -n "$lab-$n" -6 -o addr show scope global | awk '{ print $4 }'; done | sort)
assert_ge "$(echo "$addrs" | wc -l)" 20 "the lab's global IPv6 addresses"
stray=$(echo "$addrs" | grep -v '^2001:2:' || true)
[ -z "$stray" ] || fail "IPv6 addresses outside 2001:2::/48: $stray"
echo "ok: $(echo "$addrs" | wc -l) global IPv6 addresses, all in 2001:2::/48"
# from every node that is not a router, every site, cache and router loopback
targets="2001:2:0:ff01::1 2001:2:0:ff01::2 2001:2:0:8000::1 2001:2:0:2000::1 2001:2:0:2000::2"
for n in $nodes; do
	case $n in r1 | r2) continue ;; esac
	for a in $targets; do
		ip netns exec "$lab-$n" ping -6 -n -q -c 1 -W 2 "$a" >/dev/null ||
			fail "$n does not reach $a over IPv6: $(ip -n "$lab-$n" -6 route)"
	done
done
echo "ok: every node reaches both sites, the resolver cache and both routers over IPv6"
# steerlab nodes lists them (family 6), as up made them
got=$($STEERLAB nodes $lab --json | jq -r '.nodes[] | select(.name == "b") | .addresses[] | select(.family == 6) | "\(.interface) \(.address)/\(.prefixlen) \(.role)"' | tr '\n' ',')
[ "$got" = "eth0 2001:2:0:1::2/64 link,lo 2001:2:0:ff00::1/128 service,lo 2001:2:0:ff01::2/128 site," ] || fail "steerlab nodes: b's IPv6 addresses: $got"
echo "ok: steerlab nodes lists b's IPv6 addresses: $got"
# authd answers over IPv6, and a steered name's AAAA follows its policy:
# a's own IPv6 address, then b's once a is out
aaaa() { ip netns exec "$lab-c1" dig +short +time=1 +tries=1 AAAA www.lab.example @2001:2:0:2::2; }
[ "$(aaaa)" = 2001:2:0:ff01::1 ] || fail "AAAA of www.lab.example over IPv6 before a fails: '$(aaaa)'"
$STEERLAB fail $lab a >/dev/null
aaaa_is() { [ "$(aaaa)" = "$1" ]; }
wait_until 5 aaaa_is 2001:2:0:ff01::2 || fail "AAAA still '$(aaaa)' 5 s after a failed"
echo "ok: authd answers AAAA over IPv6: a's 2001:2:0:ff01::1, then b's once a failed"
# resolverd answers over IPv6 at its cache's IPv6 address, walking the tree,
# and passes an IPv6 client's /56 on (RFC 7871), an IPv4 one's /24
rsv() { ip netns exec "$lab-c1" dig +short +time=2 +tries=1 "$@" www.lab.example; }
[ "$(rsv -6 AAAA @2001:2:0:8000::1)" = 2001:2:0:ff01::2 ] || fail "resolverd over IPv6: AAAA '$(rsv -6 AAAA @2001:2:0:8000::1)'"
[ "$(rsv A @198.18.128.1)" = 198.19.1.2 ] || fail "resolverd over IPv4: A '$(rsv A @198.18.128.1)'"
$STEERLAB down $lab >/dev/null
ecs=$(tshark -r "$out/up/capture-dns-ns.pcap" -Y 'dns.flags.response == 0 && dns.opt.client.family' \
	-T fields -e dns.qry.type -e dns.opt.client.family -e dns.opt.client.netmask \
	-e dns.opt.client.addr4 -e dns.opt.client.addr6 2>/dev/null | sort -u | tr '\t' ' ' | tr '\n' ',')
[ "$ecs" = "1 1 24 198.18.0.0 ,28 2 56  2001:2::," ] || fail "ECS of the queries that reached authd: '$ecs'"
echo "ok: resolverd answers over IPv6 too; authd got c1's 2001:2::/56 with the AAAA, 198.18.0.0/24 with the A"

assert_no_leftovers $lab "$out/up"

# the traffic is still IPv4: a run of the dual lab is valid
run_valid "$out/run.txt" topology/two-routers.ini --set name=$lab --set ip=dual --set duration=4s \
	--set fail_at=2s -q --out "$out/run" || fail "the run: $(tail -20 "$out/run.txt")"
echo "ok: a run of the dual lab is valid"
assert_no_leftovers $lab "$out/run"
check_left_nothing
echo "PASS: test_dual_stack"
