#!/usr/bin/env bash
# Two routers linked to each other (topology/two-routers.ini, routing =
# static): `check` prints the router link, the ids, the AS numbers and each
# router's route to each site; the run is valid; before t0 each client's
# anycast requests reach the site of its own router (client side and in the
# captures), after site a fails every request goes to b, c1's through r2;
# both routers' FIB clocks are after t0, convergence is the last final
# change, the catchments are c1 a -> b and c2 b -> b (clocks.json, report.md);
# tshark reads the router link's capture; nothing of the lab remains. And `check` refuses a disconnected graph and
# a duplicate link at their lines, leaving nothing.
# about 10 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-multirtr
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
rundir=$out/run
capdump=${BUILD:-build/release}/tools/capdump
[ -x "$capdump" ] || fail "no $capdump (make all)"

# check: the generated values
$STEERLAB check topology/two-routers.ini --set name=$lab >"$out/check.out"
for want in '# router link 0: r1:r2 198.18.32.1/30 <-> r2:r1 198.18.32.2/30' \
	'# router 0, id 198.18.40.1/32 on lo' '# router 1, id 198.18.40.2/32 on lo' \
	'# to site b: 1 hop, via 198.18.32.2 dev r2, anycast metric 16777236' \
	'# to site a: 1 hop, via 198.18.32.1 dev r1, anycast metric 16777226' \
	'asn = 65002' '[link r1 r2]' 'routing = static'; do
	grep -qxF -- "$want" "$out/check.out" || fail "check does not print '$want'"
done
echo "ok: check prints the router link, ids, ASNs and routes"

# check refuses an island and a duplicate link, at their lines
cat >"$out/bad.ini" <<'EOF'
[lab]
name = bad
[router r1]
[router r2]
[router r3]
[link r1 r2]
[link r2 r1]
[site a]
link = r1
fail = yes
[client c1]
link = r2
EOF
rc=0
$STEERLAB check "$out/bad.ini" >/dev/null 2>"$out/bad.err" || rc=$?
cat "$out/bad.err"
[ "$rc" -eq 1 ] || fail "check of a bad graph: exit status $rc, expected 1"
grep -qF "$out/bad.ini:7: [link r2 r1]: duplicate: r2 and r1 are already linked at line 6" "$out/bad.err" ||
	fail "the duplicate link is not refused at line 7"
grep -qF "$out/bad.ini:5: [router r3]: not connected to router 'r1' (line 3)" "$out/bad.err" ||
	fail "the island r3 is not refused at line 5"
# the duplicate said, the island is checked once the links are right
sed -i '/^\[link r2 r1\]$/d' "$out/bad.ini"
rc=0
$STEERLAB check "$out/bad.ini" >/dev/null 2>"$out/bad.err" || rc=$?
[ "$rc" -eq 1 ] || fail "check of an island: exit status $rc, expected 1"
grep -qF "$out/bad.ini:5: [router r3]: not connected to router 'r1' (line 3): no [link] names it; expected a [link] section such as [link r1 r3]" "$out/bad.err" ||
	fail "the island r3 is not refused at line 5: $(cat "$out/bad.err")"
[ ! -e /run/steerlab/bad ] || fail "check left a state directory"
echo "ok: check refuses the duplicate link and the island at their lines"

# the run
run_valid - topology/two-routers.ini --out "$rundir" --set name=$lab --set duration=6s \
	--set fail_at=2s --quiet
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(json "$clocks" .warnings)"
echo "ok: a valid run"
t0=$(jq -cR 'fromjson? | select(.event == "site_failed") | .t' "$rundir/lab.events.jsonl")
[ -n "$t0" ] || fail "no site_failed"
# the failing site's route left both FIBs: r1's own, r2's through r1
jq -e '.routes == [{"router":"r1","via":"198.18.0.2","metric":10},{"router":"r2","via":"198.18.32.1","metric":16777226}]' \
	<(grep '"site_failed"' "$rundir/lab.events.jsonl") >/dev/null || fail "site_failed routes"
has_event "$rundir/r2.routed.events.jsonl" route_withdrawn || fail "r2's routed withdrew nothing"

# client side: the site of each reply, before t0 and from t0 + 1 s
sites() { # FILE FROM_NS TO_NS: "a=N b=M" of the replies of requests sent in [FROM, TO)
	awk -F, -v from="$2" -v to="$3" '/^[0-9]/ && $4 == "ok" && $3 >= from && $3 < to { n[$5]++ }
		END { printf "a=%d b=%d", n["a"], n["b"] }' "$1"
}
t1=$(awk -v t="$t0" 'BEGIN { printf "%.0f", t + 1e9 }')
c1_before=$(sites "$rundir/requests-c1.csv" 0 "$t0")
c2_before=$(sites "$rundir/requests-c2.csv" 0 "$t0")
c1_after=$(sites "$rundir/requests-c1.csv" "$t1" 9e18)
c2_after=$(sites "$rundir/requests-c2.csv" "$t1" 9e18)
echo "replies before t0: c1 $c1_before, c2 $c2_before; from t0 + 1 s: c1 $c1_after, c2 $c2_after"
n() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
assert_gt "$(n "$c1_before" a)" 1500 "c1 (on r1) reached a before t0"
assert_eq "$(n "$c1_before" b)" 0 "c1 replies from b before t0"
assert_gt "$(n "$c2_before" b)" 1500 "c2 (on r2) reached b before t0"
assert_eq "$(n "$c2_before" a)" 0 "c2 replies from a before t0"
assert_eq "$(n "$c1_after" a)" 0 "c1 replies from a after t0 + 1 s"
assert_gt "$(n "$c1_after" b)" 2500 "c1 reached b, through r2, after t0 + 1 s"
assert_eq "$(n "$c2_after" a)" 0 "c2 replies from a after t0 + 1 s"

