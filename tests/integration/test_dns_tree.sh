#!/usr/bin/env bash
# The lab's own DNS tree (issue 14; docs/topology.md, "The lab's DNS tree"):
# a lab with [lab] dns_tree = yes and one service zone, lab.example, served
# by ns, which delegates edge.lab.example to node edge. `check` prints the
# nodes and records the lab adds; once up, each authd is asked directly that
# the delegations are right: the root (node root) refers www.lab.example to
# the TLD with glue, the TLD (node tld) to ns, ns answers and refers
# edge.lab.example to edge; a forwarding cache (r) answers through ns; a
# real iterative resolver (unbound) started in the client's namespace with
# the lab's root as its only hint walks the tree, and so does resolverd's
# own walk (a [resolver] in mode iterate, the default in a lab with a root);
# and the collector-dns captures of the root's, the TLD's and ns's links
# hold the walks' queries.
# about 14 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=${IT_PREFIX:-tr}-tree
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run
unbound_pid=
cleanup() {
	[ -n "$unbound_pid" ] && kill "$unbound_pid" 2>/dev/null
	lab_cleanup $lab
}
trap cleanup EXIT

command -v unbound >/dev/null || fail "unbound is not installed (make deps installs it)"

cat >"$out/tree.ini" <<EOF
[lab]
name = $lab
dns_tree = yes

[router core]

[site a]
link = core

[site b]
link = core

[dns ns]
link = core

[dns edge]
link = core
zones = edge.lab.example

[prober p1]
link = core

[resolver r]
link = core
mode = forward

[client c1]
link = core
mode = dns
resolver = r

[zone lab.example]
soa = ns-ns hostmaster 1 3600 600 86400 5

[zone edge.lab.example]
soa = ns-edge hostmaster 1 3600 600 86400 5
record = x A 198.19.9.9

[name www.lab.example]
policy = failover
primary = a
secondary = b
ttl = 2
EOF
printf '\n[resolver i]\nlink = core\n' >>"$out/tree.ini"

$STEERLAB check "$out/tree.ini" >"$out/check.txt" 2>&1 || { cat "$out/check.txt"; fail "check refused the tree lab"; }
# addr NODE: the node's link address, from check's print ("# link 9: core:root ... <-> root:eth0 A/30")
addr() { sed -n "s|^# link [0-9]*: core:$1 .* <-> $1:eth0 \([0-9.]*\)/30\$|\1|p" "$out/check.txt" | sed -n 1p; }
root=$(addr root) tld=$(addr tld) ns=$(addr ns) edge=$(addr edge)
for v in root tld ns edge; do
	[ -n "${!v}" ] || fail "check does not print the link of node $v"
done
for want in "# \[dns root\]: added by \[lab\] dns_tree (a comment: added again when read)" \
	"# \[dns tld\]: added by \[lab\] dns_tree (a comment: added again when read)" \
	"# generated: record = example. NS ns-tld.example." \
	"# generated: record = lab.example. NS ns-ns.lab.example." \
	"# generated: record = ns-ns.lab.example. A $ns" \
	"# generated: record = edge.lab.example. NS ns-edge.edge.lab.example." \
	"# generated: record = ns-edge.edge.lab.example. A $edge"; do
	grep -q "^$want\$" "$out/check.txt" || fail "check does not print '$want'"
done
echo "ok: check prints root ($root), tld ($tld) and the generated delegations"

# a zone nobody serves: refused at its line, and up builds nothing
sed 's/^zones = edge.lab.example$/zones = lab.example/; s/^\[dns ns\]$/[dns ns]\nzones = lab.example/' \
	"$out/tree.ini" >"$out/bad.ini"
rc=0
$STEERLAB up "$out/bad.ini" --out "$out/bad" >"$out/bad.log" 2>&1 || rc=$?
assert_eq $rc 1 "exit status of up with a zone nobody serves"
grep -q "^$out/bad.ini:[0-9]*: \[zone edge.lab.example\] is served by no \[dns\] node" "$out/bad.log" ||
	fail "up: expected the zone nobody serves named at its line: $(cat "$out/bad.log")"
! ip netns list | grep "^$lab-" >/dev/null || fail "up of a refused topology left namespaces"
echo "ok: up refuses a zone nobody serves at its line and builds nothing: $(head -1 "$out/bad.log")"

