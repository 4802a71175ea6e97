#!/usr/bin/env bash
# Connections through a failover (topology/tcp-anycast.ini, issue 25): c1
# speaks TCP, one long-lived connection a flow, and site a freezes. Before
# t0 both flows' replies come from a. Anycast: the route moves to b while
# the connection is still open, b resets it, never having opened it (RFC
# 7094), and the capture's count of such resets is the client's count of
# connections reset; the client reconnects and b answers. DNS: the
# connection to a's own address stalls, the client gives it up when a
# request has waited the timeout (stalled), reconnects to what its cached
# answer says, and ends on b's address, answered by b. Each flow had one
# connection open on a at t0, and its kernel sent its requests to the
# silent a again: as many request segments on a's link after t0 as tshark
# finds TCP retransmissions of data there. The run is valid; its one warning is that
# TCP's losses are not counted packet by packet (loss_unchecked); an
# invalid run (a loaded machine) is said and run once more (run_valid).
#
# Then the same lab with --set proto=http: libcurl's clients, sited through
# libmicrohttpd. Before t0 a answers both flows, after them b; each flow had
# a connection open on a at t0; anycast: b reset a connection it never
# opened (RFC 7094; libcurl retries such a request on a fresh connection, so
# the client may record no error for it); DNS: SYNs kept reaching a after t0
# (the cached answer), the requests that waited the timeout lost; both
# flows' requests were sent to a again after t0; every
# reply the clients recorded is a request captured on the link of the site
# that answered it; the report names the client library and the server.
# about 34 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-tcpfo
lab_guard $lab
capdump=${BUILD:-build/release}/tools/capdump
[ -x "$capdump" ] || fail "no $capdump (make all)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

rc=0
run_valid "$out/run.log" topology/tcp-anycast.ini --out "$r" --set name=$lab -q || rc=$?
[ $rc = 0 ] || { cat "$out/run.log"; fail "run exited with status $rc (not a valid run)"; }
codes=$(jq -r '[.warnings[].code] | unique | join(",")' "$r/clocks.json")
[ "$codes" = loss_unchecked ] || fail "the run's warnings: '$codes', expected loss_unchecked alone:
$(jq -r '.warnings[] | select(.code != "loss_unchecked") | "\(.code): \(.message)"' "$r/clocks.json")"
echo "ok: valid, warned of loss_unchecked alone"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$r/lab.events.jsonl")
conn() { json "$r/clocks.json" ".connections.$1.$2"; }

# sites FILE FROM TO: the sites that answered, "site=count" by name
sites() {
	awk -F, -v from="$2" -v to="$3" '/^[0-9]/ && $4 == "ok" && $3 >= from && $3 < to { n[$5]++ }
		END { for (s in n) print s "=" n[s] }' "$1" | sort | paste -sd, -
}
for f in requests-c1.csv requests-c1-dns.csv; do
	got=$(sites "$r/$f" 0 "$t0")
	[[ $got =~ ^a=[0-9]+$ ]] || fail "$f before t0: replies from '$got', expected a only"
	echo "ok: $f before t0: $got"
done

# anycast: b reset the connection a had opened, and the client saw it
assert_eq "$(conn anycast open_at_t0)" 1 "anycast connections open on a at t0"
unknown=$(conn anycast resets_unknown_flow)
assert_ge "$unknown" 1 "anycast: b's resets of a connection it never opened (RFC 7094)"
resets=$(jq -s '[.[] | select(.event == "tcp_failed" and .cause == "reset")] | length' \
	"$r/c1.client.events.jsonl")
assert_eq "$resets" "$unknown" "anycast: the client's connections reset, as the capture counts them"
reset_at=$(jq -r 'select(.event == "tcp_failed" and .cause == "reset") | .t' \
	"$r/c1.client.events.jsonl" | sed -n 1p)
