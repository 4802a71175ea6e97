#!/usr/bin/env bash
# A failure of IPv6 alone (docs/topology.md, "IPv6 clients"; topology/
# dual-stack.ini; issue 28): at 3 s site a's IPv6 is frozen (an [event] of
# family = 6: nftables drops IPv6 in a's namespace, IPv4 untouched). The
# probes and the announcements are IPv4: nothing detects it (gray_undetected
# for both schemes), and the run is valid. c4 (IPv4) loses nothing; c6
# (IPv6) loses every request it sends after t0; cd (dual: Happy Eyeballs)
# loses none, each request answered over IPv4 250 ms late: the clocks'
# families table (clocks.json's families) says so, as a share of each
# family's clients that never noticed. Two populations of 100 logical
# clients beside them, p6 (family 6) and pd (dual), both schemes, asking
# the resolver over IPv6: on a's link (tshark) their requests over IPv6
# to the service and to a's own address, before t0 and after, and pd's
# again over IPv4 only after t0; their records: p6 lost every request
# after the freeze, pd had every one answered over IPv4 after falling
# back, every logical client with records of its own id; clocks.json:
# each of their clients in its family's row (every dual one unnoticed),
# each of them in the populations' per-client clocks. site_failed says
# family 6; family on another action, or in an IPv4 lab, is refused at
# check. Then the same failure with p1 of family = 6: it probes each site's
# own IPv6 address (its probes on a's link are IPv6) and reports to authd
# over IPv6 (authd's control socket on [::]): the DNS scheme detects the
# failure (probe_down 3 of 100 ms) and steers c6's AAAA and c4's A to b,
# so c6's DNS flow loses only until its cached answer (TTL 1 s) runs out,
# its anycast flow everything still (the routers' announcements come from
# a's own prober, over IPv4); the model's DNS clocks agree (a failure of
# one family: only the probers of that family see it, the clients of the
# other family and dual ones lose nothing).
# about 25 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ipv6f
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

check_refused "family on a kill" "\[event a-ipv6\] family: a freeze, a link-down or a drain of one address family" topology/dual-stack.ini --set a-ipv6.action=kill
check_refused "family in an IPv4 lab" "the lab's ip is not dual" topology/dual-stack.ini --set ip=4 --set family=4 --set c6.family=4 --set cd.family=4

# the populations, before the file's [event]
awk '/^\[event a-ipv6\]/ { for (f = 0; f < 2; f++)
	printf "[client %s]\nlink = r1\nmode = both\nresolver = r\nfamily = %s\npopulation = 100\nrate = 500\n\n",
		f ? "pd" : "p6", f ? "dual" : "6" } { print }' topology/dual-stack.ini >"$out/pop.ini"
run_valid "$out/run.txt" "$out/pop.ini" --set name=$lab -q --out "$r" || fail "the run: $(tail -20 "$out/run.txt")"
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
# c6's two flows and p6's 200 logical clients; cd's and pd's
assert_eq "$(fam 6 clients)" 202 "IPv6 clients (c6's flows, p6's logical clients)"
assert_eq "$(fam dual clients)" 202 "dual clients (cd's flows, pd's logical clients)"
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
	read -r n6 ok6 < <(awk -F, -v d="$done_ns" '/^[0-9]/ && $3 > d { n++; o += $4 == "ok" } END { print n + 0, o + 0 }' "$r/requests-c6$flow.csv")
	read -r nd fbd < <(awk -F, -v d="$done_ns" '/^[0-9]/ && $3 > d { n++; f += $4 == "ok" && $7 == 4 && $8 == 1 } END { print n + 0, f + 0 }' "$r/requests-cd$flow.csv")
	assert_gt "$n6" 3000 "c6$flow's requests sent after the freeze"
	assert_eq "$ok6" 0 "c6$flow's requests answered after the freeze (of $n6)"
	assert_eq "$fbd" "$nd" "cd$flow's requests answered over IPv4 after falling back, after the freeze"
done
assert_eq "$(fam dual unnoticed_clients)" 202 "dual clients that never noticed"
p50=$(fam dual rescued_rtt_p50_s)
assert_ge "$p50" 0.25 "the rescued requests' round trip (the attempt delay, 250 ms)"
assert_le "$p50" 0.27 "the rescued requests' round trip"
grep -q '^families: ' "$out/run.txt" || fail "run does not print the families table"
echo "ok: families: IPv4 lost 0, IPv6 $(fam 6 lost_after_t0) of $(fam 6 sent_after_t0), dual rescued $(fam dual rescued) of $(fam dual sent_after_t0) at $p50 s"
# the records: c4 and cd lost nothing, c6 everything after t0
for f in c4 cd pd pd-dns; do
	assert_le "$(awk -F, '/^[0-9]/ && $4 == "timeout"' "$r/requests-$f.csv" | wc -l)" 0 "$f's lost requests"
done

# the populations: each says its family and asks the resolver over IPv6
for p in p6:6 pd:dual; do
	got=$(json "$r/${p%%:*}.client-dns.events.jsonl" 'select(.event == "client_started") | "\(.family) \(.population) \(.resolver)"')
	[ "$got" = "${p#*:} 100 2001:2:0:8000::1" ] || fail "${p%%:*}'s client_started: $got"
