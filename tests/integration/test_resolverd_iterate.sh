#!/usr/bin/env bash
# resolverd in mode = iterate (issue 14), on a DNS tree of its own made with
# `ip netns` directly: namespace ia-tree holds one authd per zone (`.`,
# `example.`, `lab.example.`, `cdn.example.`, `two.example.` whose second
# server is dead), namespace ia-rsv three resolverd processes (plain, with
# qname_minimisation, with ecs) and the dig clients; one veth between them,
# captured with tcpdump on the tree's side. Asserted on the capture:
#   - dig through resolverd gets the answer;
#   - 30 names under lab.example ask the root and the TLD once each; once the
#     root's referral (TTL 3) has expired, the next new zone asks it again;
#   - a CNAME across zones, www.lab.example -> edge.cdn.example, is answered
#     with both links, each with its own TTL, and nothing is asked again
#     while both are fresh;
#   - an NXDOMAIN is cached for the SOA minimum: nothing asked again within
#     it, one query after it;
#   - a timeout on one of two.example's servers is retried on the other;
#   - qname minimisation: the root sees only `example.` asked;
#   - ECS: the zone's authd sees the client's /24, and two clients of
#     different /24 get their own (geolocation) answers, each cached.
# Leaves nothing behind, also on failure (trap).
# about 38 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

ns_tree=ia-tree ns_rsv=ia-rsv
for tool in dig tcpdump tshark; do
	command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] ||
		fail "$tool is missing: make deps installs it"
done
for n in $ns_tree $ns_rsv; do
	[ -e /run/netns/$n ] && fail "namespace $n already exists: ip netns del $n"
done
[ -x bin/authd ] && [ -x bin/resolverd ] || fail "bin/authd, bin/resolverd: run make first"