got=$(sites "$r/requests-c1.csv" "$reset_at" 9999999999999999999)
[[ $got =~ ^b=[0-9]+$ ]] || fail "anycast after the reset: replies from '$got', expected b only"
echo "ok: anycast after the reset at t0 + $(awk -v a="$reset_at" -v b="$t0" \
	'BEGIN { printf "%.3f", (a - b) / 1e9 }') s: $got"

# DNS: given up as stalled, then connected to b's own address
assert_eq "$(conn dns open_at_t0)" 1 "DNS connections open on a at t0"
first=$(jq -r 'select(.event == "tcp_failed") | .cause' "$r/c1.client-dns.events.jsonl" | sed -n 1p)
[ "$first" = stalled ] || fail "the DNS flow's first broken connection: cause '$first', expected stalled"
addr_b=$(jq -r '.nodes[] | select(.name == "b") | .address' "$r/plan.json")
last=$(jq -r 'select(.event == "tcp_connected") | .address' "$r/c1.client-dns.events.jsonl" | tail -1)
[ -n "$addr_b" ] && [ "$last" = "$addr_b" ] || fail "the DNS flow's last connection went to $last, not b's address"
back=$(jq -r 'select(.event == "tcp_connected") | .t' "$r/c1.client-dns.events.jsonl" | tail -1)
got=$(sites "$r/requests-c1-dns.csv" "$back" 9999999999999999999)
[[ $got =~ ^b=[0-9]+$ ]] || fail "DNS after its last connection: replies from '$got', expected b only"
echo "ok: DNS gave its connection up (stalled) and reconnected to $last at t0 + $(awk -v a="$back" \
	-v b="$t0" 'BEGIN { printf "%.3f", (a - b) / 1e9 }') s: $got"
# the clients' clocks against what bounds them: the anycast client's first
# reply from b cannot come before the route left a (steer), and the DNS
# client's before its stalled connection was given up, a timeout (2 s) after
# its first unanswered request
for s in anycast dns; do
	assert_eq "$(conn $s clients.hit)" 1 "$s: clients the failure hit"
	assert_eq "$(conn $s clients.recovered)" 1 "$s: clients answered again by b"
done
steer=$(json "$r/clocks.json" .schemes.anycast.steer_s)
assert_ge "$(conn anycast clients.recovered_s.max)" "$steer" "anycast: the client's first reply from b (s after t0) against steer"
assert_ge "$(conn dns clients.recovered_s.max)" 2 "dns: the client's first reply from b (s after t0) against the 2 s timeout"
# the requests sent again: a acknowledged nothing after t0, and both flows'
# kernels sent their requests to it again (a tail loss probe, then the
# retransmission timer) before the route moved or the client gave up; the
# count on a's link after t0 is tshark's, the clients' TCP retransmissions
# carrying data there
for s in anycast dns; do
	assert_ge "$(conn $s retransmits_to_failed)" 1 "$s: request segments sent to the frozen a again after t0"
	assert_ge "$(conn $s retransmits)" "$(conn $s retransmits_to_failed)" "$s: request segments sent again, all links"
done
command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
t0_ns=$(json "$r/clocks.json" .t0_ns)
port=$(json "$r/clocks.json" .port)
sent_again=$(tshark -r "$r/capture-a.pcap" -Y "tcp.analysis.retransmission && tcp.dstport == $port && \
tcp.len > 0 && frame.time_epoch > ${t0_ns:0:${#t0_ns}-9}.${t0_ns: -9}" 2>/dev/null | wc -l)
assert_eq "$(($(conn anycast retransmits_to_failed) + $(conn dns retransmits_to_failed)))" "$sent_again" \
	"request segments sent to a again after t0, against tshark's retransmissions"
