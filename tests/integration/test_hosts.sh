#!/usr/bin/env bash
# One lab over two simulated hosts (topology/two-hosts.ini, docs/topology.md,
# "Hosts"): `check` names the hosts and the VXLAN link; `up` makes the link
# between the hosts a VXLAN device in each router's namespace (its id, its
# MTU, its underlay in the host's namespace), a ping crosses it over the
# underlay, and `down` leaves no namespace; then a short run (site b, on
# h2, killed) is valid, its clocks there, c2's catchment moving to a on the
# other host, the captures of edge's collector (host h2) fetched into the
# run directory, h2's clock measured against local's (about 0, within its
# uncertainty), clocks.json's hosts and the uncertainty of each clock whose
# stamp is h2's (report.md's and report.html's ± cells), and nothing of the
# lab remains.
# about 10 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-hosts
topo=topology/two-hosts.ini
lab_guard $lab
links_before=$(ip -o link show | wc -l)
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)

# check: the hosts, and which link is VXLAN
$STEERLAB check $topo --set name=$lab >"$out/check.txt"
grep -q '^\[host local\]$' "$out/check.txt" || fail "check: no [host local]"
grep -q '^\[host h2\]$' "$out/check.txt" || fail "check: no [host h2]"
grep -q "^# simulated: namespace $lab-h2, underlay 198.18.44.2 (MTU 1500), nodes: edge b p2 c2$" \
	"$out/check.txt" || fail "check: h2's namespace, underlay and nodes: $(grep -A2 'host h2' "$out/check.txt")"
grep -q '^#   core (local) - edge (h2): VXLAN id 8192, 198.18.44.1 to 198.18.44.2, MTU 1450$' \
	"$out/check.txt" || fail "check: the VXLAN link core - edge"
echo "ok: check prints the hosts and the VXLAN link"

# a host that is not simulated is refused, by line
printf '[lab]\nname = hvx\n[host h2]\nssh = root@h2\n[router core]\n[site a]\nlink = core\n[client c1]\nlink = core\nhost = h2\n' >"$out/ssh.ini"
if $STEERLAB check "$out/ssh.ini" >"$out/ssh.txt" 2>&1; then fail "check accepted ssh = root@h2"; fi
grep -q "ssh.ini:4: \[host h2\] ssh = root@h2: only simulated hosts are implemented" "$out/ssh.txt" ||
	fail "check: $(cat "$out/ssh.txt")"
echo "ok: a real ssh host is refused, naming its line"

# up, the network alone: the tunnel in each router's namespace
$STEERLAB up $topo --set name=$lab --no-agents --out "$out/up" >"$out/up.log" 2>&1 ||
	{ cat "$out/up.log"; fail "steerlab up failed"; }
for end in core:edge:local edge:core:h2; do
	IFS=: read -r node ifname host <<<"$end"
	d=$(ip -n $lab-$node -d link show "$ifname")
	grep -q "mtu 1450 " <<<"$d" || fail "$node's $ifname: not MTU 1450: $d"
	grep -q "link-netns $lab-$host" <<<"$d" || fail "$node's $ifname: its underlay is not in $lab-$host: $d"
	grep -q "vxlan id 8192 remote 198.18.44.[12] local 198.18.44.[12] .*dstport 4789" <<<"$d" ||
		fail "$node's $ifname: not VXLAN id 8192 over the underlay: $d"
	echo "ok: $node's $ifname is VXLAN id 8192, MTU 1450, its underlay in $lab-$host"
done
# a link within a host stays a veth
ip -n $lab-edge -d link show b | grep "veth" >/dev/null || fail "edge's link to b is not a veth"
# c2 (h2) to a (local): over the tunnel, on the underlay
tx() { ip -n $lab-h2 -s -j link show ul | jq '.[0].stats64.tx.packets'; }
before=$(tx)
ip netns exec $lab-c2 ping -c 3 -i 0.2 -W 1 -q 198.18.0.2 >"$out/ping.txt" ||
	fail "c2 cannot ping a across the hosts: $(cat "$out/ping.txt")"
ip netns exec $lab-c2 ping -c 1 -W 1 -M do -s 1422 -q 198.18.0.2 >/dev/null ||
	fail "a 1450-byte packet does not cross the tunnel"
after=$(tx)
assert_ge $((after - before)) 4 "h2's underlay carried the pings (tx packets)"
$STEERLAB down $lab >"$out/down.txt" || fail "steerlab down failed"
if ip netns list | awk '{print $1}' | grep "^$lab-" >/dev/null; then
	fail "namespaces remain: $(ip netns list | grep "^$lab-" | tr '\n' ' ')"
fi
[ -e /run/steerlab/$lab ] && fail "state remains"
echo "ok: down removed every namespace, the hosts' too ($(cat "$out/down.txt"))"

# a short run over the two hosts
rundir=$out/run
run_valid "$out/run.log" $topo --out "$rundir" --set name=$lab --set duration=4s \
	--set fail_at=2s || fail "run exited with status $?: $(tail -20 "$out/run.log")"
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" '[.warnings[].code] | join(" ")')"
echo "ok: the run is valid"
for s in anycast dns; do
	w=$(json "$clocks" .schemes.$s.window_s)
	assert_gt "$w" 0 "$s window"
