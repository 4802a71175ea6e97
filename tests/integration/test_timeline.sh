#!/usr/bin/env bash
# The timeline (issue 12; docs/topology.md, "The timeline"): three short
# runs, each action checked in the lab while it is in effect, and after.
#
# 1. kill a, freeze b, link-down c at 1 s, each recovered at 5 s, d
#    healthy: a's sited is gone, then running again; b's sited runs but the
#    vantage point p1 declares b dead, and `nft list ruleset` in b's
#    namespace shows the drop, then nothing; both ends of c's link are
#    down, then up, with c's routes back. The run is valid: no agent ended
#    unexpectedly, nothing the timeline did counts as a healthy site dying;
#    a's fail-back clocks are there and ordered.
# 2. drain a (preferred), crash b at 1 s: every process of b is gone; no
#    request is lost in either scheme, a's route leaves the FIB and authd
#    answers c.
# 3. dns-down of the authoritative ns at 1 s, resolver-down of the resolver
#    rr at 0.9 s (before: a query rr forwarded in between would meet the
#    dead ns and come back SERVFAIL): the serve-stale resolver rs answers
#    stale, rn answers SERVFAIL and its client counts failures; rr's client's queries time out, rr never
#    answers SERVFAIL; the DNS outage clocks (clocks.json) say the same from the clients' side.
# about 20 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
pfx=${IT_PREFIX:-it}

# alive PID START: the process recorded with that start time runs
alive() {
	local state now
	[ -r "/proc/$1/stat" ] || return 1
	read -r state now < <(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $1, $20}') || return 1
	[ "$now" = "$2" ] && [ "$state" != Z ]
}
# agents LAB NODE [AGENT]: "pid start" of the node's agents, as recorded
agents() {
	awk -v n="$2" -v a="${3:-}" '$3 == n && (a == "" || $4 == a) { print $1, $2 }' \
		"/run/steerlab/$1/agents.tsv"
}
# running LAB NODE [AGENT]: how many of those run
running() {
	local pid start n=0
	while read -r pid start; do
		alive "$pid" "$start" && n=$((n + 1))
	done < <(agents "$@")
	echo $n
}
# applied RUNDIR NAME: the timeline's event NAME was applied
applied() {
	[ -n "$(jq -cR --arg n "$2" 'fromjson? | select(.event == "event_applied" and .name == $n)' \
		"$1/lab.events.jsonl" 2>/dev/null)" ]
}
# site_event FILE EVENT SITE: FILE has EVENT about SITE
site_event() {
	[ -n "$(jq -cR --arg e "$2" --arg s "$3" 'fromjson? | select(.event == $e and .site == $s)' "$1" 2>/dev/null)" ]
}
# link_up LAB NODE IFNAME: the link has IFF_UP
link_up() {
	grep -q '[<,]UP[,>]' <<<"$(ip netns exec "$1-$2" ip -o link show dev "$3")"
}
zone() {
	cat <<'EOF'
[zone lab.example]
soa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5
ttl = 60
record = @ NS ns.lab.example.
EOF
}
# run_bg LAB INI RUNDIR: steerlab run in the background; its pid in $run_pid
run_bg() {
	$STEERLAB run "$2" --set name="$1" --out "$3" -q >"$3.log" 2>&1 &
	run_pid=$!
}
# run_wait RUNDIR: the run's exit status is 0 (a valid run)
run_wait() {
	local rc=0
	wait "$run_pid" || rc=$?
	[ "$rc" = 0 ] || fail "run $1: exit status $rc: $(tail -20 "$1.log")"
	echo "ok: run $1 valid (exit 0)"
}
no_unexpected_exit() { # RUNDIR
	assert_eq "$(jq -R 'fromjson? | select(.event == "agent_exited" and .expected == false)' \
		"$1/lab.events.jsonl" | jq -s length)" 0 "$1: agents that ended unexpectedly"
}