echo "ok: request segments sent again to a after t0: anycast $(conn anycast retransmits_to_failed), dns $(conn dns retransmits_to_failed), tshark $sent_again"
$STEERLAB report "$r" >"$out/report.txt" 2>&1 || true
grep -E "^(connections|clients) \(" "$out/report.txt" || fail "steerlab report prints no connections line"
[ "$(grep -cE "^(connections|clients) \(" "$out/report.txt")" = 4 ] || fail "steerlab report: not 4 connection lines"
assert_no_leftovers $lab "$r"

# ---- the same over HTTP/1.1 (proto = http) ----
h=$out/http
rc=0
run_valid "$out/http.log" topology/tcp-anycast.ini --out "$h" --set name=$lab --set proto=http -q || rc=$?
[ $rc = 0 ] || { cat "$out/http.log"; fail "http: run exited with status $rc (not a valid run)"; }
hconn() { json "$h/clocks.json" ".connections.$1.$2"; }
t0=$(jq -r 'select(.event == "site_failed") | .t' "$h/lab.events.jsonl")
for f in requests-c1.csv requests-c1-dns.csv; do
	got=$(sites "$h/$f" 0 "$t0")
	[[ $got =~ ^a=[0-9]+$ ]] || fail "http: $f before t0: replies from '$got', expected a only"
	last=$(awk -F, '/^[0-9]/ && $4 == "ok" { s = $5 } END { print s }' "$h/$f")
	[ "$last" = b ] || fail "http: $f: the last reply from '$last', expected b"
	echo "ok: http: $f before t0: $got; the last reply from b"
done
for s in anycast dns; do
	assert_ge "$(hconn $s open_at_t0)" 1 "http: $s connections open on a at t0"
done
assert_ge "$(hconn anycast resets_unknown_flow)" 1 "http: anycast: b's resets of a connection it never opened (RFC 7094)"
assert_ge "$(hconn dns syns_to_failed)" 1 "http: dns: SYNs to a after t0 (the cached answer)"
for s in anycast dns; do
	assert_ge "$(hconn $s retransmits_to_failed)" 1 "http: $s: request segments sent to the frozen a again after t0"
done
lost=$(jq -r 'select(.event == "client_summary") | .lost' "$h/c1.client-dns.events.jsonl")
timeouts=$(jq -r 'select(.event == "http_failed" and .cause == "timeout") | .seq' "$h/c1.client-dns.events.jsonl" | wc -l)
assert_ge "$lost" 1 "http: dns: requests lost waiting on a"
assert_eq "$timeouts" "$lost" "http: dns: http_failed timeouts, as the client's losses"
# every reply recorded was captured as a request on the answering site's link
"$capdump" "$h" | awk '{ print $1, $2, $3 }' | sort -u >"$out/captured"
for f in requests-c1.csv requests-c1-dns.csv; do
	awk -F, '/^[0-9]/ && $4 == "ok" { print $5, $1, $2 }' "$h/$f" | sort -u >"$out/ok"
	n=$(wc -l <"$out/ok")
	missing=$(comm -23 "$out/ok" "$out/captured" | wc -l)
	assert_ge "$n" 100 "http: $f: replies recorded"
	assert_eq "$missing" 0 "http: $f: replies whose request no capture of the answering site holds"
done
for lib in libcurl/ libmicrohttpd/; do
	grep -F "$lib" "$h/report.md" >/dev/null || fail "http: report.md does not name $lib"
done
jq -e '.connections.http.clients | startswith("libcurl/")' "$h/clocks.json" >/dev/null ||
	fail "http: clocks.json names no client library"
jq -e 'select(.event == "sited_summary") | .http.server | startswith("libmicrohttpd ")' \
	"$h/b.sited.events.jsonl" >/dev/null || fail "http: b's sited_summary names no server"
echo "ok: http: $(grep -F 'http: the clients spoke' "$h/report.md" | sed -n 1p)"
assert_no_leftovers $lab "$h"

# ---- libcurl resolving the name itself: its DNS cache holds a past the TTL ----
# The DNS flow's name resolved by libcurl (resolve = libcurl: the system's
# resolver, given the lab's resolver r in a resolv.conf of the client's
# own), kept 60 s in libcurl's DNS cache: past the answer's 2 s TTL and
# authd's verdict, the flow still connects to a's address to the end, every
# request after t0 lost; the address it connects to never changes.
l=$out/libcurl
rc=0
run_valid "$out/libcurl.log" topology/tcp-anycast.ini --out "$l" --set name=$lab --set proto=http \
	--set c1.resolve=libcurl --set duration=6s -q || rc=$?
[ $rc = 0 ] || { cat "$out/libcurl.log"; fail "libcurl: run exited with status $rc (not a valid run)"; }
addrs=$(jq -r 'select(.event == "http_address") | .address' "$l/c1.client-dns.events.jsonl" | paste -sd, -)
addr_a=$(jq -r '.nodes[] | select(.name == "a") | .address' "$l/plan.json")
[ "$addrs" = "$addr_a" ] || fail "libcurl: the addresses libcurl connected to: '$addrs', expected a's alone ($addr_a)"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$l/lab.events.jsonl")
steer=$(json "$l/clocks.json" .schemes.dns.steer_s)
is_number "$steer" || fail "libcurl: authd never stopped handing out a"
# every request sent once the TTL (2 s) ran out after authd's change went unanswered
after=$(awk -v t0="$t0" -v s="$steer" 'BEGIN { printf "%.0f", t0 + (s + 2.5) * 1e9 }')
read -r ok failed < <(awk -F, -v from="$after" '/^[0-9]/ && $3 > from { if ($4 == "ok") ok++; else failed++ }
	END { printf "%d %d\n", ok, failed }' "$l/requests-c1-dns.csv")
assert_eq "$ok" 0 "libcurl: requests answered after authd's change + the TTL"
assert_gt "$failed" 100 "libcurl: requests after authd's change + the TTL, every one lost on a"
echo "ok: libcurl: connected to $addrs throughout: its DNS cache outlived the answer's 2 s TTL by the whole run"
assert_no_leftovers $lab "$l"

# ---- nginx at the sites: the server users run, failed by a kill ----
# Both sites run Debian's nginx (impl = nginx) in place of sited, their
# configuration the lab's (checked by nginx -t); the clients speak HTTP, the
# probers check over HTTP; a's nginx is killed: its kernel resets every new
# connection and the flows end on b. The report names nginx as who answered.
n=$out/nginx
rc=0
run_valid "$out/nginx.log" topology/tcp-anycast.ini --out "$n" --set name=$lab --set proto=http \
	--set check=http --set a.impl=nginx --set b.impl=nginx --set e1.action=kill \
	--set duration=5s -q || rc=$?
[ $rc = 0 ] || { cat "$out/nginx.log"; fail "nginx: run exited with status $rc (not a valid run)"; }
[ "$(awk -F'\t' '$4 == "nginx" { n++ } END { print n + 0 }' "$n/agents.tsv")" = 2 ] ||
	fail "nginx: agents.tsv does not hold two nginx"
grep -F 'answered by nginx/' "$n/report.md" >/dev/null || fail "nginx: report.md does not name nginx"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$n/lab.events.jsonl")
for f in requests-c1.csv requests-c1-dns.csv; do
	got=$(sites "$n/$f" 0 "$t0")
	[[ $got =~ ^a=[0-9]+$ ]] || fail "nginx: $f before t0: replies from '$got', expected a only"
	last=$(awk -F, '/^[0-9]/ && $4 == "ok" { s = $5 } END { print s }' "$n/$f")
	[ "$last" = b ] || fail "nginx: $f: the last reply from '$last', expected b"
done
assert_ge "$(json "$n/clocks.json" .connections.anycast.resets_from_failed)" 1 \
	"nginx: anycast: connections a's kernel reset once nginx was killed"
echo "ok: nginx: a's and b's nginx answered, a's killed, both flows end on b: $(grep -F 'answered by' "$n/report.md" | sed -n 1p)"
assert_no_leftovers $lab "$n"
