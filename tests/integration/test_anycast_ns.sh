#!/usr/bin/env bash
# Anycast name servers (docs/topology.md, "Anycast name servers";
# topology/dns-anycast.ini): any.example served by ns1 and ns2 on one
# anycast address, uni.example by ns3 and ns4 at their own; ns1 and ns3
# dns-down at 3.5 s. A valid run; the tree's glue for any.example is the
# anycast address; ns1's prober declared it dead and routed withdrew its
# route; no question reached ns1 after that (ns2 took them); r1 (anycast)
# answered at most 3 questions slowly (those in flight before the
# withdrawal), r2 (unicast, a random server each question) 3 or more.
# With ROUTING=bgp (test_anycast_ns_bgp.sh) the same lab on FRR, the anycast
# pair PowerDNS (ns1) and gdnsd (ns2): ns1's prober took the address off lo, its bgpd withdrew it, and the router's
# FIB moved to ns2.
# about 15 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

routing=${ROUTING:-static}
lab=it-anyns-${routing:0:1}
lab_guard $lab
command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'' EXIT
r=$out/run

# on FRR the anycast pair is PowerDNS (ns1, the one taken down) and gdnsd
# (ns2): each binds the address while its prober keeps it off lo
# (ip_nonlocal_bind); authd's pair is the static run's
impls=()
[ "$routing" = bgp ] && impls=(--set ns1.impl=pdns --set ns2.impl=gdnsd --set ns2.check_interval=2s --set ns2.check_timeout=1s)
run_valid "$out/run.txt" topology/dns-anycast.ini --set name=$lab --set routing=$routing --set duration=9s "${impls[@]}" -q --out "$r" || fail "the run: $(tail -20 "$out/run.txt")"
grep -q "ns-ns1.any.example. A 198.19.53.1" "$r/tld.authd.ini" || fail "the TLD's glue for any.example is not the anycast address"
grep -q "ns-ns2.any.example" "$r/tld.authd.ini" && fail "the TLD names ns2 besides ns1: one NS for the anycast address"
echo "ok: the TLD refers any.example to ns-ns1.any.example at 198.19.53.1"
t_dead=$(json "$r/ns1.prober.events.jsonl" 'select(.event == "declared_dead" and .site == "ns1") | .t')
[ -n "$t_dead" ] || fail "ns1's prober did not declare it dead"
if [ "$routing" = bgp ]; then
	# the address off ns1's lo, then core's FIB to the address through ns2's link
	t_rm=$(json "$r/ns1.prober.events.jsonl" 'select(.event == "address_removed") | .t')
	[ -n "$t_rm" ] || fail "ns1's prober did not take the anycast address off lo"
	t_wd=$(jq -r --arg t "$t_rm" 'select(.event == "route_added" and .prefix == "198.19.53.1/32" and .dev == "ns2" and .t > ($t | tonumber)) | .t' \
		"$r/core.collector.events.jsonl" | sed -n 1p)
	[ -n "$t_wd" ] || fail "core's FIB did not move 198.19.53.1/32 to ns2 after ns1's withdrawal"
	echo "ok: ns1 declared dead, the address off lo $(awk -v a="$t_dead" -v b="$t_rm" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s later, core's FIB to ns2 $(awk -v a="$t_rm" -v b="$t_wd" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s after that (BGP)"
else
	t_wd=$(json "$r/core.routed.events.jsonl" 'select(.event == "route_withdrawn" and .site == "ns1") | .t')
	[ -n "$t_wd" ] || fail "routed did not withdraw ns1's route: $(grep ns1 "$r/core.routed.log")"
	echo "ok: ns1 declared dead, its route withdrawn $(awk -v a="$t_dead" -v b="$t_wd" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s later"
fi
# the questions to the anycast address on ns1's and ns2's links
late=$(tshark -r "$r/capture-dns-ns1.pcap" -Y 'dns.flags.response == 0 && ip.dst == 198.19.53.1' \
	-T fields -e frame.time_epoch 2>/dev/null |
	awk -v t="$t_wd" '$1 > (t + 10000000) / 1e9 { n++ } END { print n + 0 }')
assert_eq "$late" 0 "questions reaching ns1 more than 10 ms after its withdrawal"
assert_ge "$(tshark -r "$r/capture-dns-ns2.pcap" -Y 'dns.flags.response == 0 && ip.dst == 198.19.53.1' 2>/dev/null | wc -l)" 10 \
	"questions ns2 took"
slow() { jq -r --arg r "$1" '.dns_outages[] | select(.name == "any-down") | .resolvers[$r].slow' "$r/clocks.json"; }
sed -n '/^DNS outages/,/^$/p' "$out/run.txt"
assert_le "$(slow 198.18.128.1)" 3 "r1's questions answered slowly (anycast: those before the withdrawal)"
assert_ge "$(slow 198.18.129.1)" 3 "r2's questions answered slowly (unicast: a random server each)"
assert_no_leftovers $lab "$r"

# refused at check: two instances of one address serving other zones
[ "$routing" = bgp ] || {
	rm -rf "$out"
	echo "PASS: test_anycast_ns"
	exit 0
}
check_refused "instances of other zones" "\[dns ns3\] anycast: 198.19.53.1 is also \[dns ns1\]'s, which serves other zones" \
	topology/dns-anycast.ini --set ns3.anycast=198.19.53.1
check_left_nothing
rm -rf "$out"
echo "PASS: test_anycast_ns"