out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
[ -z "${IA_KEEP:-}" ] || echo "keeping $out"
pids=() tcpdump_pid=''
cleanup() {
	local rc=$? pid
	if [ $rc != 0 ]; then
		for f in "$out"/*.log; do
			[ -s "$f" ] || continue
			echo "--- the last of $f:" >&2
			tail -n 5 "$f" >&2
		done
	fi
	for pid in $tcpdump_pid "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	ip netns del $ns_tree 2>/dev/null || true
	ip netns del $ns_rsv 2>/dev/null || true
	[ -n "${IA_KEEP:-}" ] || rm -rf "$out"
}
trap cleanup EXIT

# ---- the network -------------------------------------------------------------
root=198.18.201.1 tld=198.18.201.2 lab=198.18.201.3 cdn=198.18.201.5
two1=198.18.201.6 two2=198.18.201.16 # two2 is assigned nowhere: dead
gl=198.18.201.7 # glueless.example's server, named ns.lab.example: no glue
r_plain=198.18.202.1 r_qmin=198.18.202.2 r_ecs=198.18.202.3
client_a=198.18.210.1 client_c=198.18.211.1
ip netns add $ns_tree
ip netns add $ns_rsv
ip -n $ns_rsv link add ia-v0 type veth peer name ia-v1 netns $ns_tree
ip -n $ns_rsv addr add 198.18.200.1/24 dev ia-v0
ip -n $ns_tree addr add 198.18.200.2/24 dev ia-v1
for n in $ns_tree $ns_rsv; do ip -n $n link set lo up; done
ip -n $ns_rsv link set ia-v0 up
ip -n $ns_tree link set ia-v1 up
for a in $root $tld $lab $cdn $two1 $gl; do ip -n $ns_tree addr add $a/32 dev lo; done
for a in $r_plain $r_qmin $r_ecs $client_a $client_c; do ip -n $ns_rsv addr add $a/32 dev lo; done
ip -n $ns_rsv route add 198.18.201.0/24 via 198.18.200.2
ip -n $ns_tree route add 198.18.202.0/23 via 198.18.200.1
ip -n $ns_tree route add 198.18.210.0/23 via 198.18.200.1

# ---- the tree ----------------------------------------------------------------
zone() { # NAME ADDR: writes $out/NAME.ini from standard input
	{
		printf '[server]\nlisten = %s:53\ncontrol = none\n' "$2"
		cat
	} >"$out/$1.ini"
}
zone root $root <<EOF
[zone .]
soa = a.root-servers.lab. hostmaster.lab. 1 1h 10m 1d 60
ttl = 60
record = @ NS a.root-servers.lab.
record = a.root-servers.lab. A $root
record = example. 3 NS ns1.example.
record = ns1.example. 3 A $tld
EOF
zone tld $tld <<EOF
[zone example]
soa = ns1 hostmaster 1 1h 10m 1d 60
ttl = 3600
record = @ NS ns1
record = ns1 A $tld
record = lab NS ns1.lab
record = ns1.lab A $lab
record = cdn NS ns1.cdn
record = ns1.cdn A $cdn
record = two NS ns1.two
record = two NS ns2.two
record = ns1.two A $two1
record = ns2.two A $two2
record = glueless NS ns.lab.example.
record = loop NS ns.loop2
record = loop2 NS ns.loop
EOF
zone lab $lab <<EOF
[zone lab.example]
soa = ns1 hostmaster 1 1h 10m 1d 5
ttl = 30
record = @ NS ns1
record = ns1 A $lab
record = www CNAME edge.cdn.example.
record = host A 198.19.9.1
record = ns A $gl
$(for i in $(seq 1 16); do printf 'record = big TXT "%0100d"\n' $i; done)
EOF
zone cdn $cdn <<EOF
[zone cdn.example]
soa = ns1 hostmaster 1 1h 10m 1d 5
ttl = 10
record = @ NS ns1
record = ns1 A $cdn
record = edge A 198.19.1.1
record = short 2 A 198.19.1.2
[site a]
address = 198.19.1.1
[site c]
address = 198.19.3.1
[name geo.cdn.example]
policy = geolocation
geo = 198.18.210.0/24 a
default = c
ttl = 60
EOF
zone glueless $gl <<EOF
[zone glueless.example]
soa = ns.lab.example. hostmaster 1 1h 10m 1d 5
ttl = 30
record = @ NS ns.lab.example.
record = www A 198.19.4.1
EOF
zone two $two1 <<EOF
[zone two.example]
soa = ns1 hostmaster 1 1h 10m 1d 5
ttl = 30
record = @ NS ns1
record = @ NS ns2
record = ns1 A $two1
record = ns2 A $two2
record = www A 198.19.2.1
EOF
declare -A authd_pid
for z in root tld lab cdn two glueless; do
	ip netns exec $ns_tree bin/authd -c "$out/$z.ini" -n $z -e "$out/$z.events.jsonl" \
		2>"$out/$z.authd.log" &
	pids+=($!)
	authd_pid[$z]=$!
done

# ---- the resolvers -----------------------------------------------------------
resolver() { # NAME ADDR EXTRA-KEYS
	printf '[resolverd]\nmode = iterate\nroot = %s\ntimeout = 200ms\nretries = 2\ntcp = no\n%s\n[resolver %s]\naddress = %s\n' \
		$root "$3" "$1" "$2" >"$out/$1.ini"
	bin/resolverd -t -c "$out/$1.ini" >/dev/null || fail "resolverd -t $1.ini"
	ip netns exec $ns_rsv bin/resolverd -c "$out/$1.ini" -n "$1" -e "$out/$1.events.jsonl" \
		-o "$out/$1.csv" 2>"$out/$1.resolverd.log" &
	pids+=($!)
}
resolver plain $r_plain ""
resolver qmin $r_qmin "qname_minimisation = yes"
resolver ecs $r_ecs "ecs = yes"
# the cache's knobs, one resolver each, in one process
r_clamp=198.18.202.4 r_phase=198.18.202.5 r_pre=198.18.202.6 r_stale=198.18.202.7
cat >"$out/knobs.ini" <<EOF
[resolverd]
mode = iterate
root = $root
timeout = 200ms
retries = 1
tcp = no
[resolver clamp]
address = $r_clamp
min_ttl = 20
[resolver phase]
address = $r_phase
phase = 50%
[resolver pre]
address = $r_pre
prefetch = 50%
[resolver stale]
address = $r_stale
serve_stale = yes
stale_ttl = 7
EOF
for a in $r_clamp $r_phase $r_pre $r_stale; do ip -n $ns_rsv addr add $a/32 dev lo; done
ip netns exec $ns_rsv bin/resolverd -c "$out/knobs.ini" -n knobs -e "$out/knobs.events.jsonl" \
	-o "$out/knobs.csv" 2>"$out/knobs.resolverd.log" &
pids+=($!)

# a ring of small frames: with -s 0 and --immediate-mode libpcap cuts its
# 2 MiB into a few dozen 64 KiB frames (the veth's offloads), which a burst
# of 30 queries and their answers overran while tcpdump waited for a CPU
# beside three other tests (26 of 31 captured); DNS fits in 512 bytes
ip netns exec $ns_tree tcpdump -i ia-v1 -n -U --immediate-mode -s 512 -B 8192 -w "$out/tree.pcap" port 53 \
	2>"$out/tcpdump.log" &
tcpdump_pid=$!

# dq RESOLVER ARGS...: dig through a resolver from ia-rsv
dq() {
	local r=$1
	shift
	ip netns exec $ns_rsv dig @$r +time=3 +tries=1 "$@" || fail "dig @$r $*: no answer"
}
status_of() { sed -n 's/.*, status: \([A-Z0-9]*\),.*/\1/p' <<<"$1"; }
# dig's own time from its query to the answer: what the resolver took, not
# the start of ip netns exec and dig on a loaded machine
query_ms() { sed -n 's/^;; Query time: \([0-9]*\) msec$/\1/p' <<<"$1"; }
# the answer section as "OWNER TTL TYPE DATA|..."
answer_of() { awk '/^;; ANSWER SECTION:/ { a = 1; next } /^$/ { a = 0 } a { $3 = ""; print }' <<<"$1" | tr -s ' ' | paste -sd'|'; }
expect() {
	if [ "$2" != "$3" ]; then
		# where the capture's queries went, by source and destination
		# (a gate once counted 17 of lab.example's 31, once)
		echo "the capture's queries as of the last flush, by source and destination:" >&2
		cut -f1,2 "$out/queries.tsv" 2>/dev/null | sort | uniq -c >&2 || true
		# a capture behind (the same read a second later) or a packet
		# the kernel dropped (tcpdump's counts, on SIGUSR1), or a
		# resolver that did not ask
		kill -USR1 "$tcpdump_pid" 2>/dev/null || true
		sleep 1
		echo "the same a second later:" >&2
		capture_queries "dst port 53" | cut -f1,2 | sort | uniq -c >&2 || true
		echo "tcpdump: $(tail -n 3 "$out/tcpdump.log" | tr '\n' ' ')" >&2
		fail "$1: got '$2', expected '$3'"
	fi
	echo "ok: $1: $2"
}
# queries SRC DST [QNAME]: the queries on the capture from SRC to DST (for
# QNAME), counted, as of the last flush
queries() {
	awk -F'\t' -v s="$1" -v d="$2" -v q="${3:-}" '$1 == s && $2 == d && (q == "" || $3 == q)' \
		"$out/queries.tsv" | wc -l
}
# flush: every packet before now is in the capture file. tcpdump writes
# each packet as it comes (-U), but on a loaded machine it may not have run
# yet: a marker query from an address of its own (flush_from, counted by no
# check) to the root goes out now, once, and when the file holds as many
# answers to flush_from as there were flushes, it holds everything the
# resolvers sent before (tcpdump -r: tshark takes seconds on a busy machine)
flush_from=198.18.202.99 flushes=0
ip -n $ns_rsv addr add $flush_from/32 dev lo
flushed() {
	[ "$(tcpdump -n -r "$out/tree.pcap" "udp and dst host $flush_from" 2>/dev/null | wc -l)" -ge $flushes ]
}
flush() {
	flushes=$((flushes + 1))
	ip netns exec $ns_rsv dig -b $flush_from @$root +norec +time=2 +tries=1 flush$flushes.marker >/dev/null ||
		fail "flush: no answer from the root to flush$flushes.marker"
	wait_until 10 flushed || fail "flush: the root's answer $flushes to $flush_from is not in the capture after 10 s"
	# every query on the capture so far, read once for the checks that
	# follow (tcpdump: tshark took seconds of CPU for each of the 12 reads)
	capture_queries "dst port 53" >"$out/queries.tsv"
}
# capture_queries FILTER: the DNS queries of the capture that FILTER (a pcap
# filter) keeps, over UDP and TCP, one per line: source, destination,
# name without its final dot (tab-separated), read with tcpdump: its line
# has the addresses as $3 and $5 (ADDR.PORT) and the name after the type's
# "A?" (after the flags and any "[1au]")
capture_queries() {
	tcpdump -n -r "$out/tree.pcap" "$1" 2>/dev/null | awk '{
		src = $3; sub(/\.[0-9]+$/, "", src); dst = $5; sub(/:$/, "", dst); sub(/\.[0-9]+$/, "", dst)
		for (i = 6; i < NF; i++)
			if ($i ~ /^[A-Z0-9]+\?$/) { q = $(i + 1); sub(/\.$/, "", q); print src "\t" dst "\t" q; break }
	}'
}

