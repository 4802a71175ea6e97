#!/usr/bin/env bash
# Anycast over BGP in both families (docs/topology.md, "IPv6"; issue 28):
# topology/dual-stack.ini with routing = bgp. Each BGP speaker has an IPv6
# session beside each IPv4 one, carrying IPv6 unicast alone, and each site
# announces the service's IPv6 address (its prober keeps it on lo beside
# the IPv4 one); the warm-up waits until every router's FIB has both. Site
# a's sited is killed at 3 s: a's prober takes both addresses off lo, bgpd
# withdraws both, and r1's routes to 198.19.0.1 and 2001:2:0:ff00::1 move
# to r2 within a few ms of each other. The run is valid (no request of
# c6's lost before t0: the warm-up waited for IPv6 too); clocks.json's
# anycast fib6 holds the IPv6 FIB clocks, the next hops as their IPv4
# twins; c6 loses what c4 loses in each scheme; the report prints the
# IPv6 FIB table.
# about 12 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ipv6b
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

run_valid "$out/run.txt" topology/dual-stack.ini --set name=$lab --set routing=bgp \
	--set a-ipv6.action=kill --set a-ipv6.family=both --set duration=6s -q --out "$r" ||
	fail "the run: $(tail -20 "$out/run.txt")"
echo "ok: the run is valid"

# FRR's configuration: an IPv6 session beside each IPv4 one, IPv6 unicast
grep -q '^ address-family ipv6 unicast$' "$r/r1.bgpd.conf" || fail "r1's bgpd has no IPv6 unicast family"
grep -q '^  neighbor 2001:2::2 activate$' "$r/r1.bgpd.conf" || fail "r1 does not activate its IPv6 session to a"
grep -q '^  no neighbor 2001:2::2 activate$' "$r/r1.bgpd.conf" || fail "r1's IPv6 session to a carries IPv4"
grep -q 'STEERLAB-SERVICE6 seq 5 permit 2001:2:0:ff00::1/128' "$r/a.bgpd.conf" || fail "a does not announce the service's IPv6 address"
echo "ok: bgpd: IPv6 sessions for IPv6 unicast, the service's IPv6 address announced"

# the prober took both addresses off a's lo
for p in 198.19.0.1/32 2001:2:0:ff00::1/128; do
	[ "$(json "$r/a.prober.events.jsonl" "select(.event == \"address_removed\" and .prefix == \"$p\") | .prefix" | wc -l)" -ge 1 ] ||
		fail "a's prober did not take $p off lo"
done
echo "ok: a's prober took both addresses off lo"

# the FIB clocks of both families: r1 moved to r2 (198.18.32.2, the twin
# of 2001:2:0:1000::2) in each, a few ms apart
fib() { json "$r/clocks.json" ".schemes.anycast.$1"; }
[ "$(fib 'fib6 != null')" = true ] || fail "clocks.json has no anycast fib6"
assert_ge "$(fib fib6.routers_changed)" 1 "routers whose IPv6 route changed"
for f in fib fib6; do
	[ "$(fib "$f.routers.r1.after.via[0]")" = 198.18.32.2 ] || fail "r1's route after t0 in $f: $(fib "$f.routers.r1.after")"
done
last4=$(fib fib.last_s) last6=$(fib fib6.last_s)
assert_le "$(awk -v a="$last6" -v b="$last4" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" 0.1 "the IPv6 FIB's last change, from the IPv4 FIB's (s)"
grep -q '^FIB (IPv6): ' "$out/run.txt" || fail "the report has no IPv6 FIB table"
echo "ok: FIB clocks: IPv4 converged at $last4 s, IPv6 at $last6 s"

# c6 loses what c4 loses, in each scheme (one prober, one withdrawal of
# each family; authd steers the AAAA as the A)
lost() { awk -F, 'NR > 1 && $4 == "timeout"' "$r/requests-$1.csv" | wc -l; }
for flow in "" -dns; do
	l4=$(lost c4$flow) l6=$(lost c6$flow)
	assert_gt "$l4" 0 "c4$flow's losses"
	assert_le "$(((l6 - l4) * (l6 - l4)))" "$(((l4 / 5 + 20) ** 2))" "(c6$flow's losses - c4$flow's)^2: c6$flow $l6, c4$flow $l4"
done
# none of c6's before t0: the warm-up waited for BGP's IPv6 routes
t0=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .t')
assert_eq "$(awk -F, -v t="$t0" 'NR > 1 && $3 < t - 600000000 && $4 == "timeout"' "$r/requests-c6.csv" | wc -l)" 0 "c6's losses before t0"
echo "ok: c4 and c6 lost alike: anycast $(lost c4)/$(lost c6), dns $(lost c4-dns)/$(lost c6-dns)"
assert_no_leftovers $lab "$r"
