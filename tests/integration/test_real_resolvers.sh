#!/usr/bin/env bash
# Real resolvers on [resolver] nodes (docs/resolvers.md), with
# topology/real-resolvers.ini: unbound, knot-resolver and bind9, one node
# each, a client each.
#   1. up, the lab dual-stack (ip = dual): each answers the lab's name
#      through the lab (dig from its client's node), over IPv4 and over
#      IPv6 at its cache's IPv6 address (the AAAA), runs as its own user,
#      logs in the run directory; down leaves nothing.
#   2. run, site a killed at 2 s and named's node dropping DNS at 5.5 s
#      (resolver-down): each client moves to site b within steer + TTL
#      (2 s) + 1.5 s (clocks.json; unbound keeps an entry up to 1 s past its TTL), each resolver's upstream queries are
#      counted from its cache address, and named's clients time out while
#      it is down; every clock within the model's interval (each client's
#      last request as its resolver's whole seconds make it).
#   3. a knob unbound cannot express (phase): up fails naming the line and
#      leaves no namespace, state directory, process or temporary file.
#   The lab has a DNS tree (dns_tree = yes): each resolver walks it from the
#   lab's root, and the run's captures show each one asking the root, the
#   TLD and ns.
#   4. forward mode (dns_tree = no): each answers, asking ns alone.
# about 18 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

pfx=${IT_PREFIX:-rr}
lab=$pfx-real
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
# the run directory kept when the test fails, for its captures and events
trap 'lab_cleanup $lab; [ "${passed:-0}" = 0 ] && echo "kept: $out" >&2 || rm -rf "$out"' EXIT
ini=topology/real-resolvers.ini
# node, its impl's agent label and user, its client, its cache address
resolvers="ru:unbound:unbound:cu:198.18.128.1 rk:kresd:knot-resolver:ck:198.18.129.1 rb:named:bind:cb:198.18.130.1"

# --- 1. up, dual-stack: each answers through the lab, over both families
$STEERLAB up $ini --set name=$lab --set ip=dual --out "$out/up" >"$out/up.log" 2>&1 ||
	{ cat "$out/up.log"; fail "steerlab up failed"; }