done
# c2 (h2) left b for a (local) through the tunnel; c1, beside a, stayed
grep -q '^2 *c2 *b (.*) *a (.*) *yes$' "$out/run.log" || fail "c2's catchment did not move to a"
grep -q '^1 *c1 *a (.*) *a (.*) *no$' "$out/run.log" || fail "c1's catchment was not a throughout"
echo "ok: c2's catchment moved from b to a on the other host, c1's stayed a"
# h2's clock against local's, at warm-up: one kernel clock, so about 0,
# within an uncertainty of half the underlay's round trip
ev=$(jq -c 'select(.event == "host_clock")' "$rundir/lab.events.jsonl")
[ "$(jq -r .host <<<"$ev")" = h2 ] && [ "$(jq -r .reference <<<"$ev")" = local ] ||
	fail "no host_clock event of h2 against local: $ev"
off=$(jq -r '.offset_ns | if . < 0 then -. else . end' <<<"$ev")
unc=$(jq -r .uncertainty_ns <<<"$ev")
assert_le "$off" "$unc" "h2's measured offset within its uncertainty (ns)"
assert_lt "$unc" 1000000 "h2's clock uncertainty under 1 ms (ns)"
# the clocks: h2's offset and uncertainty, and each clock's: anycast's
# detect (b's prober), steer (edge's FIB), window and last packet (edge's
# capture of b) are h2's stamps, DNS's detect and steer authd's (local, 0),
# its window edge's capture's
hu=$(json "$clocks" .hosts.h2.uncertainty_s)
ho=$(json "$clocks" '.hosts.h2.offset_s | if . < 0 then -. else . end')
assert_le "$ho" "$hu" "clocks.json: h2's offset within its uncertainty (s)"
assert_gt "$hu" 0 "clocks.json: h2's uncertainty (s)"
[ "$(json "$clocks" .hosts.local.reference)" = true ] || fail "clocks.json: local is not the reference"
for c in anycast.detect anycast.steer anycast.window anycast.last_packet dns.window; do
	u=$(json "$clocks" ".schemes.${c%.*}.uncertainty_s.${c#*.}")
	[ "$u" = "$hu" ] || fail "clocks.json: $c's uncertainty is $u, not h2's $hu"
done
for c in dns.detect dns.steer; do
	u=$(json "$clocks" ".schemes.${c%.*}.uncertainty_s.${c#*.}")
	[ "$u" = 0 ] || fail "clocks.json: $c's uncertainty is $u, not 0 (authd is local's)"
done
# the FIB clocks: each router that changed its route carries its own
# host's (edge h2's, core local's 0), the convergence its last router's
for r in $(json "$clocks" '.schemes.anycast.fib.routers | to_entries[] | select(.value.first_s != null) | .key'); do
	want=$([ "$r" = edge ] && echo "$hu" || echo 0)
	u=$(json "$clocks" ".schemes.anycast.fib.routers.$r.uncertainty_s")
	[ "$u" = "$want" ] || fail "clocks.json: router $r's FIB uncertainty is $u, not $want"
done
last=$(json "$clocks" .schemes.anycast.fib.last_router)
want=$([ "$last" = edge ] && echo "$hu" || echo 0)
for u in "$(json "$clocks" .schemes.anycast.fib.uncertainty_s.convergence)" \
	"$(json "$clocks" .schemes.anycast.uncertainty_s.fib_convergence)"; do
	[ "$u" = "$want" ] || fail "clocks.json: the FIB's convergence (last: $last) has uncertainty $u, not $want"
done
echo "ok: clocks.json: h2's clock, and the uncertainty of each clock whose stamp is h2's (the FIB's too)"
hms=$(awk -v u="$hu" 'BEGIN { printf "%.3f", u * 1000 }')
for row in "detect (s)" "steer (s)" "window (s)"; do
	grep -q "^$row .* ± $hms ms" "$rundir/report.md" ||
		fail "report.md: no ± $hms ms on the $row row: $(grep "^$row" "$rundir/report.md")"
done
echo "ok: report.md: detect, steer and window ± $hms ms"
# report.html's clocks table: anycast's window with h2's uncertainty
# (data-u, and shown after it; the browser test, test_compare_failover's,
# checks each against clocks.json)
w=$(json "$clocks" .schemes.anycast.window_s)
grep -q "data-scheme=\"anycast\" data-key=\"window_s\" data-value=\"[0-9.e-]*\" data-u=\"[0-9.e-]*\">[0-9.]* ± $hms ms</td>" \
	"$rundir/report.html" || fail "report.html: no ± $hms ms on anycast's window ($w s)"
echo "ok: report.html: anycast's window ± $hms ms"
# edge's captures, written on h2, fetched into the run
for f in capture-b.pcap capture-link-edge-b.pcap; do
	[ -s "$rundir/$f" ] || fail "$f was not fetched into the run directory"
done
echo "ok: edge's captures fetched from h2"
assert_no_leftovers $lab "$rundir"
links_after=$(ip -o link show | wc -l)
[ "$links_before" -eq "$links_after" ] || fail "root namespace links: $links_before before, $links_after after"
echo "ok: the root namespace has the links it had"
rm -rf "$out"