# --- 1. kill, freeze, link-down, recover
lab=$pfx-tl1
lab_guard $lab
cat >"$out/t1.ini" <<EOF
[lab]
name = tl1
duration = 14s
[router core]
[site a]
link = core
[site b]
link = core
[site c]
link = core
[site d]
link = core
[dns ns]
link = core
[prober p1]
link = core
[client c1]
link = core
mode = both
resolver = ns
rate = 200
[event e1]
at = 1s
action = kill
target = a
[event e2]
at = 1s
action = freeze
target = b
[event e3]
at = 1s
action = link-down
target = core c
[event r1]
at = 5s
action = recover
target = a
[event r2]
at = 5s
action = recover
target = b
[event r3]
at = 5s
action = link-up
target = c core
$(zone)
record = ns A 198.18.0.18
[name www.lab.example]
policy = failover
primary = d
secondary = a
ttl = 2
EOF
grep -q '^#   at 5.000 s: link-up link c core (r3, undoes e3)$' <<<"$($STEERLAB check "$out/t1.ini")" ||
	fail "check does not print the timeline: $($STEERLAB check "$out/t1.ini" | tail -8)"
echo "ok: check prints the timeline"
r1=$out/run1
run_bg $lab "$out/t1.ini" "$r1"
wait_until 20 applied "$r1" e3 || fail "e3 not applied: $(tail "$r1.log")"
sleep 0.3
# the failed state, seen first and judged after: what was seen must be the
# failures', not yet the recoveries' (4 s later)
a_sited=$(running $lab a sited) a_prober=$(running $lab a prober) b_sited=$(running $lab b sited)
ip netns exec $lab-b nft list ruleset >"$out/b.nft"
c_up=0 core_up=0
link_up $lab c eth0 && c_up=1
link_up $lab core c && core_up=1
applied "$r1" r1 || applied "$r1" r3 &&
	fail "the checks of the failed state ran after the recovery: too slow to tell"
assert_eq "$a_sited" 0 "kill: a's sited running"
assert_eq "$a_prober" 1 "kill: a's prober running"
assert_eq "$b_sited" 1 "freeze: b's sited running"
grep -q 'table inet steerlab_freeze' "$out/b.nft" && grep -q 'policy drop' "$out/b.nft" ||
	fail "freeze: b's ruleset: $(cat "$out/b.nft")"
echo "ok: freeze: nft list ruleset in $lab-b shows the drop"
assert_eq "$c_up" 0 "link-down: c's eth0 up"
assert_eq "$core_up" 0 "link-down: core's end (c) up"
echo "ok: link-down: both ends of c's link are down"
wait_until 3 site_event "$r1/p1.prober.events.jsonl" declared_dead b || fail "freeze: p1 did not declare b dead"
echo "ok: freeze: b does not answer p1's probes (declared dead)"
wait_until 10 applied "$r1" r3 || fail "r3 not applied: $(tail "$r1.log")"
sleep 0.3
assert_eq "$(running $lab a sited)" 1 "recover: a's sited running again"
assert_eq "$(agents $lab a sited | wc -l)" 2 "recover: a's sited lines in agents.tsv"
grep -q steerlab_freeze < <(ip netns exec $lab-b nft list ruleset) && fail "recover: b's freeze table remains"
echo "ok: recover: b's table is gone"
link_up $lab c eth0 && link_up $lab core c || fail "link-up: a link end of c is down"
grep -q 'via 198.18.0.10' <<<"$(ip netns exec $lab-core ip -4 route show 198.19.1.3)" ||
	fail "link-up: core has no route to c's address: $(ip netns exec $lab-core ip -4 route)"
grep -q 'via 198.18.0.9' <<<"$(ip netns exec $lab-c ip -4 route show default)" || fail "link-up: c has no default route"
echo "ok: link-up: both ends up, routes back"
has_event "$r1/lab.events.jsonl" lab_stopping &&
	fail "the checks of the recovered state ran after the run's end: too slow to tell"