for r in $resolvers; do
	IFS=: read -r node label user client addr <<<"$r"
	answer() { $STEERLAB exec $lab "$client" -- dig +short +tries=1 +time=2 @"$addr" www.lab.example; }
	got=$(wait_until 10 answer >/dev/null && answer) || fail "$label on $node did not answer $client within 10 s"
	[ "$got" = 198.19.1.1 ] || fail "$label on $node answered '$got' for www.lab.example, expected site a's 198.19.1.1"
	echo "ok: $label on $node ($addr) answers $client: $got"
	# its cache's IPv6 address: 2001:2:0:8000+k::1 for 198.18.(128+k).1
	k=${addr#198.18.}
	addr6=2001:2:0:$(printf %x $((0x8000 + ${k%.1} - 128)))::1
	got6=$($STEERLAB exec $lab "$client" -- dig +short +tries=1 +time=2 -6 AAAA @"$addr6" www.lab.example) ||
		fail "$label on $node: dig over IPv6 at $addr6 failed"
	[ "$got6" = 2001:2:0:ff01::1 ] || fail "$label on $node answered '$got6' for the AAAA over IPv6, expected site a's 2001:2:0:ff01::1"
	echo "ok: $label on $node answers over IPv6 at $addr6: $got6"
	pid=$(awk -v n="$node" -v l="$label" '$3 == n && $4 == l { print $1 }' "$out/up/agents.tsv")
	[ -n "$pid" ] || fail "no $label of $node in agents.tsv"
	[ "$(ps -o user= -p "$pid")" = "$user" ] || fail "$label of $node runs as $(ps -o user= -p "$pid"), expected $user"
	[ -s "$out/up/$node.$label.log" ] || fail "no log $out/up/$node.$label.log"
	[ -s "$out/up/$node.$label.conf" ] || fail "no configuration $out/up/$node.$label.conf"
	$STEERLAB nodes $lab | grep "agent $label .* alive" >/dev/null || fail "steerlab nodes does not show $label alive"
	echo "ok: $label of $node runs as $user, its log and configuration in the run directory"
done
$STEERLAB down $lab >/dev/null
assert_no_leftovers $lab "$out/up"

# --- 2. run: failover within the TTL, upstream by cache address, resolver-down
sed -e '/^\[event out\]/,/^target = ns/d' "$ini" >"$out/run.ini"
cat >>"$out/run.ini" <<'EOF'
[event rbdown]
at = 5500ms
action = resolver-down
target = rb
EOF
run_valid "$out/run.log" "$out/run.ini" --set name=$lab --out "$out/run" -q ||
	{ ls -la "$out" >&2; tail -30 "$out/run.log"; fail "steerlab run failed"; }
clocks=$out/run/clocks.json
steer=$(json "$clocks" '.schemes.dns.steer_s')
echo "authd steered $steer s after t0"
for r in $resolvers; do
	IFS=: read -r node label user client addr <<<"$r"
	id=$(json "$out/run/$client.client-dns.events.jsonl" 'select(.event == "client_started") | .client')
	last=$(json "$clocks" ".schemes.dns.last_by_client_s[\"$id\"]")
	echo "$client (via $label): its last request to site a $last s after t0"
	assert_le "$last" "$(awk -v s="$steer" 'BEGIN { print s + 2 + 1.5 }')" \
		"$client via $label followed within steer + TTL (2 s) + 1.5 s"
	up=$(json "$clocks" ".schemes.dns.upstream_resolvers[\"$addr\"] // 0")
	assert_gt "$up" 0 "$label's upstream queries captured from its address $addr"
	for level in root tld zone; do
		assert_gt "$(json "$clocks" ".resolvers.nodes.$node.upstream.levels.$level.queries")" 0 \
			"$label walked the tree: its queries to the $level server captured"
	done
done
during() { # ADDRESS OUTCOME: rbdown's resolutions through ADDRESS by outcome
	json "$clocks" ".dns_outages[] | select(.name == \"rbdown\") | .resolvers[\"$1\"].during.$2"
}
# the model of each client's last request, the run's wall clock known
# (docs/model.md, "Real resolvers"): unbound and kresd keep the entry to
# the whole second past its TTL, named drops it at the whole second before
for r in $resolvers; do
	IFS=: read -r node label user client addr <<<"$r"
	id=$(json "$out/run/$client.client-dns.events.jsonl" 'select(.event == "client_started") | .client')
	m=$(json "$clocks" ".schemes.dns.model.last_by_client_s[\"$id\"].p50")
	[ "$m" != null ] || fail "$client via $label: no model of its last request"
	echo "$client (via $label): the model's last request $m s after t0"
done
disagree=$(jq -r '.warnings[] | select(.code == "model_disagrees") | .message' "$clocks")
if [ -n "$disagree" ]; then
	# what each resolver asked ns and got, from a second before t0 to 4 s after
	t0=$(json "$clocks" '.t0_ns')
	for r in $resolvers; do
		IFS=: read -r node label user client addr <<<"$r"
		echo "$label ($addr) and ns, s after t0:" >&2
		tcpdump -tt -nr "$out/run/capture-dns-ns.pcap" "host $addr" 2>/dev/null |
			awk -v t0="$t0" '{ t = $1 - t0 / 1e9 } t > -1 && t < 4 { $1 = sprintf("%.3f", t); print "  " $0 }' >&2
	done
	fail "model_disagrees: $disagree"
fi
echo "ok: every clock the model predicts within its bounds (no model_disagrees)"
assert_gt "$(during 198.18.130.1 timeout)" 0 "resolver-down rb: named's clients' lookups timed out"
assert_eq "$(during 198.18.130.1 fresh)" 0 "resolver-down rb: named's clients' fresh answers"
assert_gt "$(during 198.18.128.1 fresh)" 0 "resolver-down rb: unbound's clients still answered"
assert_no_leftovers $lab "$out/run"

# --- 3. a knob unbound cannot express: nothing is built
awk '{ print } /^impl = unbound$/ { print "phase = 50%" }' "$ini" >"$out/bad.ini"
line=$(grep -n '^phase = 50%' "$out/bad.ini" | cut -d: -f1)
mkdir "$out/tmp"
if TMPDIR=$out/tmp $STEERLAB up "$out/bad.ini" --set name=$lab --out "$out/bad" >"$out/bad.log" 2>&1; then
	$STEERLAB down $lab >/dev/null 2>&1 || true
	fail "up accepted phase = 50% with impl = unbound"
fi
grep -qF "$out/bad.ini:$line: phase: unbound cannot express this (" "$out/bad.log" ||
	fail "up's error does not name line $line's phase: $(cat "$out/bad.log")"
echo "ok: $(head -1 "$out/bad.log")"
ip netns list | awk '{print $1}' | grep "^$lab-" >/dev/null && fail "namespaces of $lab were made"
[ -e "/run/steerlab/$lab" ] && fail "state directory /run/steerlab/$lab was made"
[ -e "$out/bad/agents.tsv" ] && fail "agents were started: $out/bad/agents.tsv"
ps -eo args | grep -v grep | grep "/run/steerlab/$lab/" >/dev/null && fail "a process of $lab runs"
assert_eq "$(find "$out/tmp" -mindepth 1 | wc -l)" 0 "temporary check directories left"
echo "ok: the rejected knob left no namespace, state, process or temporary file"

# --- 4. forward mode: no tree, each asks ns (forward zones)
$STEERLAB up $ini --set name=$lab --set dns_tree=no --out "$out/fwd" >"$out/fwd.log" 2>&1 ||
	{ cat "$out/fwd.log"; fail "steerlab up (dns_tree = no) failed"; }
for r in $resolvers; do
	IFS=: read -r node label user client addr <<<"$r"
	answer() { $STEERLAB exec $lab "$client" -- dig +short +tries=1 +time=2 @"$addr" www.lab.example; }
	got=$(wait_until 10 answer >/dev/null && answer) || fail "forward: $label on $node did not answer within 10 s"
	[ "$got" = 198.19.1.1 ] || fail "forward: $label on $node answered '$got', expected 198.19.1.1"
	echo "ok: forward: $label on $node answers $got"
done
$STEERLAB down $lab >/dev/null
assert_no_leftovers $lab "$out/fwd"
passed=1
echo "PASS: test_real_resolvers"
