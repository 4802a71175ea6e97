#!/usr/bin/env bash
# about 12 s
# Tiered proximity (topology/proximity.ini; issue 27, item 5; seed
# 003_599641633a6483c6.txt's Figure 5-4): ns0 answers www.lab.example with a
# CNAME to the tier of the querier's closest site, www.us.lab.example (sites
# e, w; served by nsus) or www.eu.lab.example (u; nseu), and each tier's
# server picks the closest of its own sites. On the packets, once each
# resolver was measured: ns0 sent re and rw to the US, ru to Europe; nsus
# answered re with e and rw with w; the clients followed (ce on e, cw on w,
# cu on u). After e crashed, nsus answered re with w, ns0 still the US: no
# client went to Europe but cu.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-pxt
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run
e=198.19.1.1 w=198.19.1.2 u=198.19.1.3 re=198.18.128.1 rw=198.18.129.1 ru=198.18.130.1

run_model_agrees "$out/run.log" "$rundir" topology/proximity.ini --set name=$lab

# when NODE's authd first handed QUERIER ADDRESSES (its handout's class) on
# the sites' measurements, in ns
measured() {
	jq -r --arg q "$2" --arg a "$3" 'select(.event == "answer_changed" and (.reason | startswith("rtt from site")) and
		((.networks[$q] // []) | join(",")) == $a) | .t' "$rundir/$1.authd.events.jsonl" | sed -n 1p
}
# what NODE's DNS server sent QUERIER in [FROM, TO) ns: "A ADDR" or
# "CNAME NAME" with its count
answers() {
	tcpdump -tt -nr "$rundir/capture-dns-$1.pcap" "src port 53 and dst host $2" 2>/dev/null |
		awk -v f="$3" -v t="$4" '$1 * 1e9 >= f && $1 * 1e9 < t { for (i = 1; i < NF; i++) if ($i == "A" || $i == "CNAME") print $i, $(i + 1) }' |
		sort | uniq -c | awk '{ printf "%s%s %s:%s", (NR > 1 ? "," : ""), $2, $3, $1 } END { print "" }'
}
t_crash=$(jq -r 'select(.event == "event_applied" and .name == "crash") | .t' "$rundir/lab.events.jsonl")
steer=$(jq -r '.schemes.dns.steer_s' "$rundir/clocks.json")
t_steer=$(awk -v c="$t_crash" -v s="$steer" 'BEGIN { printf "%.0f", c + s * 1e9 }')
for q in "re $re $e,$w www.us.lab.example. $e" "rw $rw $e,$w www.us.lab.example. $w" "ru $ru $u www.eu.lab.example. $u"; do
	read -r name addr tier_sites tier site <<<"$q"
	t1=$(measured ns0 "$addr" "$tier_sites")
	[ -n "$t1" ] || fail "ns0 never gave $name the tier of $tier_sites on the sites' round trips"
	got=$(answers ns0 "$addr" "$t1" 9e18)
	echo "ns0 to $name once measured: $got"
	[[ "$got" =~ ^CNAME\ $tier:[0-9]+$ ]] || fail "ns0 answered $name other than CNAME $tier: $got"
	nsq=$([ "$name" = ru ] && echo nseu || echo nsus)
	t2=$(measured "$nsq" "$addr" "$site")
	[ -n "$t2" ] || fail "$nsq never gave $name $site on the sites' round trips"
	got=$(answers "$nsq" "$addr" "$t2" "$t_crash")
	echo "$nsq to $name once measured, before the crash: $got"
	[[ "$got" =~ ^A\ $site:[0-9]+$ ]] || fail "$nsq answered $name other than $site: $got"
done
got=$(answers nsus $re "$t_steer" 9e18)
echo "nsus to re after its steer: $got"
[[ "$got" =~ ^A\ $w:[0-9]+$ ]] || fail "nsus answered re other than w after e's crash: $got"

# the clients with them (each resolver measured a second into the traffic)
t_start=$(jq -r 'select(.event == "traffic_started") | .t' "$rundir/lab.events.jsonl" | sed -n 1p)
[ -n "$t_start" ] || t_start=$(awk -F, '/^[0-9]/ { print $3; exit }' "$rundir/requests-ce-dns.csv")
sites() {
	awk -F, -v f="$2" -v t="$3" '/^[0-9]/ && $4 == "ok" && $3 >= f && $3 < t { n[$5]++ } END { for (s in n) printf "%s:%d ", s, n[s]; print "" }' \
		"$rundir/requests-$1-dns.csv"
}
window=$(jq -r '.schemes.dns.window_s' "$rundir/clocks.json")
t_after=$(awk -v c="$t_crash" -v s="$window" 'BEGIN { printf "%.0f", c + s * 1e9 + 1 }')
for c in "ce e w" "cw w w" "cu u u"; do
	read -r client before after <<<"$c"
	got=$(sites "$client" "$((t_start + 2000000000))" "$t_crash")
	echo "$client from 2 s to the crash: $got"
	[[ "$got" =~ ^$before:[0-9]+\ $ ]] || fail "$client sent elsewhere than $before: $got"
	got=$(sites "$client" "$t_after" 9e18)
	echo "$client after the window: $got"
	[[ "$got" =~ ^$after:[0-9]+\ $ ]] || fail "$client sent elsewhere than $after: $got"
done
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