# capture side: each site's link saw only its own router's client before t0
"$capdump" "$rundir" >"$out/requests.txt"
cap() { # LABEL CLIENT FROM TO: captured requests
	awk -v l="$1" -v c="$2" -v from="$3" -v to="$4" \
		'$1 == l && $2 == c && $4 >= from && $4 < to { n++ } END { print n + 0 }' "$out/requests.txt"
}
assert_gt "$(cap a 1 0 "$t0")" 1500 "capture-a: c1's requests before t0"
assert_eq "$(cap a 2 0 "$t0")" 0 "capture-a: c2's requests before t0"
assert_gt "$(cap b 2 0 "$t0")" 1500 "capture-b: c2's requests before t0"
assert_eq "$(cap b 1 0 "$t0")" 0 "capture-b: c1's requests before t0"
assert_eq "$(cap a 1 "$t1" 9e18)" 0 "capture-a: c1's requests after t0 + 1 s"
assert_gt "$(cap b 1 "$t1" 9e18)" 2500 "capture-b: c1's requests after t0 + 1 s"

# the FIB clocks: every router's route to the service changed after t0, r1's
# from a to b (through r2), r2's stayed b; convergence is the last final
# change; the catchments: c1 a then b, c2 b throughout
fib=.schemes.anycast.fib
for r in r1 r2; do
	assert_ge "$(json "$clocks" "$fib.routers.$r.changes")" 1 "$r's FIB changes after t0"
	assert_gt "$(json "$clocks" "$fib.routers.$r.first_s")" 0 "$r's first FIB change after t0"
	assert_ge "$(json "$clocks" "$fib.routers.$r.final_s")" \
		"$(json "$clocks" "$fib.routers.$r.first_s")" "$r's final change after its first"
	assert_ge "$(json "$clocks" "$fib.convergence_s")" "$(json "$clocks" "$fib.routers.$r.final_s")" \
		"convergence after $r's final change"
	[ "$(json "$clocks" "$fib.routers.$r.after.protocol")" = 252 ] || fail "$r's route is not routed's"
done
[ "$(json "$clocks" "$fib.routers | keys | join(\" \")")" = "r1 r2" ] ||
	fail "FIB clocks of routers $(json "$clocks" "$fib.routers | keys")"
conv=$(json "$clocks" "$fib.convergence_s")
[ "$conv" = "$(json "$clocks" "[$fib.routers[].final_s] | max")" ] ||
	fail "convergence $conv is not the last router's final change"
[ "$(json "$clocks" "$fib.last_s")" = "$conv" ] || fail "last FIB change != convergence"
assert_le "$(json "$clocks" "$fib.first_s")" "$conv" "first FIB change before convergence"
assert_eq "$(json "$clocks" "$fib.routers_changed")" 2 "routers whose FIB changed"
[ "$(json "$clocks" "$fib.path_exploration | length")" = 0 ] || fail "path exploration under static routing"
for want in "r1 before a" "r1 after b" "r2 before b" "r2 after b"; do
	set -- $want
	[ "$(json "$clocks" "$fib.routers.$1.$2.site")" = "$3" ] ||
		fail "$1's route $2 t0 leads to $(json "$clocks" "$fib.routers.$1.$2.site"), not $3"
done
[ "$(json "$clocks" "$fib.routers.r1.after.via[0]")" = 198.18.32.2 ] || fail "r1's route after is not via r2"
echo "ok: FIB clocks: r1 and r2 changed after t0 ($(json "$clocks" "$fib.routers.r1.first_s") s," \
	"$(json "$clocks" "$fib.routers.r2.first_s") s), convergence $conv s; r1 a -> b through r2, r2 b"
catch=.schemes.anycast.catchments
for want in "1 c1 a b true" "2 c2 b b false"; do
	set -- $want
	got="$(json "$clocks" "$catch[\"$1\"] | [.node, .before.site, .after.site, .moved] | join(\" \")")"
	[ "$got" = "$2 $3 $4 $5" ] || fail "catchment of client $1: '$got', expected '$2 $3 $4 $5'"
	assert_gt "$(json "$clocks" "$catch[\"$1\"].after.of")" 1000 "client $1's replies after convergence"
	[ "$(json "$clocks" "$catch[\"$1\"].after.replies")" = "$(json "$clocks" "$catch[\"$1\"].after.of")" ] ||
		fail "client $1 reached another site too after convergence"
done
grep -q '^## Routing' "$rundir/report.md" || fail "report.md has no routing section"
grep -qE '^\| 1 +\| c1 +\| a \(20 of 20\) +\| b \([0-9]+ of [0-9]+\) +\| +yes \|$' "$rundir/report.md" ||
	fail "report.md has no catchment row for c1: $(grep -A6 '### Catchments' "$rundir/report.md")"
echo "ok: catchments c1 a -> b, c2 b -> b, in clocks.json and report.md"

# the router link's capture: tshark reads it; under static routing no BGP
link=$rundir/capture-link-r1-r2.pcap
[ -e "$link" ] || fail "no capture-link-r1-r2.pcap"
assert_eq "$(tshark -r "$link" -Y bgp 2>/dev/null | wc -l)" 0 "BGP messages under routing = static"
tshark -r "$link" >/dev/null 2>"$out/tshark.err" || fail "tshark cannot read $link: $(cat "$out/tshark.err")"
echo "ok: tshark reads capture-link-r1-r2.pcap (no BGP under routing = static)"

assert_no_leftovers $lab "$rundir"
