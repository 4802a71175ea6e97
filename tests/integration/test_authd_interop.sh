#!/usr/bin/env bash
# authd interoperability (issue 3, item 4). In a lab of its own
# (tests/integration/data/interop.ini), from the client's namespace:
#   - dig and kdig against authd: every policy, NXDOMAIN, NODATA, a referral,
#     REFUSED, FORMERR (raw bytes), NOTIMP, BADVERS, TC and the TCP retry,
#     EDNS Client Subnet with its scope, the aa flag;
#   - unbound, a recursive resolver with a stub zone pointing at authd, gives
#     the same answers and asks authd again only once a TTL has run out
#     (authd's link captured with tcpdump);
#   - health: reports forged from the client are rejected (control_rejected)
#     and change nothing, those of a prober's own address count; site a's
#     sited is killed, the failover name moves to site b and authd writes
#     answer_changed.
# about 14 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-dnsio
topo=tests/integration/data/interop.ini
t_start=$(date +%s%3N)

lab_guard $lab
for tool in dig kdig unbound tcpdump jq; do
	command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] ||
		fail "$tool is missing: make deps installs it"
done
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run
authd_events=$rundir/ns.authd.events.jsonl
unbound_pid='' tcpdump_pid=''

# stop_pid PID: SIGTERM a process this test started, and reap it.
stop_pid() {
	[ -n "$1" ] || return 0
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
cleanup() {
	local rc=$?
	if [ $rc != 0 ] && [ -s "$authd_events" ]; then
		echo "--- the last of $authd_events (removed with $out):" >&2
		tail -n 4 "$authd_events" | cut -c1-300 >&2
	fi
	stop_pid "$tcpdump_pid"
	stop_pid "$unbound_pid"
	lab_cleanup $lab
	rm -rf "$out"
}
trap cleanup EXIT

# The [name] sections' prefixes were written for these link addresses.
link_addr() {
	$STEERLAB check $topo --set name=$lab |
		awk -v n="$1" 'index($0, "<-> " n ":eth0 ") && !done++ { sub("/.*", "", $NF); print $NF }'
}
ns_addr=$(link_addr ns) c1_addr=$(link_addr c1) p1_addr=$(link_addr p1)
[ "$ns_addr $c1_addr $p1_addr" = "198.18.0.18 198.18.0.14 198.18.0.22" ] ||
	fail "$topo: ns, c1, p1 are at $ns_addr $c1_addr $p1_addr, not where its geo/vantage prefixes expect"
a=198.19.1.1 b=198.19.2.1 c=198.19.3.1

$STEERLAB up $topo --set name=$lab --out "$rundir" >/dev/null || fail "steerlab up $topo failed"

# dq NODE ARGS...: dig at authd from NODE's namespace, no recursion asked.
dq() {
	local node=$1
	shift
	ip netns exec $lab-$node dig @$ns_addr +norec +time=2 +tries=2 "$@" ||
		fail "dig @$ns_addr $* from $node: no answer"
}
# events FILTER: the authd events that FILTER selects, one per line (a line
# being written is skipped)
events() { jq -cR "fromjson? | $1" "$authd_events"; }
# the parts of a dig answer
status_of() { sed -n 's/.*, status: \([A-Z0-9]*\),.*/\1/p' <<<"$1"; }
flags_of() { sed -n 's/^;; flags: \([a-z ]*\);.*/\1/p' <<<"$1"; }
count_of() { sed -n "s/^;; flags:.* $2: \([0-9]*\).*/\1/p" <<<"$1"; }
ecs_of() { sed -n 's/^; CLIENT-SUBNET: //p' <<<"$1"; }
# the data of the answer section's records, space-separated
rdata_of() { awk '/^;; ANSWER SECTION:/ { a = 1; next } /^$/ { a = 0 } a { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' <<<"$1" | paste -sd' '; }
# a record of a section, as "OWNER TTL TYPE DATA"
section_of() { awk -v s="$2" '$0 ~ "^;; " s " SECTION:" { a = 1; next } /^$/ { a = 0 } a { $3 = ""; print }' <<<"$1" | tr -s ' ' | paste -sd'|'; }

# expect WHAT GOT WANT: equality, with both in the message.
expect() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	echo "ok: $1: $2"
}
has_flag() { [[ " $(flags_of "$1") " == *" $2 "* ]]; }
expect_aa() {
	has_flag "$2" aa || fail "$1: no aa flag (flags: $(flags_of "$2"))"
}

