#!/usr/bin/env bash
# A failure of IPv6 alone (docs/topology.md, "IPv6 clients"; topology/
# dual-stack.ini; issue 28): at 3 s site a's IPv6 is frozen (an [event] of
# family = 6: nftables drops IPv6 in a's namespace, IPv4 untouched). The
# probes and the announcements are IPv4: nothing detects it (gray_undetected
# for both schemes), and the run is valid. c4 (IPv4) loses nothing; c6
# (IPv6) loses every request it sends after t0; cd (dual: Happy Eyeballs)
# loses none, each request answered over IPv4 250 ms late: the clocks'
# families table (clocks.json's families) says so, as a share of each
# family's clients that never noticed. site_failed says family 6; family
# on another action, or in an IPv4 lab, is refused at check.
# about 14 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ipv6f
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

check_refused "family on a kill" "\[event a-ipv6\] family: a freeze or a link-down of one address family" topology/dual-stack.ini --set a-ipv6.action=kill
check_refused "family in an IPv4 lab" "the lab's ip is not dual" topology/dual-stack.ini --set ip=4 --set family=4 --set c6.family=4 --set cd.family=4

run_valid "$out/run.txt" topology/dual-stack.ini --set name=$lab -q --out "$r" || fail "the run: $(tail -20 "$out/run.txt")"
echo "ok: the run is valid"
[ "$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .family')" = 6 ] || fail "site_failed has no family 6"
for s in anycast dns; do
	grep -q "warning (gray_undetected): $s: site a: not detected within the run: IPv6 alone" "$out/run.txt" ||
		fail "no gray_undetected of $s: $(grep warning "$out/run.txt")"
done
echo "ok: site_failed says family 6; neither scheme detected it (gray_undetected)"

fam() { json "$r/clocks.json" ".families[] | select(.family == \"$1\") | .$2"; }
assert_eq "$(fam 4 lost_after_t0)" 0 "IPv4 clients' losses after t0"
assert_eq "$(fam 4 unnoticed_clients)" 2 "IPv4 client flows that never noticed"
# IPv6: every request after t0 but those sent before the freeze's table
# was in place (the action's killed_ns; on a loaded machine tens of ms)
assert_ge "$(fam 6 lost_after_t0)" "$(($(fam 6 sent_after_t0) * 9 / 10))" "IPv6 clients' losses after t0"
assert_eq "$(fam 6 unnoticed_clients)" 0 "IPv6 client flows that never noticed"
assert_eq "$(fam dual lost_after_t0)" 0 "dual clients' losses after t0"
assert_ge "$(fam dual rescued)" "$(($(fam dual sent_after_t0) * 9 / 10))" "dual clients' requests rescued over IPv4"
# and from the records, exactly: once the freeze was in place, c6 lost every
# request and cd had every one answered over IPv4 after falling back
done_ns=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .killed_ns')
for flow in "" -dns; do
	read -r n6 ok6 < <(awk -F, -v d="$done_ns" 'NR > 1 && $3 > d { n++; o += $4 == "ok" } END { print n + 0, o + 0 }' "$r/requests-c6$flow.csv")
	read -r nd fbd < <(awk -F, -v d="$done_ns" 'NR > 1 && $3 > d { n++; f += $4 == "ok" && $7 == 4 && $8 == 1 } END { print n + 0, f + 0 }' "$r/requests-cd$flow.csv")
	assert_gt "$n6" 3000 "c6$flow's requests sent after the freeze"
	assert_eq "$ok6" 0 "c6$flow's requests answered after the freeze (of $n6)"
	assert_eq "$fbd" "$nd" "cd$flow's requests answered over IPv4 after falling back, after the freeze"
done
assert_eq "$(fam dual unnoticed_clients)" 2 "dual client flows that never noticed"
p50=$(fam dual rescued_rtt_p50_s)
assert_ge "$p50" 0.25 "the rescued requests' round trip (the attempt delay, 250 ms)"
assert_le "$p50" 0.27 "the rescued requests' round trip"
grep -q '^families: ' "$out/run.txt" || fail "run does not print the families table"
echo "ok: families: IPv4 lost 0, IPv6 $(fam 6 lost_after_t0) of $(fam 6 sent_after_t0), dual rescued $(fam dual rescued) of $(fam dual sent_after_t0) at $p50 s"
# the records: c4 and cd lost nothing, c6 everything after t0
for f in c4 cd; do
	assert_le "$(awk -F, 'NR > 1 && $4 == "timeout"' "$r/requests-$f.csv" | wc -l)" 0 "$f's lost requests"
done
assert_no_leftovers $lab "$r"

# --- a prober over IPv6
r=$out/run6
run_valid "$out/run6.txt" topology/dual-stack.ini --set name=$lab --set p1.family=6 -q --out "$r" || fail "the run: $(tail -20 "$out/run6.txt")"
targets=$(json "$r/p1.prober.events.jsonl" 'select(.event == "prober_started") | .target' | tr '\n' ' ')
[ "$targets" = "[2001:2:0:ff01::1]:7000 [2001:2:0:ff01::2]:7000 " ] || fail "p1's targets: $targets"
[ "$(json "$r/ns.authd.events.jsonl" 'select(.event == "authd_ready") | .control')" = "[::]:5353" ] ||
	fail "authd's control socket is not on [::]"
probes6=$(tshark -r "$r/capture-a.pcap" -Y 'ipv6.src == 2001:2:0:3::2 && udp.dstport == 7000' 2>/dev/null | wc -l)
assert_ge "$probes6" 20 "p1's probes to a over IPv6 captured on a's link"
grep -q "warning (gray_undetected): anycast: site a" "$out/run6.txt" || fail "no gray_undetected of anycast"
if grep -q "warning (gray_undetected): dns" "$out/run6.txt"; then fail "dns: gray_undetected with p1 over IPv6"; fi
detect=$(json "$r/clocks.json" '.schemes.dns.detect_s')
assert_ge "$detect" 0.2 "the DNS detect (3 probes of 100 ms)"
assert_le "$detect" 0.6 "the DNS detect (3 probes of 100 ms)"
done_ns=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .killed_ns')
lost6() { awk -F, -v d="$done_ns" 'NR > 1 && $3 > d && $4 == "timeout"' "$r/requests-c6$1.csv" | wc -l; }
# DNS: until the steer and c6's answer's TTL (1 s), at 1000/s
assert_ge "$(lost6 -dns)" 200 "c6's DNS-steered requests lost after the freeze"
assert_le "$(lost6 -dns)" 1800 "c6's DNS-steered requests lost after the freeze"
assert_ge "$(lost6 "")" 3000 "c6's anycast requests lost after the freeze"
answers=$(json "$r/c6.client-dns.events.jsonl" 'select(.event == "dns_answer") | .address' | uniq | tr '\n' ' ')
[ "$answers" = "2001:2:0:ff01::1 2001:2:0:ff01::2 " ] || fail "c6's AAAA answers: $answers"
echo "ok: p1 over IPv6 ($probes6 probes to a): dns detected the IPv6 failure at $detect s; c6 lost $(lost6 -dns) DNS-steered requests, $(lost6 "") anycast ones"
assert_no_leftovers $lab "$r"
