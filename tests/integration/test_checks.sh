#!/usr/bin/env bash
# Shallow and deep checks against a degraded site (topology/checks.ini,
# issue 25): at 2 s site a degrades, its sited reading every request and
# answering none while its kernel accepts connections. a's own prober checks
# shallowly (check = tcp): it goes on connecting, never declares a dead, and
# anycast's requests reach a to the end of the run (no detect, no steer, a
# window cut by the end). The vantage point p1 checks deeply (a request
# answered): it declares a dead within probe_down probes of the degrade, and
# authd steers the DNS flow to b, answered there. sited's summary says it
# dropped requests unanswered while accepting the shallow checks'
# connections. The run is valid (an invalid one, on a loaded machine, is
# said and run once more: run_valid).
#
# Then p1 checks over HTTP instead (--set p1.check=http, a shorter run):
# every sited serves HTTP on its TCP port, a degraded one answering 503;
# a's own shallow check still passes on that port, p1's GET fails
# (unavailable), a is declared dead and the DNS flow ends on b.
#
# Last, p1 pings (--set p1.check=icmp) and a's sited is killed: a's host
# answers the echoes, p1 never declares a dead and DNS stays on a, while a's
# own tcp check (an RST to its SYN) detects the kill and anycast moves.
#
# Then a's sited is slowed instead (action = slow, delay = 200ms) and the
# clients speak TCP (timeout 1 s), each connection closed after 40
# requests (requests_per_connection): every request to a is answered, 200 ms
# late; a's shallow check misses it, p1's deep one (a 50 ms timeout)
# declares a dead. The anycast flow stays on a, connection after
# connection; the DNS flow's next connection after its answer changed goes
# to b (a connection kept for the whole run would stay on a: docs/clocks.md,
# "Connections").
# about 30 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-checks
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

rc=0
run_valid "$out/run.log" topology/checks.ini --out "$r" --set name=$lab -q || rc=$?
[ $rc = 0 ] || { cat "$out/run.log"; fail "run exited with status $rc (not a valid run)"; }
t0=$(jq -r 'select(.event == "site_failed") | .t' "$r/lab.events.jsonl")
[ "$(jq -r 'select(.event == "site_failed") | .how' "$r/lab.events.jsonl")" = degrade ] ||
	fail "site_failed is not a degrade"

# the checks as the probers said they ran them
checks=$(jq -r 'select(.event == "prober_started" and .site == "a") | "\(.node)=\(.check)"' \
	"$r"/a.prober.events.jsonl "$r"/p1.prober.events.jsonl | sort | paste -sd, -)
[ "$checks" = "a=tcp,p1=udp" ] || fail "the probers' checks of a: '$checks', expected a=tcp,p1=udp"
echo "ok: a's own prober checks shallowly (tcp), p1 deeply (udp)"

# shallow: never dead, anycast never moves
dead=$(jq -s '[.[] | select(.event == "declared_dead")] | length' "$r/a.prober.events.jsonl")
assert_eq "$dead" 0 "declared_dead by a's shallow prober"
[ "$(json "$r/clocks.json" .schemes.anycast.detect_s)" = null ] || fail "anycast detected the degrade"
[ "$(json "$r/clocks.json" .schemes.anycast.steer_s)" = null ] || fail "anycast steered away"
assert_ge "$(json "$r/clocks.json" .schemes.anycast.window_s)" 3.5 \
	"anycast: requests reaching a after t0 (s; the run's 4 s after t0)"

# deep: dead within probe_down (3) probes of 100 ms, and DNS moves to b
detect=$(json "$r/clocks.json" .schemes.dns.detect_s)
is_number "$detect" || fail "dns: no detect"
assert_le "$detect" 0.5 "dns: p1's deep check declared a dead (s after t0)"
last=$(awk -F, '/^[0-9]/ && $4 == "ok" { s = $5 } END { print s }' "$r/requests-c1-dns.csv")
[ "$last" = b ] || fail "the DNS flow's last reply came from '$last', not b"
echo "ok: deep check detected a in $detect s; the DNS flow ends on b"