tree_answers() { [ "$(status_of "$(ip netns exec $ns_tree dig @$lab +norec +time=1 host.lab.example 2>/dev/null)")" = NOERROR ]; }
wait_until 5 tree_answers || fail "the authds did not answer within 5 s"
capturing() { [ -s "$out/tree.pcap" ] || grep listening "$out/tcpdump.log" >/dev/null; }
wait_until 5 capturing || fail "tcpdump did not start"
echo "ok: six authds, four resolverds, capture running"

# ---- the walk ----------------------------------------------------------------
r=$(dq $r_plain host.lab.example A)
expect "host.lab.example through the walk" "$(status_of "$r") $(answer_of "$r")" \
	"NOERROR host.lab.example. 30 A 198.19.9.1"
flush
expect "the walk asked the root once" "$(queries $r_plain $root)" 1
expect "the walk asked the TLD once" "$(queries $r_plain $tld)" 1
expect "the walk asked lab.example once" "$(queries $r_plain $lab host.lab.example)" 1

# 30 new names under lab.example: the cut is known, nothing above it asked
mapfile -t names < <(for i in $(seq 1 30); do echo "n$i.lab.example"; done)
r=$(dq $r_plain +noall +comments "${names[@]}")
expect "30 new names: NXDOMAIN each" "$(grep -c 'status: NXDOMAIN' <<<"$r")" 30
flush
expect "30 new names: the root still asked once" "$(queries $r_plain $root)" 1
expect "30 new names: the TLD still asked once" "$(queries $r_plain $tld)" 1
expect "30 new names: lab.example asked for each" "$(queries $r_plain $lab)" 31

