#!/usr/bin/env bash
# Anycast over BGP in both families, and an IPv6 route withdrawn alone
# (docs/topology.md, "IPv6"; issue 28): topology/dual-stack.ini with
# routing = bgp and BFD. Each BGP speaker has an IPv6 session beside each
# IPv4 one, carrying IPv6 unicast alone, and each site announces the
# service's IPv6 address (its prober keeps it on lo beside the IPv4 one);
# the warm-up waits until every router's FIB has both. At 3 s the link
# between a and r1 stops carrying IPv6 (a link-down of family = 6: IPv4
# goes on): the probes (IPv4) see nothing, but the IPv6 BGP session's BFD
# goes down and r1 withdraws a's IPv6 route alone, moving IPv6 to r2 (b).
# The run is valid; the anycast steer is the IPv6 route's leaving (fib6,
# the IPv6 FIB clocks, next hops as their IPv4 twins), within BFD's
# detection time; r1's IPv4 route never changes; c4 loses nothing, c6's
# anycast flow loses what it sent until the IPv6 route left, and cd
# (Happy Eyeballs) loses nothing, its IPv6 requests answered over IPv4.
# Then a drain of IPv6 alone (a's IPv6 announcement withdrawn: its prober
# keeps the service's IPv6 address off lo, SIGUSR2): r1's IPv6 route moves
# to r2 within a BGP round, its IPv4 route stays, and nothing is lost (a
# keeps answering what still comes its way, from the address it no longer
# has); with routing = static it is refused (one announcement for both).
# about 20 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-ipv6b
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

check_refused "family on a drain with routing = static" "\[event a-ipv6\] family: a drain of one address family withdraws that family's announcement: routing = bgp" \
	topology/dual-stack.ini --set a-ipv6.action=drain
run_valid "$out/run.txt" topology/dual-stack.ini --set name=$lab --set routing=bgp --set bfd=yes \
	--set a-ipv6.action=link-down --set duration=6s -q --out "$r" ||
	fail "the run: $(tail -20 "$out/run.txt")"
echo "ok: the run is valid"