run_wait "$r1"
assert_eq "$(jq -R 'fromjson? | select(.event == "event_applied")' "$r1/lab.events.jsonl" | jq -s length)" 6 \
	"event_applied lines"
assert_eq "$(jq -R 'fromjson? | select(.event == "site_failed")' "$r1/lab.events.jsonl" | jq -s length)" 3 \
	"site_failed lines (a, b, c)"
no_unexpected_exit "$r1"
assert_eq "$(json "$r1/clocks.json" '[.warnings[]? | select(.code == "healthy_site_dead" or .code == "healthy_route_withdrawn")] | length')" 0 \
	"verdict: the timeline's sites counted as healthy ones dying"
assert_eq "$(jq -R 'fromjson? | select(.event == "declared_alive")' "$r1/a.prober.events.jsonl" | jq -s length)" 2 \
	"a's prober declared a alive (before the kill, after the recover)"
echo "ok: a is declared alive again after its recover"
# the fail-back clocks of a (the first site_failed): present, ordered
fb=$(json "$r1/clocks.json" '.schemes.anycast.failback')
assert_eq "$(jq -r .recovered_s <<<"$fb" | awk '{ printf "%.1f", $1 }')" 4.0 "fail-back: a recovered 4 s after t0"
assert_gt "$(jq -r .healthy_s <<<"$fb")" 0 "fail-back: a's prober saw it healthy after the recovery (s)"
assert_le "$(jq -r .first_client_s <<<"$fb")" "$(jq -r .last_client_s <<<"$fb")" "fail-back: first client before last"
assert_eq "$(jq -r .clients_back <<<"$fb")" 1 "fail-back: anycast clients back at a"
assert_no_leftovers $lab "$r1"

# --- 2. drain and crash
lab=$pfx-tl2
lab_guard $lab
cat >"$out/t2.ini" <<EOF
[lab]
name = tl2
duration = 5s
[router core]
[site a]
link = core
metric = 10
[site b]
link = core
metric = 30
[site c]
link = core
metric = 20
[dns ns]
link = core
[prober p1]
link = core
[client c1]
link = core
mode = both
resolver = ns
rate = 500
[event e1]
at = 1s
action = drain
target = a
[event e2]
at = 1s
action = crash
target = b
$(zone)
record = ns A 198.18.0.14
[name www.lab.example]
policy = failover
primary = a
secondary = c
ttl = 1
EOF
r2=$out/run2
run_bg $lab "$out/t2.ini" "$r2"
wait_until 20 applied "$r2" e2 || fail "e2 not applied: $(tail "$r2.log")"
sleep 0.2
assert_eq "$(running $lab b)" 0 "crash: b's processes running"
assert_eq "$(agents $lab b | wc -l)" 2 "crash: b's agents (sited, prober)"
assert_eq "$(running $lab a sited)" 1 "drain: a's sited running"
run_wait "$r2"
no_unexpected_exit "$r2"
assert_eq "$(json "$r2/clocks.json" '.schemes.anycast.lost_client')" 0 "drain: anycast requests lost"
assert_eq "$(json "$r2/clocks.json" '.schemes.dns.lost_client')" 0 "drain: DNS requests lost"
assert_gt "$(json "$r2/clocks.json" '.schemes.anycast.ok')" 2000 "drain: anycast requests answered"
has_event "$r2/a.sited.events.jsonl" sited_draining || fail "drain: sited did not say sited_draining"
[ -n "$(jq -cR 'fromjson? | select(.event == "route_deleted" and .via == "198.18.0.2")' "$r2/core.collector.events.jsonl")" ] ||
	fail "drain: a's route did not leave core's FIB"
echo "ok: drain: a's route withdrawn"
[ -n "$(jq -cR 'fromjson? | select(.event == "answer_changed" and .after == ["198.19.1.3"])' "$r2/ns.authd.events.jsonl")" ] ||
	fail "drain: authd never answered c (198.19.1.3)"
echo "ok: drain: authd answers c"
assert_no_leftovers $lab "$r2"

