#!/usr/bin/env bash
# The resolver measurements on a real run of
# tests/integration/data/resolver-knobs.ini (four resolverd
# [resolver] nodes with different knobs, each with its own population of
# clients; docs/clocks.md, "Resolvers"): clocks.json has, per node, its
# queries upstream by level, adding up to what the query captures hold; the
# share of its clients' queries answered from its cache, between 0 and 1
# and in agreement with resolverd's own counters; and decay.csv a curve per
# node, each of which decays, in the order the knobs put them in.
# about 25 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=msrm
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" tests/integration/data/resolver-knobs.ini --out "$rundir" --set name=$lab --quiet ||
	{ cat "$out/run.log"; fail "steerlab run failed"; }
cj=$rundir/clocks.json
[ "$(json "$cj" .valid)" = true ] || fail "the run is not valid: $(json "$cj" .warnings)"

all_up=0
for n in r1 r2 r3 r4; do
	[ -s "$rundir/capture-resolver-$n.pcap" ] || fail "no capture-resolver-$n.pcap"
	node=".resolvers.nodes.$n"
	impl=$(json "$cj" "$node.impl")
	want_impl=$(awk -v s="[resolver $n]" '$0 == s { in_s = 1; next } /^\[/ { in_s = 0 }
		in_s && $1 == "impl" { print $3 }' "$rundir/topology.ini")
	[ "$impl" = "${want_impl:-null}" ] || fail "$n: impl $impl, the topology says '${want_impl}'"

	# upstream: every query of the node reached ns, the lab's only [dns]
	# node (level zone); none the root or a TLD
	zone=$(json "$cj" "$node.upstream.levels.zone.queries")
	assert_gt "$zone" 0 "$n: queries to the zone level"
	assert_eq "$(json "$cj" "$node.upstream.levels.root.queries")" 0 "$n: queries to the root"
	assert_eq "$(json "$cj" "$node.upstream.levels.tld.queries")" 0 "$n: queries to a TLD"
	assert_eq "$(json "$cj" "$node.upstream.queries")" "$zone" "$n: upstream = the sum of its levels"
	all_up=$((all_up + zone))
	share=$(json "$cj" "$node.cache.share")
	assert_gt "$share" 0 "$n: share of queries answered from cache"
	assert_le "$share" 1 "$n: share of queries answered from cache"
	hits_cap=$(json "$cj" "$node.cache.from_cache")
	# its one cache (count = 1) holds all of it
	assert_eq "$(json "$cj" "[$node.cache.by_cache[] | .from_cache] | add")" "$hits_cap" \
		"$n: its caches' from_cache add up to the node's"
	if [ "$impl" != null ]; then
		echo "$n runs $impl: no resolverd counters to compare with"
		continue
	fi
	# resolverd's own record of what it asked (upstream-NODE.csv, one line
	# per query sent) against the capture of ns's link: the same UDP
	# datagrams, counted at both ends of one veth pair
	sent=$(($(wc -l <"$rundir/upstream-$n.csv") - 1))
	assert_eq "$zone" "$sent" "$n: upstream queries captured = resolverd's upstream-$n.csv"

	# the cache: the classifier agrees with resolverd's resolver_summary.
	# Both count the same client datagrams (the capture of the node's link
	# starts before the clients and stops after them), so they differ only
	# by a query that arrived while resolverd was stopping, or a hit whose
	# answer left after an upstream answer to its cache came in (a hit in
	# the receive batch of a miss, sent at the batch's end): at most 2, or
	# 1 % of the queries, whichever is larger
	q=$(json "$cj" "$node.cache.queries")
	up_cap=$(json "$cj" "$node.cache.upstream")
	ev=$rundir/$n.resolverd.events.jsonl
	hits=$(jq -s '[.[] | select(.event == "resolver_summary") | .hits + .stale_answers] | add' "$ev")
	misses=$(jq -s '[.[] | select(.event == "resolver_summary") | .misses] | add' "$ev")
	rq=$(jq -s '[.[] | select(.event == "resolver_summary") | .queries] | add' "$ev")
	tol=$(awk -v q="$q" 'BEGIN { t = q / 100; print (t > 2 ? t : 2) }')
	assert_le "$(awk -v a="$q" -v b="$rq" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" "$tol" \
		"$n: client queries captured ($q) against resolverd's ($rq)"
	assert_le "$(awk -v a="$hits_cap" -v b="$hits" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" "$tol" \
		"$n: answered from cache ($hits_cap) against resolverd's hits + stale answers ($hits)"
	assert_le "$(awk -v a="$up_cap" -v b="$misses" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" "$tol" \
		"$n: answered from upstream ($up_cap) against resolverd's misses ($misses)"
done
assert_eq "$(json "$cj" .schemes.dns.upstream_queries)" \
	"$((all_up + $(json "$cj" .resolvers.other_sources.queries)))" \
	"the nodes' upstream queries add up to every query captured on ns's link"

# a decay curve per node in decay.csv: each starts on the dead site and
# ends off it
header=$(csv_header "$rundir/decay.csv")
for n in r1 r2 r3 r4; do
	col=$(echo "$header" | tr , '\n' | grep -nx "resolver_${n}_share" | cut -d: -f1)
	[ -n "$col" ] || fail "decay.csv has no resolver_${n}_share column: $header"
	first=$(awk -F, -v c="$col" '/^[0-9]/ && $c != "" { print $c; exit }' "$rundir/decay.csv")
	last=$(awk -F, -v c="$col" '/^[0-9]/ && $c != "" { v = $c } END { print v }' "$rundir/decay.csv")
	assert_eq "$first" 1 "$n: its clients all on the dead site just after t0"
	assert_eq "$last" 0 "$n: none of its clients on it at the end"
done
[ "$(echo "$header" | tr , '\n' | grep -c '^resolver_.*_share$')" = 4 ] ||
	fail "decay.csv should have four resolver curves: $header"

# the knobs show in the windows: r2 keeps answers at most 1 s, r1 their
# TTL (2 s), r4 at least 4 s (the failure comes 4.5 s in, between refreshes)
w() { json "$cj" ".resolvers.nodes.$1.window_s"; }
assert_le "$(w r2)" "$(awk -v a="$(w r1)" 'BEGIN { print a + 0.1 }')" "r2 (max_ttl 1) leaves no later than r1"
assert_le "$(awk -v a="$(w r1)" 'BEGIN { print a + 1 }')" "$(w r4)" "r4 (min_ttl 4) leaves at least 1 s after r1"

grep -q '^## Resolvers' "$rundir/report.md" || fail "report.md has no Resolvers section"
csv_header "$rundir/upstream.csv" | grep ',r1_zone,r2_zone,r3_zone,r4_zone$' >/dev/null ||
	fail "upstream.csv has no per-node level columns: $(csv_header "$rundir/upstream.csv")"

assert_no_leftovers $lab "$rundir"

# topology/resolvers.ini: the same failure through resolverd, unbound, Knot
# Resolver and BIND, one curve each, each following the failover within
# the TTL (2 s) after authd steers, plus unbound's extra second (it answers
# TTL 0 in the last one; docs/resolvers.md) and half a second of slack
rundir=$out/impls
run_valid "$out/run2.log" topology/resolvers.ini --out "$rundir" --set name=$lab --quiet ||
	{ cat "$out/run2.log"; fail "steerlab run topology/resolvers.ini failed"; }
cj=$rundir/clocks.json
[ "$(json "$cj" .valid)" = true ] || fail "resolvers.ini: the run is not valid: $(json "$cj" .warnings)"
steer=$(json "$cj" .schemes.dns.steer_s)
for pair in r1:null r2:unbound r3:knot-resolver r4:bind9; do
	n=${pair%%:*} want=${pair#*:}
	got=$(json "$cj" ".resolvers.nodes.$n.impl")
	[ "$got" = "$want" ] || fail "resolvers.ini: $n runs '$got', expected '$want'"
	assert_le "$(json "$cj" ".resolvers.nodes.$n.window_s")" "$(awk -v s="$steer" 'BEGIN { print s + 2 + 1.5 }')" \
		"resolvers.ini: $n's clients leave the dead site within steer + TTL + 1.5 s"
	for level in root tld zone; do
		[ "$(json "$cj" ".resolvers.nodes.$n.upstream.levels.$level.queries")" -gt 0 ] ||
			fail "resolvers.ini: $n did not ask the $level server (it walks the lab's tree)"
	done
	[ "$(json "$cj" ".resolvers.nodes.$n.dead_after_t0")" -gt 0 ] ||
		fail "resolvers.ini: $n's clients sent nothing to the dead site after t0 (no failover seen)"
done
[ "$(csv_header "$rundir/decay.csv" | tr , '\n' | grep -c '^resolver_.*_share$')" = 4 ] ||
	fail "resolvers.ini: decay.csv should have four resolver curves"
echo "ok: resolvers.ini, windows $(for n in r1 r2 r3 r4; do printf '%s %s s  ' $n "$(json "$cj" ".resolvers.nodes.$n.window_s")"; done)"
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
echo "ok: test_resolver_measure"
