#!/usr/bin/env bash
# PowerDNS and gdnsd as the steering authority (docs/authorities.md), with
# topology/pdns.ini (ns runs pdns_server, www.lab.example a LUA record
# whose ifportup() checks the sites itself every second) and
# topology/gdnsd.ini (gdnsd, a metafo DYNA record, tcp_connect every 2 s).
#   1. pdns.ini dual-stack (ip = dual, c2 of family 6), site a killed at
#      3 s: valid, every clock within the model's interval
#      (run_model_agrees); detect is a failed check of PowerDNS's own on
#      a's capture (its SYN answered by an RST) within one check_interval
#      of t0, steer its first answer without a after detect (on ns's
#      capture), both clients end on b; c2's AAAA queries, over IPv6 to ns,
#      answered a's IPv6 address and then b's, never a's again; the
#      configuration it ran with in the run directory (ns.pdns/, the LUA
#      records A and AAAA), its log there, and nothing left (namespace,
#      state directory, process).
#   2. authorities.ini: authd, PowerDNS and gdnsd side by side, each with
#      its own zone, resolver and client: valid, within the model (each
#      authority's detect and steer beside its own, gdnsd's answers a
#      second after its verdict); the authorities table of clocks.json
#      has the three, each detecting within its interval (authd: its
#      prober's three failures), steering after it, its client ending on
#      b; gdnsd run as its user (started by `up` once the sites' routes
#      are in), its files and log kept. Dual-stack, cg of family 6: nsg
#      answered rg's AAAA queries with a's IPv6 address, then b's.
#   3. what they cannot express is refused at check, naming the line: a
#      weighted pattern, a check_interval of 1.5 s, a [prober] node with
#      no authd to report to, a gdnsd timeout not below its interval, a
#      pdns check_down of 3; no temporary directory left.
# about 34 s (27.5 s before its two labs were dual-stack)
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-auth
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

# steered WHO DIR INTERVAL: the run in DIR detected a within INTERVAL of
# t0 (its first failed check after t0), steered after that (its first
# answer without a), and both clients ended on b
steered() {
	local who=$1 dir=$2 interval=$3 detect steer c site
	detect=$(json "$dir/clocks.json" .schemes.dns.detect_s)
	steer=$(json "$dir/clocks.json" .schemes.dns.steer_s)
	assert_gt "$detect" 0 "$who's detect: its first failed check after t0"
	assert_le "$detect" "$(awk -v i="$interval" 'BEGIN { print i + 0.05 }')" \
		"$who's detect: within one check_interval ($interval s) of t0"
	assert_ge "$steer" "$detect" "$who's steer: its first answer without a, after detect"
	for c in 100001 100002; do
		site=$(awk -F, -v c=$c '$1 == c && $4 == "ok" { s = $5 } END { print s }' "$dir"/requests-c*-dns.csv)
		[ "$site" = b ] || fail "$who: client $c's last answered request was from '$site', not b"
	done
	echo "ok: $who: both clients ended on b"
}

# aaaa_moved WHO PCAP FILTER: the AAAA answers on PCAP (a tshark display
# FILTER's) held a's IPv6 address 2001:2:0:ff01::1, then b's ::2, and none
# held a's again once b's came
aaaa_moved() {
	local who=$1 pcap=$2 filter=$3 seq
	seq=$(tshark -r "$pcap" -Y "dns.flags.response == 1 && dns.qry.type == 28 && $filter" \
		-T fields -e dns.aaaa 2>/dev/null | tr '\n' ' ')
	case "$seq" in
	2001:2:0:ff01::1\ *2001:2:0:ff01::2\ ) ;;
	*) fail "$who: AAAA answers not a's IPv6 address then b's: '$seq'" ;;
	esac
	case "${seq#*2001:2:0:ff01::2 }" in
	*ff01::1*) fail "$who: a's IPv6 address answered after b's: '$seq'" ;;
	esac
	echo "ok: $who: AAAA a's then b's ($(wc -w <<<"$seq") answers)"
}

# --- 1. PowerDNS (dual-stack: c2 asks ns over IPv6)
run_model_agrees "$out/run.txt" "$r" topology/pdns.ini --set name=$lab --set ip=dual --set c2.family=6
steered PowerDNS "$r" 1
aaaa_moved "PowerDNS to c2 over IPv6" "$r/capture-dns-ns.pcap" "ipv6.dst == 2001:2:0:5::2"
# the failed check on the packets: ns's SYN to a, answered RST
rsts=$(tcpdump -nn -r "$r/capture-a.pcap" 'tcp[tcpflags] & tcp-rst != 0 and dst host 198.18.0.10' 2>/dev/null | wc -l)
assert_ge "$rsts" 1 "RSTs from a to ns's checks on a's capture"
grep -q "LUA A " "$r/ns.pdns/lab.example.zone" || fail "no LUA record in ns.pdns/lab.example.zone"
grep -q "LUA AAAA .*" "$r/ns.pdns/lab.example.zone" || fail "no LUA AAAA record in ns.pdns/lab.example.zone"
grep -q "ifportup(7000" "$r/ns.pdns/lab.example.zone" || fail "the LUA record checks no site"
grep -q "declaring TCP/IP 198.19.1.1:7000 DOWN" "$r/ns.pdns.log" ||
	fail "PowerDNS's log says nothing of a going down: $(tail -5 "$r/ns.pdns.log")"