# --- 3. dns-down, resolver-down
lab=$pfx-tl3
lab_guard $lab
cat >"$out/t3.ini" <<EOF
[lab]
name = tl3
dns_name = www.lab.example
duration = 6s
[router core]
[site a]
link = core
[site b]
link = core
[dns ns]
link = core
[resolver rs]
link = core
serve_stale = yes
stale_recheck = 0s
[resolver rn]
link = core
[resolver rr]
link = core
[client c1]
link = core
mode = dns
resolver = rs
rate = 100
[client c2]
link = core
mode = dns
resolver = rn
rate = 100
[client c3]
link = core
mode = dns
resolver = rr
rate = 100
[event out]
at = 1s
action = dns-down
target = ns
[event rdown]
at = 900ms
action = resolver-down
target = rr
[event kill]
at = 5s
action = kill
target = b
$(zone)
record = ns A 198.18.0.10
[name www.lab.example]
policy = failover
primary = a
secondary = b
ttl = 1
EOF
r3=$out/run3
run_bg $lab "$out/t3.ini" "$r3"
wait_until 20 applied "$r3" out || fail "out not applied: $(tail "$r3.log")"
rules=$(ip netns exec $lab-ns nft list ruleset)
grep -q 'udp dport 53 drop' <<<"$rules" || fail "dns-down: no drop in ns: $rules"
echo "ok: dns-down: ns's ruleset drops DNS"
run_wait "$r3"
sum() { # FILE FIELD
	jq -s --arg f "$2" '[.[] | select(.event == "resolver_stats") | .[$f]] | add // 0' "$1"
}
assert_gt "$(sum "$r3/rs.resolverd.events.jsonl" stale_answers)" 0 "dns-down: rs's stale answers"
assert_eq "$(sum "$r3/rs.resolverd.events.jsonl" servfail)" 0 "dns-down: rs's SERVFAILs"
assert_gt "$(sum "$r3/rn.resolverd.events.jsonl" servfail)" 0 "dns-down: rn's SERVFAILs"
assert_gt "$(json "$r3/c2.client-dns.events.jsonl" 'select(.event == "dns_summary") | .failures')" 0 \
	"dns-down: c2's failed lookups"
assert_eq "$(sum "$r3/rr.resolverd.events.jsonl" servfail)" 0 "resolver-down: rr's SERVFAILs"
assert_gt "$(json "$r3/c3.client-dns.events.jsonl" 'select(.event == "dns_summary") | .failures')" 0 \
	"resolver-down: c3's lookups that timed out"
# the DNS outage clocks, from the clients' side: each resolver's resolutions by outcome
resolver_of() { # NODE: the resolver its client asks
	json "$r3/$1.client-dns.events.jsonl" 'select(.event == "client_started") | .resolver'
}
outage() { # NAME NODE OUTCOME: resolutions of NODE's resolver during outage NAME
	json "$r3/clocks.json" ".dns_outages[] | select(.name == \"$1\") | .resolvers[\"$(resolver_of "$2")\"].during.$3"
}
assert_gt "$(outage out c1 stale)" 0 "DNS outage clocks: rs's clients got stale answers"
assert_eq "$(outage out c1 servfail)" 0 "DNS outage clocks: rs's clients got no SERVFAIL"
assert_gt "$(outage out c2 servfail)" 0 "DNS outage clocks: rn's clients got SERVFAIL"
assert_eq "$(outage out c2 stale)" 0 "DNS outage clocks: rn's clients got no stale answer"
assert_gt "$(outage rdown c3 timeout)" 0 "DNS outage clocks: rr's clients timed out"
assert_eq "$(outage rdown c3 fresh)" 0 "DNS outage clocks: rr's clients got no answer"
grep -q '^### DNS outages' "$r3/report.md" || fail "report.md has no DNS outage table"
no_unexpected_exit "$r3"
assert_no_leftovers $lab "$r3"
rm -rf "$out"
echo "PASS: test_timeline"