# ---- NXDOMAIN cached for the SOA minimum (5 s) -----------------------------------
t0=$(date +%s%3N)
r=$(dq $r_plain nx.lab.example A)
# the answer is cached by the time dig has it: its 5 s run out at most 5 s
# from here (t0 is before ip netns exec and dig started, and the walk from
# the root: on a loaded machine hundreds of ms before the cache had it)
t_cached=$(date +%s%3N)
expect "nx.lab.example" "$(status_of "$r")" NXDOMAIN
r=$(dq $r_plain nx.lab.example A)
t1=$(date +%s%3N)
expect "nx.lab.example again" "$(status_of "$r")" NXDOMAIN
[ $((t1 - t0)) -lt 4500 ] || fail "the two NXDOMAIN queries took $((t1 - t0)) ms: too slow to check"
flush
expect "NXDOMAIN within its TTL: asked once" "$(queries $r_plain $lab nx.lab.example)" 1
sleep $(awk -v d=$((t_cached + 5200 - $(date +%s%3N))) 'BEGIN { print (d > 0 ? d / 1000 : 0) }')
r=$(dq $r_plain nx.lab.example A)
expect "nx.lab.example after 5 s" "$(status_of "$r")" NXDOMAIN
flush
expect "NXDOMAIN after its TTL: asked again" "$(queries $r_plain $lab nx.lab.example)" 2

# ---- the root again once its referral (TTL 3 s) has expired ----------------------
# ---- a CNAME across zones ----------------------------------------------------------
t0=$(date +%s%3N)
r=$(dq $r_plain www.lab.example A)
expect "www.lab.example: the chain, each link with its TTL" "$(answer_of "$r")" \
	"www.lab.example. 30 CNAME edge.cdn.example.|edge.cdn.example. 10 A 198.19.1.1"
# asked again at once (the captures are read after: on a busy machine a
# tshark takes seconds), each TTL counted down by the time that passed
sleep 1.1
r=$(dq $r_plain www.lab.example A)
t1=$(date +%s%3N)
[ $((t1 - t0)) -lt 8000 ] || fail "the two queries of www.lab.example took $((t1 - t0)) ms: too slow to check"
ttls=$(answer_of "$r" | awk -F'|' '{ split($1, a, " "); split($2, b, " "); print a[2], b[2] }')
read -r t_cname t_a <<<"$ttls"
assert_le "$t_cname" 29 "the CNAME's TTL counts down from 30"
assert_le "$t_a" 9 "the A's TTL counts down from 10"
assert_ge "$t_a" $((10 - (t1 - t0) / 1000 - 1)) "the A is still cached, its TTL down by the time passed"
assert_ge $((t_cname - t_a)) 19 "each link its own TTL: the CNAME's 20 s longer"
assert_le $((t_cname - t_a)) 21 "each link its own TTL: the CNAME's 20 s longer"
flush
expect "cdn.example is a new zone: the root asked again, its referral expired" \
	"$(queries $r_plain $root)" 2