echo "ok: the configuration and PowerDNS's log in the run directory"
assert_no_leftovers $lab "$r"

# --- 2. authd, PowerDNS and gdnsd side by side
g=$out/grun
run_model_agrees "$out/grun.txt" "$g" topology/authorities.ini --set name=$lab --set ip=dual \
	--set cg.family=6
sed -n '/^authorities:/,/^$/p' "$out/grun.txt"
# side NODE IMPL LO HI CLIENT: authorities[] has NODE of IMPL, its detect
# within LO-HI s of t0, its steer after it, and its client CLIENT ended on b
side() {
	local node=$1 impl=$2 lo=$3 hi=$4 c=$5 detect steer site
	[ "$(jq -r --arg n "$node" '.authorities[] | select(.node == $n) | .impl' "$g/clocks.json")" = "$impl" ] ||
		fail "no authority $node ($impl) in clocks.json: $(jq -c .authorities "$g/clocks.json")"
	detect=$(jq -r --arg n "$node" '.authorities[] | select(.node == $n) | .detect_s' "$g/clocks.json")
	steer=$(jq -r --arg n "$node" '.authorities[] | select(.node == $n) | .steer_s' "$g/clocks.json")
	assert_ge "$detect" "$lo" "$node's detect"
	assert_le "$detect" "$hi" "$node's detect"
	assert_ge "$steer" "$detect" "$node's steer: its first answer without a, after its detect"
	site=$(awk -F, '$4 == "ok" { s = $5 } END { print s }' "$g/requests-$c-dns.csv")
	[ "$site" = b ] || fail "$node: client $c's last answered request was from '$site', not b"
	echo "ok: $node ($impl): detect $detect s, steer $steer s, $c ended on b"
}
assert_eq "$(jq '.authorities | length' "$g/clocks.json")" 3 "authorities side by side"
side nsa authd 2.45 3.05 ca
side nsp pdns 0 1.05 cp
side nsg gdnsd 0 2.05 cg
grep -q "DYNA metafo!www_gdnsd_example" "$g/nsg.gdnsd/zones/gdnsd.example" || fail "no DYNA record in nsg.gdnsd/zones/gdnsd.example"
grep -q "plugin => tcp_connect" "$g/nsg.gdnsd/config" || fail "no tcp_connect monitor in nsg.gdnsd/config"
grep -q "addrs_v6 => \[ 2001:2:0:ff01::1 \]" "$g/nsg.gdnsd/config" || fail "no IPv6 address in nsg.gdnsd/config"
aaaa_moved "gdnsd to rg" "$g/capture-dns-nsg.pcap" "dns.qry.name == \"www.gdnsd.example\""
grep -q "198.19.1.1/steerlab' changed from UP" "$g/nsg.gdnsd.log" ||
	fail "gdnsd's log says nothing of a going down: $(tail -5 "$g/nsg.gdnsd.log")"
echo "ok: gdnsd's files and log in the run directory"
assert_no_leftovers $lab "$g"
# it runs as its own user, not root; `up` starts it once the routes are in
$STEERLAB up topology/authorities.ini --set name=$lab --out "$out/up" >"$out/up.log" 2>&1 ||
	fail "up: $(cat "$out/up.log")"
pid=$(awk '$4 == "gdnsd" { print $1 }' "$out/up/agents.tsv")
[ -n "$pid" ] || fail "up started no gdnsd: $(cat "$out/up/agents.tsv")"
[ "$(ps -o user= -p "$pid")" = gdnsd ] || fail "gdnsd (pid $pid) runs as '$(ps -o user= -p "$pid")', not gdnsd"
echo "ok: gdnsd runs as gdnsd (pid $pid)"
$STEERLAB down $lab >/dev/null
assert_no_leftovers $lab "$out/up"

# --- 3. refusals at check
sed 's/^policy = failover$/policy = weighted\nweight = a 1\nweight = b 1\npattern = a b b/;/^primary\|^secondary/d' \
	topology/pdns.ini >"$out/pattern.ini"
check_refused "a weighted pattern" "pattern.ini:[0-9]*: \[name www.lab.example\] policy = weighted: pdns cannot express this (pattern:" "$out/pattern.ini"
check_refused "check_interval = 1500ms" "pdns.ini:[0-9]*: \[dns ns\] check_interval = 1.500 s: pdns checks every whole second" \
	topology/pdns.ini --set ns.check_interval=1500ms
cp topology/pdns.ini "$out/prober.ini"
printf '\n[prober p1]\nlink = core\n' >>"$out/prober.ini"
check_refused "a [prober] with only pdns" "\[prober p1\] reports to authd, and every \[dns\] node runs pdns or gdnsd" "$out/prober.ini"
check_refused "a gdnsd timeout not below its interval" "gdnsd.ini:[0-9]*: \[dns ns\] check_timeout = 2.000 s: gdnsd takes whole seconds, below the interval" \
	topology/gdnsd.ini --set ns.check_timeout=2s
check_refused "a pdns check_down of 3" "\[dns ns\] check_down = 3, check_up = 1: pdns 4.7 takes one failed check" \
	topology/pdns.ini --set ns.check_down=3
check_left_nothing
rm -rf "$out" # kept only when a check fails
echo "PASS: test_authorities"
