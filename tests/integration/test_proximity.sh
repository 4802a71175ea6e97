#!/usr/bin/env bash
# about 12 s
# policy = proximity (topology/proximity-flat.ini; issue 27, item 5; seed
# 003_599641633a6483c6.txt): each site sends echo requests to every
# resolver and reports the round trips to authd, which answers each
# resolver with the closest live site, and hands the sites out in turn to a
# resolver it has no measurement of. On the packets: the echoes from b to re
# crossed the 20 ms link both ways (40 ms), a's did not; authd answered re
# with a and rw with b from their first measurement on; rw, whose echoes
# were dropped from 1.5 s to 3 s (icmp-down), got round robin and then b
# again; after a crashed at 6 s, re got b. PowerDNS and gdnsd refuse the
# policy at check.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-px
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run
a=198.19.1.1 b=198.19.1.2 re=198.18.128.1 rw=198.18.129.1

check_refused "proximity on PowerDNS" "proximity: no Lua function" topology/proximity-flat.ini --set ns.impl=pdns
check_refused "proximity on gdnsd" "proximity: its plugins" topology/proximity-flat.ini --set ns.impl=gdnsd
check_left_nothing

run_model_agrees "$out/run.log" "$rundir" topology/proximity-flat.ini --set name=$lab

# authd's handout to QUERIER: "T ADDRESSES REASON" per answer_changed
handout() {
	jq -r --arg q "$1" 'select(.event == "answer_changed" and .name == "www.lab.example.") |
		"\(.t) \((.networks[$q] // ["-"]) | join(",")) \(.reason)"' "$rundir/ns.authd.events.jsonl"
}
applied() {
	jq -r --arg n "$1" 'select(.event == "event_applied" and .name == $n) | .t' "$rundir/lab.events.jsonl"
}
t_blind=$(applied blind) t_sight=$(applied sight) t_crash=$(applied crash)
handout $re | tee "$out/re.txt"
handout $rw | tee "$out/rw.txt"
t_re=$(awk -v a=$a '$2 == a && / rtt from site / { print $1; exit }' "$out/re.txt")
t_rw=$(awk -v b=$b '$2 == b && / rtt from site / { print $1; exit }' "$out/rw.txt")
[ -n "$t_re" ] || fail "authd never answered re with a on the sites' round trips"
[ -n "$t_rw" ] || fail "authd never answered rw with b on the sites' round trips"
t_rr=$(awk -v f="$t_blind" -v a=$a -v b=$b '$1 > f && $2 == a "," b { print $1; exit }' "$out/rw.txt")
[ -n "$t_rr" ] || fail "rw's echoes dropped, authd did not hand rw every site in turn"
t_back=$(awk -v f="$t_sight" -v b=$b '$1 > f && $2 == b { print $1; exit }' "$out/rw.txt")
[ -n "$t_back" ] || fail "rw answering echoes again, authd did not give it b back"
echo "ok: re -> a, rw -> b; rw in turn $(awk -v a="$t_rr" -v f="$t_blind" 'BEGIN { printf "%.3f", (a - f) / 1e9 }') s after icmp-down, b again $(awk -v a="$t_back" -v f="$t_sight" 'BEGIN { printf "%.3f", (a - f) / 1e9 }') s after icmp-up"