authd_answers() { [ "$(status_of "$(dq c1 lab.example SOA 2>/dev/null)")" = NOERROR ]; }
wait_until 5 authd_answers || fail "authd at $ns_addr did not answer within 5 s (see $rundir/ns.authd.log)"
echo "ok: authd answers at $ns_addr:53"

# ---- static records -------------------------------------------------------
r=$(dq c1 lab.example SOA)
expect_aa "SOA" "$r"
expect "SOA" "$(rdata_of "$r")" "ns1.lab.example. hostmaster.lab.example. 2024010101 3600 600 86400 20"
expect "NS" "$(rdata_of "$(dq c1 lab.example NS)")" "ns1.lab.example."
expect "A host" "$(rdata_of "$(dq c1 host.lab.example A)")" "198.19.9.1"
expect "AAAA v6" "$(rdata_of "$(dq c1 v6.lab.example AAAA)")" "2001:db8::53"
expect "TXT at the apex" "$(rdata_of "$(dq c1 lab.example TXT)")" '"v=lab" "second string"'
r=$(dq c1 short.lab.example A)
expect "A short, its own TTL" "$(section_of "$r" ANSWER)" "short.lab.example. 2 A 198.19.9.2"

# ---- one name per policy ---------------------------------------------------
r=$(dq c1 www.lab.example A)
expect_aa "simple" "$r"
expect "simple: sites a b in configuration order" "$(rdata_of "$r")" "$a $b"

r=$(dq c1 wWw.LaB.eXaMpLe A)
expect "simple, the query's spelling kept (0x20)" "$(section_of "$r" ANSWER)" \
	"wWw.LaB.eXaMpLe. 30 A $a|wWw.LaB.eXaMpLe. 30 A $b"

# mv x 20 in one dig: each answer is a, b and c; the order varies
mapfile -t names < <(printf 'mv.lab.example\n%.0s' {1..20})
mv=$(dq c1 +short "${names[@]}" | paste -d' ' - - -)
[ "$(wc -l <<<"$mv")" = 20 ] || fail "multivalue: expected 20 answers of 3 addresses, got: $mv"
while read -r line; do
	[ "$(tr ' ' '\n' <<<"$line" | sort | paste -sd' ')" = "$a $b $c" ] ||
		fail "multivalue: an answer is '$line', expected a, b and c in some order"
done <<<"$mv"
orders=$(sort -u <<<"$mv" | wc -l)
[ "$orders" -ge 2 ] || fail "multivalue: 20 answers all in one order: $(head -1 <<<"$mv")"
echo "ok: multivalue: 20 answers, each a b c, in $orders different orders"

r=$(dq c1 fo.lab.example A)
expect "failover: the primary, TTL 2" "$(section_of "$r" ANSWER)" "fo.lab.example. 2 A $a"

# weighted 70/30 with independent draws: over 200 answers a's share within
# 55..85 % (more than 4 standard deviations), and only a and b
mapfile -t names < <(printf 'wt.lab.example\n%.0s' {1..200})
wt=$(dq c1 +short "${names[@]}")
n_a=$(grep -cx "$a" <<<"$wt" || true) n_b=$(grep -cx "$b" <<<"$wt" || true)
[ $((n_a + n_b)) = 200 ] || fail "weighted: of 200 answers, $n_a a and $n_b b: $(sort <<<"$wt" | uniq -c | paste -sd' ')"
[ "$n_a" -ge 110 ] && [ "$n_a" -le 170 ] || fail "weighted: a got $n_a of 200, expected about 140 (70 %)"
echo "ok: weighted 70/30: a $n_a, b $n_b of 200"

# geolocation by the querier's source address: c1's link a, p1's link b,
# ns (no geo prefix) the default c
expect "geolocation from c1 ($c1_addr)" "$(dq c1 +short geo.lab.example)" "$a"
expect "geolocation from p1 ($p1_addr)" "$(dq p1 +short geo.lab.example)" "$b"
expect "geolocation from ns ($ns_addr, the default)" "$(dq ns +short geo.lab.example)" "$c"