$STEERLAB up "$out/tree.ini" --out "$rundir" >"$out/up.log" 2>&1 || { cat "$out/up.log"; fail "steerlab up failed"; }

# q SERVER NAME: dig without recursion from c1, the whole answer
q() { $STEERLAB exec $lab c1 -- dig +norec +time=2 +tries=2 "@$1" "$2" A; }
# section TEXT NAME: the records of one section of dig's output
section() { awk -v s=";; $2 SECTION:" '$0 == s { on = 1; next } /^;;|^$/ { on = 0 } on' <<<"$1"; }
# referral SERVER QNAME ZONE NSNAME GLUE: SERVER refers QNAME to ZONE at NSNAME, glue GLUE
referral() {
	local r
	r=$(q "$1" "$2")
	grep -q "status: NOERROR" <<<"$r" || fail "@$1 $2: not NOERROR: $r"
	grep -q "^;; flags: qr;" <<<"$r" || fail "@$1 $2: a referral has no aa flag: $r"
	[ -z "$(section "$r" ANSWER)" ] || fail "@$1 $2: a referral has no answer: $r"
	section "$r" AUTHORITY | grep -E "^$3[[:space:]]+[0-9]+[[:space:]]+IN[[:space:]]+NS[[:space:]]+$4\$" >/dev/null ||
		fail "@$1 $2: expected $3 NS $4 in the authority section: $r"
	section "$r" ADDITIONAL | grep -E "^$4[[:space:]]+[0-9]+[[:space:]]+IN[[:space:]]+A[[:space:]]+$5\$" >/dev/null ||
		fail "@$1 $2: expected the glue $4 A $5: $r"
	echo "ok: @$1 refers $2 to $3 ($4 at $5)"
}
# answer SERVER QNAME ADDR: SERVER answers QNAME with ADDR, authoritatively
answer() {
	local r
	r=$(q "$1" "$2")
	grep -q "^;; flags: qr aa;" <<<"$r" || fail "@$1 $2: expected an authoritative answer: $r"
	section "$r" ANSWER | grep -E "[[:space:]]A[[:space:]]+$3\$" >/dev/null || fail "@$1 $2: expected $3: $r"
	echo "ok: @$1 answers $2 with $3"
}
dig_ok() { $STEERLAB exec $lab c1 -- dig +time=1 +tries=1 +short "@$1" "$2" | grep -x "$3" >/dev/null; }

wait_until 10 dig_ok "$ns" www.lab.example 198.19.1.1 || fail "ns does not answer www.lab.example"
referral "$root" www.lab.example example. ns-tld.example. "$tld"
referral "$tld" www.lab.example lab.example. ns-ns.lab.example. "$ns"
answer "$ns" www.lab.example 198.19.1.1
referral "$ns" x.edge.lab.example edge.lab.example. ns-edge.edge.lab.example. "$edge"
answer "$edge" x.edge.lab.example 198.19.9.9
# the root and the TLD answer for their own servers' names
answer "$root" ns-root. "$root"
answer "$tld" ns-tld.example. "$tld"
# the forwarding cache r1 asks ns
wait_until 5 dig_ok 198.18.128.1 www.lab.example 198.19.1.1 || fail "cache r1 does not answer www.lab.example"
echo "ok: cache r1 (mode = forward) answers www.lab.example with 198.19.1.1"

# A real iterative resolver walks the tree from the lab's root, and nothing else
c1=$(addr c1)
printf '.\t86400\tIN\tNS\tns-root.\nns-root.\t86400\tIN\tA\t%s\n' "$root" >"$out/root.hints"
cat >"$out/unbound.conf" <<EOF
server:
	interface: $c1@5399
	access-control: 198.18.0.0/15 allow
	do-daemonize: no
	chroot: ""
	username: ""
	pidfile: ""
	directory: "$out"
	logfile: "$out/unbound.log"
	use-syslog: no
	do-ip6: no
	root-hints: "$out/root.hints"
	module-config: "iterator"
	target-fetch-policy: "0 0 0 0 0"
remote-control:
	control-enable: no