expect "cdn.example: the TLD asked again" "$(queries $r_plain $tld)" 2
expect "the chain: lab.example asked www once, the second time from the cache" \
	"$(queries $r_plain $lab www.lab.example)" 1
expect "the chain: cdn.example asked edge once, the second time from the cache" \
	"$(queries $r_plain $cdn edge.cdn.example)" 1

# ---- a timeout on one of two servers -------------------------------------------------
mapfile -t names < <(for i in $(seq 1 10); do echo "t$i.two.example"; done)
r=$(dq $r_plain +noall +comments "${names[@]}")
expect "two.example: 10 names answered" "$(grep -c 'status: NXDOMAIN' <<<"$r")" 10
flush
dead=$(queries $r_plain $two2)
assert_ge "$dead" 1 "queries sent to two.example's dead server"
for i in $(seq 1 10); do
	[ "$(queries $r_plain $two2 t$i.two.example)" = 0 ] && continue
	expect "t$i.two.example timed out on $two2, then asked of $two1" \
		"$(queries $r_plain $two1 t$i.two.example)" 1
done

# ---- a truncated answer asked again over TCP, of the same server --------------------
# (its 16 TXT records of 100 bytes do not fit the client's 1232 bytes either: TC)
r=$(dq $r_plain +ignore big.lab.example TXT)
expect "big.lab.example through resolverd" "$(status_of "$r") $(sed -n 's/^;; flags: \([a-z ]*\);.*/\1/p' <<<"$r")" \
	"NOERROR qr tc rd ra"
flush
tcp_queries=$(capture_queries "tcp dst port 53 and src host $r_plain and dst host $lab" | cut -f3)
expect "the TC answer asked again over TCP of lab.example's server" "$tcp_queries" big.lab.example

# ---- a referral without glue: its server's name resolved first --------------------
r=$(dq $r_plain www.glueless.example A)
expect "glueless.example, served by ns.lab.example" "$(answer_of "$r")" \
	"www.glueless.example. 30 A 198.19.4.1"
flush
expect "ns.lab.example resolved at lab.example" "$(queries $r_plain $lab ns.lab.example)" 1
expect "then www.glueless.example asked of it" "$(queries $r_plain $gl www.glueless.example)" 1

# ---- a tree that loops: the work bound ends the walk ---------------------------------
r=$(dq $r_plain www.loop.example A)
expect "loop.example and loop2.example each served by a name in the other: SERVFAIL" \
	"$(status_of "$r")" SERVFAIL
assert_le "$(query_ms "$r")" 1000 "the looping walk ended (ms, dig's query time; dig waits 3000)"
flush
loop_queries=$(awk -F'\t' -v s=$r_plain '$1 == s && $3 ~ /loop/' "$out/queries.tsv" | wc -l)
assert_le "$loop_queries" 32 "queries of the looping walk (at most 32 per walk)"
assert_ge "$loop_queries" 2 "queries of the looping walk"
# again, the loop's cuts cached: the walk may not even start, and still answers
r=$(dq $r_plain www.loop.example A)
expect "the looping tree again: SERVFAIL" "$(status_of "$r")" SERVFAIL
assert_le "$(query_ms "$r")" 1000 "the second looping walk ended (ms, dig's query time)"

# ---- qname minimisation (RFC 9156) ---------------------------------------------------
# asked_names SRC DST: the names SRC asked of DST, sorted, space-separated
asked_names() {
	awk -F'\t' -v s="$1" -v d="$2" '$1 == s && $2 == d { print $3 }' "$out/queries.tsv" | sort -u | paste -sd' '
}
r=$(dq $r_qmin host.lab.example A)
expect "minimising: host.lab.example" "$(status_of "$r") $(answer_of "$r")" \
	"NOERROR host.lab.example. 30 A 198.19.9.1"
flush
expect "minimising: the root is asked example. only" "$(asked_names $r_qmin $root)" example
expect "minimising: the TLD is asked lab.example. only" "$(asked_names $r_qmin $tld)" lab.example
expect "minimising: lab.example is asked the full name" "$(asked_names $r_qmin $lab)" host.lab.example
expect "not minimising: the root was asked the full name" \
	"$(asked_names $r_plain $root | tr ' ' '\n' | grep -c '^host.lab.example$')" 1