# sited: requests dropped unanswered, connections accepted meanwhile
read -r dropped accepted < <(jq -r 'select(.event == "sited_summary") |
	"\(.degraded_dropped) \(.tcp_accepted)"' "$r/a.sited.events.jsonl")
assert_gt "$dropped" 0 "requests a's sited dropped unanswered while degraded"
assert_gt "$accepted" 20 "connections a's kernel accepted (the shallow prober's)"
assert_no_leftovers $lab "$r"

# ---- p1's deep check over HTTP ----
h=$out/http
rc=0
run_valid "$out/http.log" topology/checks.ini --out "$h" --set name=$lab --set p1.check=http \
	--set duration=5s -q || rc=$?
[ $rc = 0 ] || { cat "$out/http.log"; fail "http: run exited with status $rc (not a valid run)"; }
checks=$(jq -r 'select(.event == "prober_started" and .site == "a") | "\(.node)=\(.check)"' \
	"$h"/a.prober.events.jsonl "$h"/p1.prober.events.jsonl | sort | paste -sd, -)
[ "$checks" = "a=tcp,p1=http" ] || fail "http: the probers' checks of a: '$checks', expected a=tcp,p1=http"
dead=$(jq -s '[.[] | select(.event == "declared_dead")] | length' "$h/a.prober.events.jsonl")
assert_eq "$dead" 0 "http: declared_dead by a's shallow prober (on sited's HTTP port)"
# after t0 (before it, at start-up, a probe may find sited not yet listening: refused)
t0=$(jq -r 'select(.event == "site_failed") | .t' "$h/lab.events.jsonl")
reasons=$(jq -r --argjson t0 "$t0" 'select(.event == "probe_failed" and .site == "a" and .t > $t0) |
	.reason' "$h/p1.prober.events.jsonl" | sort -u | paste -sd, -)
[ "$reasons" = unavailable ] || fail "http: p1's failed probes of a after t0: reasons '$reasons', expected unavailable (503)"
detect=$(json "$h/clocks.json" .schemes.dns.detect_s)
is_number "$detect" || fail "http: dns: no detect"
assert_le "$detect" 0.5 "http: dns: p1's HTTP check declared a dead (s after t0)"
last=$(awk -F, '/^[0-9]/ && $4 == "ok" { s = $5 } END { print s }' "$h/requests-c1-dns.csv")
[ "$last" = b ] || fail "http: the DNS flow's last reply came from '$last', not b"
unavailable=$(jq -r 'select(.event == "sited_summary") | .http.unavailable' "$h/a.sited.events.jsonl")
assert_gt "$unavailable" 0 "http: a's sited answered 503 while degraded"
echo "ok: http: p1's GET saw 503s (unavailable) and declared a dead in $detect s; the DNS flow ends on b"
assert_no_leftovers $lab "$h"

# ---- p1's icmp check, and a killed sited: the host answers, the service is gone ----
i=$out/icmp
rc=0
run_valid "$out/icmp.log" topology/checks.ini --out "$i" --set name=$lab --set p1.check=icmp \
	--set e1.action=kill --set duration=4s -q || rc=$?
[ $rc = 0 ] || { cat "$out/icmp.log"; fail "icmp: run exited with status $rc (not a valid run)"; }
check=$(jq -r 'select(.event == "prober_started" and .site == "a") | .check' "$i/p1.prober.events.jsonl")
[ "$check" = icmp ] || fail "icmp: p1's check of a: '$check', expected icmp"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$i/lab.events.jsonl")
# its host answers every echo: never declared dead (a loaded machine may
# time one echo out, not three in a row)
dead=$(jq -s '[.[] | select(.event == "declared_dead" and .site == "a")] | length' \
	"$i/p1.prober.events.jsonl")
assert_eq "$dead" 0 "icmp: p1 declared a dead after its sited was killed"
[ "$(json "$i/clocks.json" .schemes.dns.detect_s)" = null ] || fail "icmp: DNS detected a killed sited by ICMP"
last=$(awk -F, '/^[0-9]/ && $4 == "ok" { s = $5 } END { print s }' "$i/requests-c1-dns.csv")
[ "$last" = a ] || fail "icmp: the DNS flow's last reply came from '$last', expected a (before the kill)"
# a's own shallow tcp check sees the kill (an RST to its SYN): anycast moves
detect=$(json "$i/clocks.json" .schemes.anycast.detect_s)
is_number "$detect" || fail "icmp: anycast: a's own tcp check did not detect the kill"
echo "ok: icmp: p1's echoes answered throughout, DNS stayed on a; a's own tcp check detected the kill in $detect s"
assert_no_leftovers $lab "$i"

# ---- slow: a's sited answers every request 200 ms late, over TCP ----
s=$out/slow
rc=0
run_valid "$out/slow.log" topology/checks.ini --out "$s" --set name=$lab --set e1.action=slow \
	--set e1.delay=200ms --set proto=tcp --set timeout=1s --set duration=7s \
	--set c1.requests_per_connection=40 -q || rc=$?
[ $rc = 0 ] || { cat "$out/slow.log"; fail "slow: run exited with status $rc (not a valid run)"; }
delay=$(jq -r 'select(.event == "sited_slowed") | .delay_ns' "$s/a.sited.events.jsonl")
assert_eq "$delay" 200000000 "slow: a's sited held its replies (ns)"
# late: every request sent to a once its sited took the signal answered
# (within the clients' 1 s timeout, a loaded machine's stalls aside), none
# before 200 ms
slowed=$(jq -r 'select(.event == "sited_slowed") | .t' "$s/a.sited.events.jsonl")
# the DNS flow's answer changing to b's address (the end of its time on a)
moved=$(jq -r 'select(.event == "dns_answer" and .previous != null and .changed) | .t' \
	"$s/c1.client-dns.events.jsonl" | sed -n 1p)
is_number "$moved" || fail "slow: the DNS flow's answer never changed"
for f in requests-c1.csv requests-c1-dns.csv; do
	# the DNS flow's up to a second before its answer changed: the requests
	# due just before it may wait for the next connection, made to b
	end=$([ $f = requests-c1.csv ] && echo 9e18 || echo "$moved")
	read -r ok other fastest < <(awk -F, -v t0="$slowed" -v end="$end" '/^[0-9]/ && $3 > t0 &&
		$3 < end - 1e9 { if ($4 == "ok" && $5 == "a") { ok++; if (min == "" || $6 < min) min = $6 }
		else other++ } END { printf "%d %d %s\n", ok, other, min == "" ? 0 : min / 1e9 }' "$s/$f")
	assert_gt "$ok" 100 "slow: $f: requests after the slowing answered by a"
	assert_eq "$other" 0 "slow: $f: requests after the slowing (and a second before a new answer) not answered by a"
	assert_ge "$fastest" 0.2 "slow: $f: the fastest of a's replies after the slowing (s)"
done
# the DNS flow's connections: closed after 40 requests each, the next one
# after the answer changed made to b, every request sent from a second
# after the change on (a rotation takes 0.4 s here) answered by b
rotated=$(jq -r 'select(.event == "client_summary") | .tcp.rotated' "$s/c1.client-dns.events.jsonl")
assert_gt "$rotated" 10 "slow: the DNS flow's connections closed after their 40 requests"
read -r on_b other < <(awk -F, -v from="$moved" '/^[0-9]/ && $3 > from + 1e9 {
	if ($4 == "ok" && $5 == "b") b++; else other++ } END { printf "%d %d\n", b, other }' \
	"$s/requests-c1-dns.csv")
assert_gt "$on_b" 100 "slow: the DNS flow's requests answered by b a second after its answer changed"
assert_eq "$other" 0 "slow: the DNS flow's requests a second after its answer changed, not answered by b"
# the shallow own check misses it; the deep vantage point declares a dead
[ "$(json "$s/clocks.json" .schemes.anycast.detect_s)" = null ] || fail "slow: a's shallow check detected it"
detect=$(json "$s/clocks.json" .schemes.dns.detect_s)
is_number "$detect" || fail "slow: p1 did not declare a dead"
assert_le "$detect" 0.5 "slow: p1's deep check (a 50 ms timeout) declared a dead (s after t0)"
echo "ok: slow: a answered 200 ms late over TCP; its shallow check passed, p1's deep one failed in $detect s; anycast stayed on a, the DNS flow's next connection went to b"
assert_no_leftovers $lab "$s"