done
# on a's link: the populations' requests (ids with the top bit), over IPv6
# to the service and to a's own address, before t0 and after; over IPv4,
# pd's copies alone, after t0
t0s=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .t / 1e9')
read -r s6b s6a o6b o6a s4b s4a o4b o4a < <(tshark -r "$r/capture-a.pcap" -Y 'udp.dstport == 7000 && udp.payload[8:4] >= 80:00:00:00' \
	-T fields -e frame.time_epoch -e ipv6.dst -e ip.dst 2>/dev/null | awk -F '\t' -v t0="$t0s" '
	{ k = ($2 == "2001:2:0:ff00::1" ? "s6" : $2 == "2001:2:0:ff01::1" ? "o6" : $3 == "198.19.0.1" ? "s4" : $3 == "198.19.1.1" ? "o4" : "x")
	  n[k ($1 > t0 ? "a" : "b")]++ }
	END { print n["s6b"] + 0, n["s6a"] + 0, n["o6b"] + 0, n["o6a"] + 0, n["s4b"] + 0, n["s4a"] + 0, n["o4b"] + 0, n["o4a"] + 0 }')
for v in "$s6b:service over IPv6 before t0" "$s6a:service over IPv6 after t0" "$o6b:a's own IPv6 address before t0" "$o6a:a's own IPv6 address after t0" \
	"$s4a:service over IPv4 after t0 (pd's copies)" "$o4a:a's own IPv4 address after t0 (pd's copies)"; do
	assert_ge "${v%%:*}" 1000 "the populations' requests captured at a to the ${v#*:}"
done
# (none unless a loaded machine held a's answer past the attempt delay)
assert_le "$s4b" 30 "the populations' requests to the service over IPv4 before t0"
assert_le "$o4b" 30 "the populations' requests to a's own IPv4 address before t0"
echo "ok: a's capture: the populations' IPv6 requests, $s6b + $s6a to the service and $o6b + $o6a to a's own address (before + after t0); pd's IPv4 copies after t0 alone, $s4a and $o4a"
# their records: after the freeze p6 lost every request, pd had every one
# answered over IPv4 after falling back; each of the 100 logical clients
# of each flow recorded under its own id
for flow in "" -dns; do
	read -r n6 ok6 ids6 < <(awk -F, -v d="$done_ns" '/^[0-9]/ { id[$1] = 1 } /^[0-9]/ && $3 > d { n++; o += $4 == "ok" }
		END { for (i in id) k++; print n + 0, o + 0, k + 0 }' "$r/requests-p6$flow.csv")
	read -r nd fbd idsd < <(awk -F, -v d="$done_ns" '/^[0-9]/ { id[$1] = 1 } /^[0-9]/ && $3 > d { n++; f += $4 == "ok" && $7 == 4 && $8 == 1 }
		END { for (i in id) k++; print n + 0, f + 0, k + 0 }' "$r/requests-pd$flow.csv")
	assert_gt "$n6" 1000 "p6$flow's requests sent after the freeze"
	assert_eq "$ok6" 0 "p6$flow's requests answered after the freeze (of $n6)"
	assert_gt "$nd" 1000 "pd$flow's requests sent after the freeze"
	assert_eq "$fbd" "$nd" "pd$flow's requests answered over IPv4 after falling back, after the freeze"
	assert_eq "$ids6" 100 "p6$flow's logical clients in its records"
	assert_eq "$idsd" 100 "pd$flow's logical clients in its records"
	fbsum=$(jq -r 'select(.event == "client_summary") | .family.fell_back' "$r/pd.client$flow.events.jsonl")
	assert_ge "$fbsum" "$nd" "pd$flow's client_summary fell_back"
	echo "ok: p6$flow lost all $n6 requests after the freeze; pd$flow had all $nd answered over IPv4 (100 logical clients each)"
done
# the populations' per-client clocks: every logical client of each sent to
# a after t0 (over IPv6)
for s in anycast dns; do
	for p in p6 pd; do
		got=$(json "$r/clocks.json" ".schemes.$s.populations[] | select(.node == \"$p\") | \"\(.clients) \(.sent_after_t0)\"")
		[ "$got" = "100 100" ] || fail "clocks.json $s populations: $p's clients and those sending to a after t0: '$got'"
	done
done
echo "ok: clocks.json: each of p6's and pd's 100 logical clients in their populations' clocks"
assert_no_leftovers $lab "$r"

# --- a prober over IPv6
r=$out/run6
# the model follows it too: detect by p1 alone, c4 and cd losing nothing
run_model_agrees "$out/run6.txt" "$r" topology/dual-stack.ini --set name=$lab --set p1.family=6
grep -Eq '^dns +window \(s\) .* yes *$' "$out/run6.txt" || fail "no model of the DNS window: $(grep -A12 '^model:' "$out/run6.txt")"
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
lost6() { awk -F, -v d="$done_ns" '/^[0-9]/ && $3 > d && $4 == "timeout"' "$r/requests-c6$1.csv" | wc -l; }
# DNS: until the steer and c6's answer's TTL (1 s), at 1000/s
assert_ge "$(lost6 -dns)" 200 "c6's DNS-steered requests lost after the freeze"
assert_le "$(lost6 -dns)" 1800 "c6's DNS-steered requests lost after the freeze"
assert_ge "$(lost6 "")" 3000 "c6's anycast requests lost after the freeze"
answers=$(json "$r/c6.client-dns.events.jsonl" 'select(.event == "dns_answer") | .address' | uniq | tr '\n' ' ')
[ "$answers" = "2001:2:0:ff01::1 2001:2:0:ff01::2 " ] || fail "c6's AAAA answers: $answers"
echo "ok: p1 over IPv6 ($probes6 probes to a): dns detected the IPv6 failure at $detect s; c6 lost $(lost6 -dns) DNS-steered requests, $(lost6 "") anycast ones"
assert_no_leftovers $lab "$r"
