#!/usr/bin/env bash
# A result a newcomer can read (issue 22, items 2, 3 and 6), on two short
# real runs.
#
# ex-rec: site a crashes at 1 s (routing = static: routed's hold timer,
# static_hold 600 ms, deletes its route) and the timeline recovers it at
# 2.5 s. The failure and the fail-back are two episodes: no path
# exploration in either (the route coming back is the fail-back's), the
# fail-back's convergence counted from the recovery, each anycast client at
# a before, at b during the outage, at a again after; the decay table stops
# before the recovery and the fail-back's own table follows.
#
# ex-cmp: topology/compare.ini, shortened (fail at 1 s, 6 s of traffic):
# its DNS window is the sticky client c3's (it keeps an address 8 s), and
# the output names c3 as what held it, in the terminal and clocks.json;
# anycast left first. Its window is cut by the end of the traffic
# (window_cut): that warning is said once, after the title.
# about 20 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

rec=ex-rec cmp=ex-cmp
lab_guard $rec
lab_guard $cmp
trap "lab_cleanup $rec; lab_cleanup $cmp" EXIT
[ -x /usr/lib/frr/bgpd ] || fail "FRR is not installed (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)

cat >"$out/rec.ini" <<EOF2
[lab]
name = $rec
duration = 5s
static_hold = 600ms
static_refresh = 200ms
[router core]
[site a]
link = core
[site b]
link = core
[dns ns]
link = core
[prober p1]
link = core
[client c1]
link = core
mode = anycast
rate = 200
[client c2]
link = core
mode = anycast
rate = 200
[event e1]
at = 1s
action = crash
target = a
[event e2]
at = 2500ms
action = recover
target = a
[zone lab.example]
soa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5
ttl = 60
record = @ NS ns.lab.example.
record = ns A 198.18.0.10
[name www.lab.example]
policy = failover
primary = a
secondary = b
ttl = 1
EOF2

r=$out/rec
rc=0
run_valid "$r.txt" "$out/rec.ini" --out "$r" || rc=$?
[ $rc = 0 ] || fail "$rec: run exited with status $rc: $(tail -20 "$r.txt")"
c=$r/clocks.json
fib=.schemes.anycast.fib
assert_ge "$(json "$c" "$fib.routers_changed")" 1 "routers whose route changed in the failure"
assert_eq "$(json "$c" "$fib.path_exploration | length")" 0 "routers exploring in the failure"
[ "$(json "$c" "$fib.failback")" != null ] || fail "$rec: no fib.failback"
assert_ge "$(json "$c" "$fib.failback.routers_changed")" 1 "routers whose route changed in the fail-back"
assert_eq "$(json "$c" "$fib.failback.path_exploration | length")" 0 "routers exploring in the fail-back"
from=$(json "$c" "$fib.failback.from_s")
last=$(json "$c" "$fib.failback.last_s")
conv=$(json "$c" "$fib.failback.convergence_s")
assert_le "$(awk -v a="$conv" -v b="$last" -v f="$from" 'BEGIN { d = a - (b - f); print d < 0 ? -d : d }')" 0.000001 \
	"the fail-back's convergence is its last change less the recovery"
for id in 1 2; do
	got=$(json "$c" ".schemes.anycast.catchments[\"$id\"] | \"\(.before.site) \(.during.site) \(.after.site) \(.moved) \(.back)\"")
	[ "$got" = "a b a true true" ] || fail "$rec: client $id's catchment: $got (want a, b during, a after)"
done
grep -q '^failure: first FIB change .* 0 more than once (path exploration)$' "$r.txt" ||
	fail "$rec: the failure's FIB line: $(grep '^failure:' "$r.txt")"
grep -q '^fail-back (a recovered at .*convergence .* after the recovery; .* 0 more than once' "$r.txt" ||
	fail "$rec: the fail-back's FIB line: $(grep '^fail-back (' "$r.txt")"
grep -q ' (before recovery) ' "$r.txt" || fail "$rec: the decay table does not stop at the recovery"
grep -q "^fail-back: share of each scheme's requests sent to a again after its recovery" "$r.txt" ||
	fail "$rec: no fail-back table"
echo "ok: $rec: the failure and the fail-back are two episodes (FIB, catchments, decay)"

r=$out/cmp
rc=0
run_valid "$r.txt" topology/compare.ini --set name=$cmp --set duration=6s --set fail_at=1s \
	--out "$r" || rc=$?
[ $rc = 0 ] || fail "$cmp: run exited with status $rc: $(tail -20 "$r.txt")"
c=$r/clocks.json
[ "$(json "$c" .explain.first)" = anycast ] || fail "$cmp: explain.first: $(json "$c" .explain.first)"
held=$(json "$c" '.explain.schemes.dns.held_by | "\(.cause) \(.who)"')
[ "$held" = "sticky c3" ] || fail "$cmp: the DNS window held by: $held (want the sticky client c3)"
grep -q '^dns: its window, .* s, was held by the sticky client c3 ' "$r.txt" ||
	fail "$cmp: the terminal does not name c3: $(grep '^dns: its window' "$r.txt")"
grep -q '^anycast left a first: ' "$r.txt" || fail "$cmp: no verdict in words"
[ -s "$r/decay-causes.csv" ] && csv_header "$r/decay-causes.csv" | grep ',dns_sticky_share,dns_sticky' >/dev/null ||
	fail "$cmp: decay-causes.csv has no sticky column: $(csv_header "$r/decay-causes.csv")"
[ -s "$r/decay-causes.png" ] || fail "$cmp: no decay-causes.png"
grep -q '^## Who left first, and why$' "$r/report.md" || fail "$cmp: report.md has no explanation"
echo "ok: $cmp: the DNS window is held by the sticky client c3, by name"
# window_cut (c3 still sending when the traffic ended): said once
assert_eq "$(grep -c '(window_cut): ' "$r.txt")" 1 "lines saying window_cut in the terminal"
awk '/^\(site link / { getline; exit !($0 ~ /^[0-9]+ warnings? \(the run is valid/) }' "$r.txt" ||
	fail "$cmp: the warnings are not after the title: $(grep -A1 '^(site link ' "$r.txt")"
assert_eq "$(grep -c 'window_cut`' "$r/report.md")" 1 "lines saying window_cut in report.md"
head -1 "$r/report.md" | grep "^# Run report: lab $cmp\$" >/dev/null || fail "$cmp: report.md does not open with its title"
echo "ok: $cmp: window_cut said once, after the title"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_explain"