# geolocation by ECS: the answer and the echoed option's scope
geo_ecs() {
	local r
	r=$(dq c1 +subnet=$1 geo.lab.example)
	expect "geolocation ECS $1" "$(rdata_of "$r") $(ecs_of "$r")" "$2"
}
geo_ecs 10.1.2.0/24 "$a 10.1.2.0/24/16"
geo_ecs 10.200.0.0/24 "$b 10.200.0.0/24/9"
geo_ecs 192.0.2.0/24 "$c 192.0.2.0/24/6"
geo_ecs 0.0.0.0/0 "$c 0.0.0.0/0/0"
r=$(dq c1 +subnet=10.1.2.0/24 www.lab.example)
expect "ECS on a name that does not depend on it: scope 0" "$(ecs_of "$r")" "10.1.2.0/24/0"
r=$(ip netns exec $lab-c1 kdig @$ns_addr +norec +subnet=10.200.0.0/24 geo.lab.example ||
	fail "kdig +subnet geo.lab.example: no answer")
expect "kdig geolocation ECS 10.200.0.0/24" \
	"$(awk '$1 == "geo.lab.example." { print $NF }' <<<"$r") $(sed -n 's/^;; CLIENT-SUBNET: //p' <<<"$r")" \
	"$b 10.200.0.0/24/9"