# ---- ECS (RFC 7871): the client's /24 passed on, answers cached per scope -------------
geo() { ip netns exec $ns_rsv dig @$r_ecs -b "$1" +short +time=3 +tries=1 geo.cdn.example A; }
expect "ECS: a client in 198.18.210.0/24 gets site a" "$(geo $client_a)" 198.19.1.1
expect "ECS: a client in 198.18.211.0/24 gets the default, c" "$(geo $client_c)" 198.19.3.1
expect "ECS: again, from the cache: a" "$(geo $client_a)" 198.19.1.1
expect "ECS: again, from the cache: c" "$(geo $client_c)" 198.19.3.1
flush
expect "ECS: cdn.example was asked geo once per /24" "$(queries $r_ecs $cdn geo.cdn.example)" 2
expect "ECS: the subnets cdn.example saw" "$(tshark -r "$out/tree.pcap" \
	-Y "dns.flags.response == 0 && ip.src == $r_ecs && ip.dst == $cdn" \
	-T fields -e dns.opt.client.addr4 -e dns.opt.client.netmask 2>/dev/null | sort | paste -sd' ')" \
	"198.18.210.0	24 198.18.211.0	24"
# a client's own ECS wins over its address, and is echoed with the answer's scope
r=$(ip netns exec $ns_rsv dig @$r_ecs -b $client_c +subnet=198.18.210.0/24 +time=3 +tries=1 geo.cdn.example A)
expect "ECS: the client's own subnet, from the cache, echoed with scope 24" \
	"$(answer_of "$r" | awk '{ print $4 }') $(sed -n 's/^; CLIENT-SUBNET: //p' <<<"$r")" \
	"198.19.1.1 198.18.210.0/24/24"
flush
expect "ECS: still asked geo once per /24" "$(queries $r_ecs $cdn geo.cdn.example)" 2
r=$(dq $r_plain +subnet=198.18.210.0/24 geo.cdn.example A)
expect "no ECS passed on without ecs = yes: the default" "$(answer_of "$r" | awk '{ print $4 }')" 198.19.3.1

# ---- the cache's knobs when iterating ------------------------------------------------
r=$(dq $r_clamp edge.cdn.example A)
expect "min_ttl = 20 raises the A's 10" "$(answer_of "$r")" "edge.cdn.example. 20 A 198.19.1.1"
r=$(dq $r_phase host.lab.example A)
expect "phase = 50%: the first fill of a 30 s answer is given 15 s" "$(answer_of "$r")" \
	"host.lab.example. 15 A 198.19.9.1"
# prefetch = 50%: a hit with less than 1 s of short's 2 s left refreshes it.
# The hit must come 1 to 2 s after the fill: when dig's own start on a busy
# machine took it past 2 s (a loaded gate's took 2.3 s twice in a row), the
# entry has run out and the hit is a new fill, its TTL 2: then once more,
# after it has run out, up to five times
for try in 1 2 3 4 5; do
	dq $r_pre short.cdn.example A >/dev/null
	t1=$(date +%s.%N)
	sleep 1.3
	r=$(dq $r_pre short.cdn.example A)
	took=$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
	[ "$(answer_of "$r")" = "short.cdn.example. 0 A 198.19.1.2" ] && break
	echo "note: the hit came $took s after the fill's answer ($(answer_of "$r")): once more"
	sleep 2.1
done
expect "prefetch: the hit is answered from the cache ($took s after the fill)" "$(answer_of "$r")" \
	"short.cdn.example. 0 A 198.19.1.2"
prefetched() { grep -q ",short.cdn.example.,A,prefetch,1,answer,NOERROR,[0-9]*,cdn.example.,short.cdn.example.,A$" "$out/knobs.csv"; }
wait_until 3 prefetched || fail "no prefetch of short.cdn.example through the walk in knobs.csv"
echo "ok: prefetch: short.cdn.example refreshed through the walk, from cdn.example's server"
# serve-stale: cdn.example's server stopped, the expired answer is served
dq $r_stale short.cdn.example A >/dev/null
kill -TERM "${authd_pid[cdn]}"
wait "${authd_pid[cdn]}" 2>/dev/null || true
sleep 2.1
r=$(dq $r_stale short.cdn.example A)
expect "serve-stale: the walk fails, the expired answer is served with stale_ttl" \
	"$(status_of "$r") $(answer_of "$r")" "NOERROR short.cdn.example. 7 A 198.19.1.2"
r=$(dq $r_plain nothere.cdn.example A)
expect "no stale answer to serve: SERVFAIL" "$(status_of "$r")" SERVFAIL