# the round trips the sites measured, on the packets (capture-SITE.pcap):
# the median of echo request -> reply to QUERIER, in seconds
echo_rtt() {
	tcpdump -tt -nr "$rundir/capture-$1.pcap" icmp 2>/dev/null | awk -v q="$2" '
		$0 ~ ("> " q ": ICMP echo request") { sub(",", "", $9); sent[$9] = $1 }
		$0 ~ ("^[0-9.]+ IP " q " > .*ICMP echo reply") { sub(",", "", $9); if ($9 in sent) print $1 - sent[$9] }' |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.6f %d\n", v[int((NR + 1) / 2)], NR; else print "- 0" }'
}
read -r rtt_ar n_ar < <(echo_rtt a $re)
read -r rtt_br n_br < <(echo_rtt b $re)
read -r rtt_bw n_bw < <(echo_rtt b $rw)
echo "echoes: a-re $rtt_ar s ($n_ar), b-re $rtt_br s ($n_br), b-rw $rtt_bw s ($n_bw)"
assert_ge "$n_br" 10 "echo round trips b-re captured"
assert_near "$rtt_br" 0.040 "echo RTT b-re (the 20 ms link both ways)"
assert_lt "$rtt_ar" 0.005 "echo RTT a-re (no delayed link)"
assert_lt "$rtt_bw" 0.005 "echo RTT b-rw"
# the echoes to rw while it dropped them: requests, no reply
unanswered=$(tcpdump -tt -nr "$rundir/capture-b.pcap" icmp 2>/dev/null | awk -v f="$t_blind" -v s="$t_sight" -v q=$rw '
	$1 * 1e9 > f + 2e8 && $1 * 1e9 < s - 1e8 && $0 ~ q { if (/echo request/) r++; if (/echo reply/) p++ }
	END { printf "%d %d\n", r, p }')
read -r req rep <<<"$unanswered"
assert_ge "$req" 3 "echo requests b sent rw during icmp-down"
assert_eq "$rep" 0 "echo replies from rw during icmp-down"

# authd's answers on the packets (capture-dns-ns.pcap): the addresses it
# sent QUERIER in [FROM, TO) ns, one per line
answers() {
	tcpdump -tt -nr "$rundir/capture-dns-ns.pcap" "src port 53 and dst host $1" 2>/dev/null |
		awk -v f="$2" -v t="$3" '$1 * 1e9 >= f && $1 * 1e9 < t { for (i = 1; i < NF; i++) if ($i == "A") print $(i + 1) }' |
		sort | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1 } END { print "" }'
}
steer=$(jq -r '.schemes.dns.steer_s' "$rundir/clocks.json")
t_steer=$(awk -v c="$t_crash" -v s="$steer" 'BEGIN { printf "%.0f", c + s * 1e9 }')
got=$(answers $re "$t_re" "$t_crash")
echo "authd to re, measured, before the crash: $got"
[[ "$got" =~ ^$a:[0-9]+$ ]] || fail "authd answered re other than a before the crash: $got"
got=$(answers $rw "$t_rw" "$t_blind")
[[ "$got" =~ ^$b:[0-9]+$ ]] || fail "authd answered rw other than b before icmp-down: $got"
got=$(answers $rw "$t_back" 9e18)
[[ "$got" =~ ^$b:[0-9]+$ ]] || fail "authd answered rw other than b after icmp-up: $got"
got=$(answers $re "$t_steer" 9e18)
echo "authd to re after its steer: $got"
[[ "$got" =~ ^$b:[0-9]+$ ]] || fail "authd answered re other than b after a's failure: $got"
# and the clients with them: ce on a from its cache's refill after the
# measurement to the crash; cw on b from a TTL (1 s) and a half after its answer came back (the
# client's hold, its timers under the gate's load)
sites() {
	awk -F, -v f="$2" -v t="$3" '/^[0-9]/ && $3 >= f && $3 < t { n[$5]++ } END { for (s in n) printf "%s:%d ", s, n[s]; print "" }' \
		"$rundir/requests-$1-dns.csv"
}
got=$(sites ce "$((t_re + 1500000000))" "$t_crash")
echo "ce's requests, measured to the crash: $got"
[[ "$got" =~ ^a:[0-9]+\ $ ]] || fail "ce sent elsewhere than a: $got"
got=$(sites cw "$((t_back + 1500000000))" 9e18)
echo "cw's requests after its answer came back: $got"
[[ "$got" =~ ^b:[0-9]+\ $ ]] || fail "cw sent elsewhere than b: $got"
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