# latency. c1's network is seen from p1: the answer is the site authd maps
# that network to (its last answer_changed, from p1's live RTTs).
p1_reported() {
	local s
	for s in a b c; do
		grep -q "\"event\":\"health_sent\",\"site\":\"$s\",\"state\":\"up\"" \
			"$rundir/p1.prober.events.jsonl" 2>/dev/null || return 1
	done
}
wait_until 5 p1_reported || fail "prober p1 reported no verdict on a, b and c within 5 s"
echo "ok: prober p1 reports a, b and c up"
want='' got=''
lat_c1_matches() {
	want=$(events 'select(.event == "answer_changed" and .name == "lat.lab.example.")
		| .networks["198.18.0.12/30"][0]' | tail -1 | tr -d '"')
	got=$(dq c1 +short lat.lab.example)
	[ -n "$want" ] && [ "$got" = "$want" ]
}
wait_until 3 lat_c1_matches || fail "latency from c1: got '$got', authd's map for 198.18.0.12/30 says '$want'"
echo "ok: latency from c1: $got, the lowest RTT from p1 (authd's map for 198.18.0.12/30)"
# 10/8 is seen from p10, whose RTTs we report by hand: its prober is
# stopped (its last reports stand), and ours come from its address, the only
# one authd takes p10's reports from (docs/agents.md, "Control channels")
read -r pid < <(awk '$3 == "p10" && $4 == "prober" { print $1 }' "$rundir/agents.tsv")
[ -n "${pid:-}" ] || fail "no prober of p10 in $rundir/agents.tsv"
kill -TERM "$pid"
p10_stopped() { ! kill -0 "$pid" 2>/dev/null; }
wait_until 2 p10_stopped || fail "p10's prober (pid $pid) did not stop"
lat_10() { dq c1 +short +subnet=10.1.2.0/24 lat.lab.example; }
# what p10's own last reports (if any) give, and RTTs that make another site
# the nearest: near 2 ms, mid 5 ms, far 9 ms
cur=$(lat_10)
if [ "$cur" = "$c" ]; then near=b; else near=c; fi
reports="HEALTH p10 $near up 2000"
for s in a b c; do
	[ $s = $near ] && continue
	reports="$reports
HEALTH p10 $s up $([ $s = a ] && echo 9000 || echo 5000)"
done
declare -A site_addr=([a]=$a [b]=$b [c]=$c)
# the same reports from the client's address are dropped, and said so
rejected_before=$(events 'select(.event == "control_rejected") | .count' | awk '{n += $1} END {print n + 0}')
printf '%s\n' "$reports" | ip netns exec $lab-c1 bash -c "cat >/dev/udp/$ns_addr/5353"
c1_rejected() {
	[ "$(events 'select(.event == "control_rejected") | .count' | awk '{n += $1} END {print n + 0}')" \
		-ge $((rejected_before + 3)) ]
}
wait_until 3 c1_rejected || fail "no control_rejected for p10's reports sent from c1"
[ "$(lat_10)" = "$cur" ] || fail "latency for 10.1.2.0/24: $(lat_10), not $cur, after reports forged from c1"
echo "ok: p10's reports sent from c1 ($c1_addr) are rejected: 10/8 still gets $cur"
printf '%s\n' "$reports" | ip netns exec $lab-p10 bash -c "cat >/dev/udp/$ns_addr/5353"
lat_p10() { [ "$(lat_10)" = "${site_addr[$near]}" ]; }
wait_until 2 lat_p10 || fail "latency for 10.1.2.0/24: $(lat_10), not $near after p10's reports ($near 2 ms)"
r=$(dq c1 +subnet=10.1.2.0/24 lat.lab.example)
expect "latency ECS 10.1.2.0/24 (vantage p10)" "$(rdata_of "$r") $(ecs_of "$r")" "${site_addr[$near]} 10.1.2.0/24/8"
r=$(dq c1 +subnet=192.0.2.0/24 lat.lab.example)
expect "latency ECS 192.0.2.0/24 (no vantage: first in sites)" "$(rdata_of "$r") $(ecs_of "$r")" "$b 192.0.2.0/24/6"

# ---- negative answers, referral, errors ------------------------------------
soa_neg="lab.example. 20 SOA ns1.lab.example. hostmaster.lab.example. 2024010101 3600 600 86400 20"
r=$(dq c1 nx.lab.example A)
expect_aa "NXDOMAIN" "$r"
expect "NXDOMAIN: status, answers, authority" \
	"$(status_of "$r") $(count_of "$r" ANSWER) $(section_of "$r" AUTHORITY)" "NXDOMAIN 0 $soa_neg"
r=$(dq c1 host.lab.example AAAA)
expect_aa "NODATA" "$r"
expect "NODATA (AAAA of an A-only name)" \
	"$(status_of "$r") $(count_of "$r" ANSWER) $(section_of "$r" AUTHORITY)" "NOERROR 0 $soa_neg"
r=$(dq c1 www.lab.example AAAA)
expect "NODATA (AAAA of a steered name, sites with no AAAA)" \
	"$(status_of "$r") $(count_of "$r" ANSWER) $(section_of "$r" AUTHORITY)" "NOERROR 0 $soa_neg"
r=$(dq c1 x.sub.lab.example A)
has_flag "$r" aa && fail "referral: aa is set (flags: $(flags_of "$r"))"
expect "referral (no aa): NS in authority, glue in additional" \
	"$(status_of "$r") $(count_of "$r" ANSWER) $(section_of "$r" AUTHORITY) $(section_of "$r" ADDITIONAL)" \
	"NOERROR 0 sub.lab.example. 30 NS ns.sub.lab.example. ns.sub.lab.example. 30 A 198.18.5.53"
r=$(dq c1 www.example.com A)
has_flag "$r" aa && fail "REFUSED: aa is set"
expect "a name outside the zone" "$(status_of "$r")" REFUSED
expect "unknown opcode 3" "$(status_of "$(dq c1 +opcode=3 lab.example SOA)")" NOTIMP
expect "opcode STATUS" "$(status_of "$(dq c1 +opcode=status lab.example SOA)")" NOTIMP
expect "EDNS version 1" "$(status_of "$(dq c1 +edns=1 +noednsnegotiation www.lab.example)")" BADVERS

# raw_query HEX: send these bytes (printf escapes) to authd over UDP from c1,
# print the reply as hex bytes, nothing if none came within 2 s (0.5 s was
# too short once: a loaded gate's ip netns exec, bash and dd). The bytes
# go through a file and one dd write: printf to the socket would send a
# datagram per line, cut at every 0x0a.
raw_query() {
	printf "$1" >"$out/query.bin"
	ip netns exec $lab-c1 timeout 2 bash -c \
		'exec 3<>/dev/udp/$1/53 && dd if="$2" bs=4096 count=1 >&3 2>/dev/null &&
		dd bs=4096 count=1 <&3 2>/dev/null' _ "$ns_addr" "$out/query.bin" |
		od -An -tx1 | paste -sd' ' | tr -s ' ' || true
}
# rcode_of HEXBYTES: "id=XXXX qr=N rcode=N" of a reply
rcode_of() {
	set -- $1
	[ $# -ge 12 ] || { echo "no reply"; return; }
	echo "id=$1$2 qr=$((0x$3 >> 7)) rcode=$((0x$4 & 15))"
}
# ID, flags, QDCOUNT, then ANCOUNT NSCOUNT ARCOUNT 0, a question www.lab.example
counts='\x00\x00\x00\x00\x00\x00'
qname='\x03www\x03lab\x07example\x00'
expect "FORMERR: QDCOUNT 2" \
	"$(rcode_of "$(raw_query "\xab\x01\x00\x00\x00\x02${counts}${qname}\x00\x01\x00\x01${qname}\x00\x01\x00\x01")")" \
	"id=ab01 qr=1 rcode=1"
expect "FORMERR: trailing bytes" \
	"$(rcode_of "$(raw_query "\xab\x02\x00\x00\x00\x01${counts}${qname}\x00\x01\x00\x01\xff\xff")")" \
	"id=ab02 qr=1 rcode=1"
expect "FORMERR: QTYPE OPT" \
	"$(rcode_of "$(raw_query "\xab\x03\x00\x00\x00\x01${counts}${qname}\x00\x29\x00\x01")")" \
	"id=ab03 qr=1 rcode=1"
expect "the same bytes, well formed: NOERROR" \
	"$(rcode_of "$(raw_query "\xab\x04\x00\x00\x00\x01${counts}${qname}\x00\x01\x00\x01")")" \
	"id=ab04 qr=1 rcode=0"
# geo_ecs_query ID RDLEN OPTLEN DATA: the printf escapes of a query for
# geo.lab.example (ARCOUNT 1) whose OPT carries option 8, ECS: DATA is family,
# source, scope, address. ID is the id's low byte, the lengths are one byte.
geo_ecs_query() {
	printf '%s' "\xab$1\x00\x00\x00\x01\x00\x00\x00\x00\x00\x01\x03geo\x03lab\x07example\x00\x00\x01\x00\x01"
	printf '%s' "\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00$2\x00\x08\x00$3$4"
}
expect "ECS 10.1.0.0/16 in raw bytes: NOERROR (the harness is sound)" \
	"$(rcode_of "$(raw_query "$(geo_ecs_query '\x06' '\x0a' '\x06' '\x00\x01\x10\x00\x0a\x01')")")" \
	"id=ab06 qr=1 rcode=0"
expect "FORMERR: ECS /16 with 3 address bytes" \
	"$(rcode_of "$(raw_query "$(geo_ecs_query '\x07' '\x0b' '\x07' '\x00\x01\x10\x00\x0a\x01\x02')")")" \
	"id=ab07 qr=1 rcode=1"
expect "FORMERR: ECS /9 with bits set past the 9th" \
	"$(rcode_of "$(raw_query "$(geo_ecs_query '\x08' '\x0a' '\x06' '\x00\x01\x09\x00\x0a\xc0')")")" \
	"id=ab08 qr=1 rcode=1"
expect "FORMERR: ECS family 3" \
	"$(rcode_of "$(raw_query "$(geo_ecs_query '\x09' '\x0a' '\x06' '\x00\x03\x10\x00\x0a\x01')")")" \
	"id=ab09 qr=1 rcode=1"
expect "a response (QR set) gets no answer" \
	"$(rcode_of "$(raw_query "\xab\x05\x80\x00\x00\x01${counts}${qname}\x00\x01\x00\x01")")" "no reply"

# ---- truncation and the TCP retry -------------------------------------------
r=$(dq c1 +noedns +ignore big.lab.example TXT)
expect "big TXT over UDP, no EDNS: flags, answers" "$(flags_of "$r") $(count_of "$r" ANSWER)" "qr aa tc 0"
r=$(dq c1 +bufsize=600 +ignore big.lab.example TXT)
expect "big TXT over UDP, EDNS 600: flags, answers" "$(flags_of "$r") $(count_of "$r" ANSWER)" "qr aa tc 0"
# over TCP: 1852 bytes with the OPT record, 1841 without
for opt in +noedns +bufsize=600 +bufsize=4096; do
	size=1852
	[ $opt = +noedns ] && size=1841
	r=$(dq c1 $opt big.lab.example TXT)
	grep -q '^;; Truncated, retrying in TCP mode\.' <<<"$r" || fail "big TXT, dig $opt: no TCP retry"
	grep -q '^;; SERVER: .*(TCP)' <<<"$r" || fail "big TXT, dig $opt: the answer did not come over TCP"
	expect "big TXT, dig $opt: retried over TCP, flags, answers, size" \
		"$(flags_of "$r") $(count_of "$r" ANSWER) $(sed -n 's/^;; MSG SIZE  rcvd: //p' <<<"$r")" "qr aa 16 $size"
done
big_direct=$(dq c1 +short big.lab.example TXT | sort)
[ "$(cut -c2-3 <<<"$big_direct" | paste -sd' ')" = "$(seq -s' ' 10 25)" ] ||
	fail "big TXT: the 16 strings 10.. to 25.. did not all come back"
echo "ok: big TXT: the 16 strings of 100 characters"
r=$(dq c1 +noedns lab.example TXT)
expect "a small answer without EDNS is not truncated" "$(flags_of "$r")" "qr aa"
r=$(ip netns exec $lab-c1 kdig @$ns_addr +norec +tcp +keepopen www.lab.example nx.lab.example \
	host.lab.example || fail "kdig +tcp +keepopen: no answer")
expect "kdig +tcp +keepopen, 3 queries: statuses" \
	"$(sed -n 's/.*; status: \([A-Z]*\);.*/\1/p' <<<"$r" | paste -sd' ')" "NOERROR NXDOMAIN NOERROR"
expect "kdig over TCP: every answer from TCP" "$(grep -c '@53(TCP)' <<<"$r")" 3

# ---- unbound: a recursive resolver with a stub zone at authd -----------------
ub=$out/unbound
mkdir -p "$ub"
cat >"$ub/unbound.conf" <<EOF
server:
	interface: 127.0.0.1
	port: 53
	do-ip6: no
	do-not-query-localhost: no
	module-config: "iterator"
	access-control: 127.0.0.0/8 allow
	chroot: ""
	username: ""
	directory: "$ub"
	pidfile: "$ub/unbound.pid"
	use-syslog: no
	logfile: ""
	verbosity: 1
	num-threads: 1
stub-zone:
	name: "lab.example"
	stub-addr: $ns_addr
EOF
ip netns exec $lab-c1 /usr/sbin/unbound -d -c "$ub/unbound.conf" >"$ub/unbound.log" 2>&1 &
unbound_pid=$!
uq() {
	ip netns exec $lab-c1 dig @127.0.0.1 +time=2 +tries=2 "$@" ||
		fail "dig @127.0.0.1 $* (unbound) from c1: no answer"
}
unbound_answers() { [ "$(status_of "$(uq lab.example SOA 2>/dev/null)")" = NOERROR ]; }
wait_until 5 unbound_answers || fail "unbound did not answer within 5 s: $(tail -3 "$ub/unbound.log")"
echo "ok: unbound (pid $unbound_pid) answers in $lab-c1, stub zone lab.example at $ns_addr"

# same_answer WHAT DIG-ARGS...: unbound's answer data = authd's (sorted)
same_answer() {
	local what=$1 direct via
	shift
	direct=$(dq c1 +short "$@" | sort | paste -sd' ')
	via=$(uq +short "$@" | sort | paste -sd' ')
	[ -n "$direct" ] && [ "$via" = "$direct" ] ||
		fail "unbound, $what: '$via', authd directly: '$direct'"
	[ ${#via} -le 60 ] || via="${via:0:56} ..."
	echo "ok: unbound = authd, $what: $via"
}
same_answer "A host" host.lab.example A
same_answer "AAAA v6" v6.lab.example AAAA
same_answer "TXT at the apex" lab.example TXT
same_answer "big TXT (authd truncates, unbound retries over TCP)" big.lab.example TXT
same_answer "simple" www.lab.example A
same_answer "multivalue (as a set)" mv.lab.example A
same_answer "failover" fo.lab.example A
same_answer "geolocation (unbound asks from c1, no ECS)" geo.lab.example A
lat_before=$(dq c1 +short lat.lab.example)
lat_via=$(uq +short lat.lab.example)
lat_after=$(dq c1 +short lat.lab.example)
[ "$lat_via" = "$lat_before" ] || [ "$lat_via" = "$lat_after" ] ||
	fail "unbound, latency: '$lat_via', authd directly before and after: '$lat_before', '$lat_after'"
echo "ok: unbound = authd, latency: $lat_via"
wt_via=$(uq +short wt.lab.example A)
[ "$wt_via" = "$a" ] || [ "$wt_via" = "$b" ] || fail "unbound, weighted: '$wt_via', expected a or b"
echo "ok: unbound, weighted: one of a and b ($wt_via)"
r=$(uq nx.lab.example A)
expect "unbound, NXDOMAIN with the SOA" "$(status_of "$r") $(count_of "$r" AUTHORITY)" "NXDOMAIN 1"
r=$(uq host.lab.example AAAA)
expect "unbound, NODATA with the SOA" "$(status_of "$r") $(count_of "$r" ANSWER) $(count_of "$r" AUTHORITY)" \
	"NOERROR 0 1"

# unbound asks authd again only once the TTL (2 s) has run out: authd's link
# captured while unbound is asked at t = 0, 0.5 s and 3 s; 2 queries reach
# authd, the first and the last
pcap=$out/ns-queries.pcap
ip netns exec $lab-ns tcpdump -i eth0 -n -U --immediate-mode -s 512 -B 8192 -Z root -w "$pcap" \
	"udp dst port 53" >"$out/tcpdump.log" 2>&1 &
tcpdump_pid=$!
tcpdump_listening() { grep -q "listening on eth0" "$out/tcpdump.log"; }
wait_until 5 tcpdump_listening || fail "tcpdump in $lab-ns did not start: $(cat "$out/tcpdump.log")"
ttl_via() { uq short.lab.example A | awk '$1 == "short.lab.example." { print $2, $NF }'; }
# unbound counts TTLs in whole seconds of the wall clock: ask in the second
# half of a second, so that 0.5 s later the next second has begun
second_half() {
	local ms=$((10#$(date +%3N)))
	[ $ms -ge 500 ] && [ $ms -lt 700 ]
}
wait_until 2 second_half || fail "the clock did not reach the second half of a second"
ms0=$(date +%s%3N)
t0=$(ttl_via)
ms0e=$(date +%s%3N)
sleep 0.5
ms1=$(date +%s%3N)
t1=$(ttl_via)
ms1e=$(date +%s%3N)
sleep 2.5
ms2=$(date +%s%3N)
t2=$(ttl_via)
expect "unbound at t=0: TTL, address" "$t0" "2 198.19.9.2"
# the TTL left is 2 minus the whole seconds the clock turned between the two
# answers: 1, unless a loaded machine delayed a query past another second
# (the first answered in the next second is stored there: still 2, a gate
# saw it); that it came from the cache, the two queries authd saw say below
ttl_lo=$((2 - (ms1e / 1000 - ms0 / 1000))) ttl_hi=$((2 - (ms1 / 1000 - ms0e / 1000)))
[ "${t1#* }" = 198.19.9.2 ] && [ "${t1% *}" -ge $ttl_lo ] && [ "${t1% *}" -le $ttl_hi ] ||
	fail "unbound at t=$((ms1 - ms0)) ms: got '$t1', expected TTL $ttl_lo..$ttl_hi, from its cache"
echo "ok: unbound at t=$((ms1 - ms0)) ms: TTL $ttl_lo..$ttl_hi: $t1"
expect "unbound at t=$((ms2 - ms0)) ms: the TTL full again" "$t2" "2 198.19.9.2"
seen_two() { [ "$(tcpdump -r "$pcap" -n 2>/dev/null | grep -ci 'A? short\.lab\.example\.')" -ge 2 ]; }
wait_until 2 seen_two || true
sleep 0.2 # a late third query would show here
stop_pid "$tcpdump_pid"
tcpdump_pid=
queries=$(tcpdump -r "$pcap" -n -tt 2>/dev/null | grep -i 'A? short\.lab\.example\.' || true)
expect "queries for short.lab.example reaching authd" "$(grep -c . <<<"$queries" || true)" 2
gap=$(awk 'NR == 1 { t = $1 } NR == 2 { printf "%.2f", $1 - t }' <<<"$queries")
assert_le 2 "$gap" "unbound asked again only after the TTL: $gap s between its 2 queries"
stop_pid "$unbound_pid"
kill -0 "$unbound_pid" 2>/dev/null && fail "unbound (pid $unbound_pid) did not stop"
unbound_pid=

# ---- health: kill site a's sited ------------------------------------------------
read -r pid start < <(awk '$3 == "a" && $4 == "sited" { print $1, $2 }' "$rundir/agents.tsv")
[ -n "${pid:-}" ] || fail "no sited of site a in $rundir/agents.tsv"
now=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $20}')
[ "$now" = "$start" ] || fail "pid $pid is no longer site a's sited (start time $now, not $start)"
kill_ms=$(date +%s%3N)
kill -TERM "$pid"
echo "ok: killed site a's sited (pid $pid)"
fo_moved() { [ "$(dq c1 +short fo.lab.example)" = "$b" ]; }
wait_until 5 fo_moved || fail "failover: still '$(dq c1 +short fo.lab.example)' 5 s after site a died, expected $b"
echo "ok: failover answers the secondary b ($b) $(($(date +%s%3N) - kill_ms)) ms after the kill"
ev=$(events 'select(.event == "answer_changed" and .name == "fo.lab.example." and .reason == "site a unhealthy")' | tail -1)
[ -n "$ev" ] || fail "no answer_changed for fo.lab.example with reason 'site a unhealthy' in $authd_events"
expect "answer_changed fo.lab.example: before -> after" "$(jq -r '"\(.before | join(",")) -> \(.after | join(","))"' <<<"$ev")" "$a -> $b"
ev_ms=$(jq -r '.t / 1000000 | floor' <<<"$ev")
echo "ok: steer: answer_changed $((ev_ms - kill_ms)) ms after the kill (authd's clock is CLOCK_REALTIME)"
[ -n "$(events 'select(.event == "health_changed" and .site == "a" and .healthy == false)')" ] ||
	fail "no health_changed for site a (healthy false) in $authd_events"
echo "ok: health_changed: site a unhealthy"
expect "simple without a" "$(dq c1 +short www.lab.example | paste -sd' ')" "$b"
expect "multivalue without a" "$(dq c1 +short mv.lab.example | sort | paste -sd' ')" "$b $c"
expect "geolocation from c1 with a dead: the default" "$(dq c1 +short geo.lab.example)" "$c"

# ---- down: authd's summary, nothing left ------------------------------------------
$STEERLAB down $lab >/dev/null
summary=$(events 'select(.event == "authd_summary")')
[ -n "$summary" ] || fail "no authd_summary in $authd_events after down"
echo "authd_summary: $summary"
for k in FORMERR NOTIMP REFUSED NXDOMAIN BADVERS; do
	assert_gt "$(jq -r ".rcodes.$k // 0" <<<"$summary")" 0 "authd_summary counts $k"
done
assert_ge "$(jq -r .truncated <<<"$summary")" 5 "authd_summary: truncated"
echo "ok: authd_summary counts FORMERR, NOTIMP, REFUSED, NXDOMAIN, BADVERS and truncated answers"
# every TCP client here asks one query per connection, but kdig +keepopen,
# which asked its 3 over one
expect "authd_summary: TCP queries - TCP connections (kdig's one connection)" \
	"$(jq -r '.tcp_queries - .tcp_connections' <<<"$summary")" 2
assert_no_leftovers $lab "$rundir"
echo "ok: done in $(($(date +%s%3N) - t_start)) ms"
