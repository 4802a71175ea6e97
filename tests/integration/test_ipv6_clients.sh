#!/usr/bin/env bash
# IPv6 clients (docs/topology.md, "IPv6"; topology/dual-stack.ini; issue
# 28): in a dual lab, c6 (family = 6) sends its anycast flow to the
# service's IPv6 address and its DNS flow to the name's AAAA, c4 the same
# over IPv4, both behind r1. Site a crashes: the run is valid; a's capture
# holds c6's requests over IPv6, to 2001:2:0:ff00::1 and to a's own
# 2001:2:0:ff01::1; c6's AAAA answers move from a's IPv6 address to b's;
# each of c6's flows loses as many requests as c4's (the routers withdraw
# both families' routes at once, authd steers the AAAA as the A); the
# model counts the resolver's AAAA entry apart (upstream queries agree);
# family = 6 without ip = dual, and over TCP, are refused at check.
# about 14 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ipv6c
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

check_refused "family = 6 in an IPv4 lab" "family = 6: the lab's network has no IPv6" topology/dual-stack.ini --set ip=4
check_refused "family = 6 over TCP" "family = 6: not yet with proto = tcp" topology/dual-stack.ini --set c6.proto=tcp

run_model_agrees "$out/run.txt" "$r" topology/dual-stack.ini --set name=$lab

# c6's requests on a's link, over IPv6 (tcpdump reads the collector's pcap)
v6() { tcpdump -r "$r/capture-a.pcap" -n "ip6 and udp dst port 7000 and dst host $1" 2>/dev/null | wc -l; }
assert_ge "$(v6 2001:2:0:ff00::1)" 2000 "c6's anycast requests to 2001:2:0:ff00::1 captured at a"
assert_ge "$(v6 2001:2:0:ff01::1)" 2000 "c6's DNS-steered requests to a's 2001:2:0:ff01::1 captured at a"
echo "ok: a's capture holds $(v6 2001:2:0:ff00::1) IPv6 requests to the service, $(v6 2001:2:0:ff01::1) to a's own address"

answers=$(jq -r 'select(.event == "dns_answer") | .address' "$r/c6.client-dns.events.jsonl" | uniq | tr '\n' ' ')
[ "$answers" = "2001:2:0:ff01::1 2001:2:0:ff01::2 " ] || fail "c6's AAAA answers: $answers"
echo "ok: c6's AAAA answers: $answers"

lost() { awk -F, 'NR > 1 && $4 == "timeout"' "$r/requests-$1.csv" | wc -l; }
for flow in "" -dns; do
	l4=$(lost c4$flow) l6=$(lost c6$flow)
	assert_gt "$l4" 100 "c4$flow's lost requests"
	assert_ge "$l6" $((l4 - 50)) "c6$flow's lost requests against c4$flow's ($l4)"
	assert_le "$l6" $((l4 + 50)) "c6$flow's lost requests against c4$flow's ($l4)"
	echo "ok: c6$flow lost $l6 requests, c4$flow $l4"
done
assert_no_leftovers $lab "$r"