EOF
ip netns exec $lab-c1 unbound -d -c "$out/unbound.conf" &
unbound_pid=$!
walk_ok() { $STEERLAB exec $lab c1 -- dig +time=1 +tries=1 +short -p 5399 "@$c1" "$1" | grep -x "$2" >/dev/null; }
wait_until 10 walk_ok www.lab.example 198.19.1.1 || fail "unbound, from the lab's root, does not resolve www.lab.example: $(tail -5 "$out/unbound.log")"
wait_until 5 walk_ok x.edge.lab.example 198.19.9.9 || fail "unbound does not resolve x.edge.lab.example"
echo "ok: unbound, hinted at the lab's root only, resolves www.lab.example and x.edge.lab.example"
kill "$unbound_pid"
wait "$unbound_pid" 2>/dev/null || true
unbound_pid=

wait_until 10 dig_ok 198.18.129.1 www.lab.example 198.19.1.1 ||
	fail "cache i1 (mode = iterate) does not resolve www.lab.example"
grep -q '^mode = iterate$' "$rundir/i.resolverd.ini" || fail "i.resolverd.ini: no mode = iterate"
grep -q "^root = $root\$" "$rundir/i.resolverd.ini" || fail "i.resolverd.ini: no root = $root"
echo "ok: cache i1 (mode = iterate, root = $root) resolves www.lab.example"

$STEERLAB down $lab >"$out/down.log" 2>&1 || { cat "$out/down.log"; fail "steerlab down failed"; }
assert_no_leftovers $lab "$rundir"

# The walk is in the captures of the routers' links to the root, the TLD and ns
count() { tcpdump -nr "$rundir/capture-dns-$1.pcap" "$2" 2>/dev/null | wc -l; }
for n in root tld ns; do
	[ -s "$rundir/capture-dns-$n.pcap" ] || fail "no capture-dns-$n.pcap"
done
assert_ge "$(count root "src host $c1")" 1 "queries from unbound captured on the root's link"
assert_ge "$(count tld "src host $c1")" 1 "queries from unbound captured on the TLD's link"
assert_ge "$(count ns "src host $c1")" 1 "queries from unbound captured on ns's link"
echo "ok: unbound's walk is in capture-dns-root.pcap, capture-dns-tld.pcap and capture-dns-ns.pcap"
assert_ge "$(count root 'src host 198.18.129.1')" 1 "queries from cache i1 on the root's link"
assert_ge "$(count tld 'src host 198.18.129.1')" 1 "queries from cache i1 on the TLD's link"
echo "ok: cache i1's walk is in the captures"
assert_ge "$(count ns 'src host 198.18.128.1')" 1 "queries from cache r1 on ns's link"
assert_eq "$(count root 'src host 198.18.128.1')" 0 "queries from the forwarding cache r1 on the root's link"
echo "ok: the forwarding cache r1 asked ns, never the root"

# topology/cdn.ini: managed DNS. www.lab.example (ns, TTL 60) is a CNAME to
# www.cdn.example, which cdn steers (TTL 2). Its two iterating caches each
# ask the root once, the TLD once per zone below it, ns once (the CNAME
# outlives the run) and cdn once per 2 s: each link of the chain cached with
# its own TTL, and the failover follows the provider's TTL
rundir=$out/cdn
run_valid "$out/cdn.log" topology/cdn.ini --set name=$lab --out "$rundir" -q ||
	{ cat "$out/cdn.log"; fail "steerlab run topology/cdn.ini failed"; }
[ "$(json "$rundir/clocks.json" .valid)" = true ] ||
	fail "cdn.ini: the run is not valid: $(json "$rundir/clocks.json" .warnings)"
assert_eq "$(count root 'dst port 53')" 2 "cdn.ini: queries to the root (one per cache)"
assert_eq "$(count tld 'dst port 53')" 4 "cdn.ini: queries to the TLD (lab.example and cdn.example, per cache)"
assert_eq "$(count ns 'dst port 53')" 2 "cdn.ini: queries to ns for the CNAME (TTL 60, one per cache)"
assert_ge "$(count cdn 'dst port 53')" 8 "cdn.ini: queries to cdn for the address (TTL 2, about 5 per cache in 10 s)"
assert_le "$(json "$rundir/clocks.json" .schemes.dns.window_s)" \
	"$(awk -v s="$(json "$rundir/clocks.json" .schemes.dns.steer_s)" 'BEGIN { print s + 2 + 0.5 }')" \
	"cdn.ini: the clients leave the dead site within steer + the provider's TTL (2 s) + 0.5 s"
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