# FRR's configuration: an IPv6 session beside each IPv4 one, IPv6 unicast
grep -q '^ address-family ipv6 unicast$' "$r/r1.bgpd.conf" || fail "r1's bgpd has no IPv6 unicast family"
grep -q '^  neighbor 2001:2::2 activate$' "$r/r1.bgpd.conf" || fail "r1 does not activate its IPv6 session to a"
grep -q '^  no neighbor 2001:2::2 activate$' "$r/r1.bgpd.conf" || fail "r1's IPv6 session to a carries IPv4"
grep -q '^ neighbor 2001:2::2 bfd profile' "$r/r1.bgpd.conf" || fail "r1's IPv6 session to a has no BFD"
grep -q 'STEERLAB-SERVICE6 seq 5 permit 2001:2:0:ff00::1/128' "$r/a.bgpd.conf" || fail "a does not announce the service's IPv6 address"
for p in 198.19.0.1/32 2001:2:0:ff00::1/128; do
	[ "$(json "$r/a.prober.events.jsonl" "select(.event == \"address_added\" and .prefix == \"$p\") | .prefix" | wc -l)" -ge 1 ] ||
		fail "a's prober did not put $p on lo"
done
echo "ok: bgpd: IPv6 sessions (BFD) for IPv6 unicast; a's prober keeps both addresses on lo"

[ "$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | "\(.how) \(.family)"')" = "link-down 6" ] ||
	fail "site_failed is no link-down of family 6"
grep -q "warning (gray_undetected): anycast: site a: not detected within the run: IPv6 alone was taken out (a link-down of one family)" "$out/run.txt" ||
	fail "no gray_undetected of anycast: $(grep warning "$out/run.txt")"

# the IPv6 FIB: r1 moved to r2 (198.18.32.2, the twin of 2001:2:0:1000::2)
# when BFD took the IPv6 session down; the IPv4 FIB did not change
fib() { json "$r/clocks.json" ".schemes.anycast.$1"; }
[ "$(fib 'fib6 != null')" = true ] || fail "clocks.json has no anycast fib6"
[ "$(fib 'fib6.routers.r1.after.via[0]')" = 198.18.32.2 ] || fail "r1's IPv6 route after t0: $(fib 'fib6.routers.r1.after')"
[ "$(fib 'fib.routers.r1.after.via[0]')" = 198.18.0.2 ] || fail "r1's IPv4 route after t0: $(fib 'fib.routers.r1.after')"
assert_eq "$(fib fib.routers_changed)" 0 "routers whose IPv4 route changed"
steer=$(fib steer_s)
assert_eq "$steer" "$(fib fib6.first_s)" "anycast steer (s): the IPv6 route's leaving"
# BFD: three intervals of 300 ms, and the session's teardown
assert_ge "$steer" 0.6 "anycast steer (s)"
assert_le "$steer" 2 "anycast steer (s)"
grep -q '^FIB (IPv6): ' "$out/run.txt" || fail "the report has no IPv6 FIB table"
echo "ok: IPv6 FIB: r1's IPv6 route left a at $steer s (BFD), the IPv4 route stayed"

fam() { json "$r/clocks.json" ".families[] | select(.family == \"$1\") | .$2"; }
assert_eq "$(fam 4 lost_after_t0)" 0 "IPv4 clients' losses after t0"
assert_eq "$(fam dual lost_after_t0)" 0 "dual clients' losses after t0"
assert_gt "$(fam dual rescued)" 0 "dual clients' requests rescued over IPv4"
lost() { awk -F, '/^[0-9]/ && $4 == "timeout"' "$r/requests-$1.csv" | wc -l; }
# c6's anycast flow: what it sent from the drop until the IPv6 route left
# (from its records: a client the loaded gate held sends fewer), give or
# take the requests in flight at either end
t0=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .t')
done_ns=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .killed_ns')
gone_ns=$(awk -v t="$t0" -v s="$steer" 'BEGIN { printf "%.0f", t + s * 1e9 }')
sent=$(awk -F, -v a="$done_ns" -v b="$gone_ns" '/^[0-9]/ && $3 >= a && $3 < b' "$r/requests-c6.csv" | wc -l)
assert_gt "$sent" 300 "c6's anycast requests sent between the drop and the IPv6 route's leaving"
l6=$(lost c6)
assert_ge "$l6" "$((sent - 5))" "c6's anycast losses ($sent sent between the drop and the route's leaving)"
assert_le "$l6" "$((sent + 60))" "c6's anycast losses ($sent sent between the drop and the route's leaving)"
# none of c6's before t0: the warm-up waited for BGP's IPv6 routes
assert_eq "$(awk -F, -v t="$t0" '/^[0-9]/ && $3 < t - 600000000 && $4 == "timeout"' "$r/requests-c6.csv" | wc -l)" 0 "c6's losses before t0"
echo "ok: families: IPv4 lost 0, c6 (anycast) $l6, dual 0 with $(fam dual rescued) rescued over IPv4"
assert_no_leftovers $lab "$r"

# --- a drain of IPv6: a's IPv6 announcement withdrawn, nothing lost
r=$out/drain
run_valid "$out/drain.txt" topology/dual-stack.ini --set name=$lab --set routing=bgp \
	--set a-ipv6.action=drain --set duration=5s -q --out "$r" || fail "the run: $(tail -20 "$out/drain.txt")"
[ "$(json "$r/a.prober.events.jsonl" 'select(.event == "prober_withheld") | .family')" = 6 ] ||
	fail "a's prober took no SIGUSR2 with 6"
[ "$(json "$r/a.prober.events.jsonl" 'select(.event == "address_removed") | .prefix')" = "2001:2:0:ff00::1/128" ] ||
	fail "a's prober did not take the IPv6 address (alone) off lo"
steer=$(jq -r '.schemes.anycast.steer_s' "$r/clocks.json")
assert_le "$steer" 1 "anycast steer (s): r1's IPv6 route leaving a"
assert_eq "$(jq -r '.schemes.anycast.fib.routers_changed' "$r/clocks.json")" 0 "routers whose IPv4 route changed"
assert_eq "$(jq -r '.schemes.anycast.fib6.routers_changed' "$r/clocks.json")" 1 "routers whose IPv6 route changed"
for c in c4 c6 cd; do
	assert_eq "$(lost $c)" 0 "$c's anycast losses"
done
# the catchments after the IPv6 routes' change: c6 (and cd, IPv6 first) on
# b, c4 still on a
catch() { jq -r ".schemes.anycast.catchments[] | select(.node == \"$1\") | \"\(.after.site) \(.moved)\"" "$r/clocks.json"; }
for want in "c4 a false" "c6 b true" "cd b true"; do
	got=$(catch "${want%% *}")
	[ "$got" = "${want#* }" ] || fail "${want%% *}'s catchment after the drain: '$got', expected '${want#* }'"
done
echo "ok: catchments after the IPv6 routes' change: c4 on a, c6 and cd moved to b"
echo "ok: a drain of IPv6: r1's IPv6 route left a at $steer s, its IPv4 route stayed, nothing lost"
assert_no_leftovers $lab "$r"
