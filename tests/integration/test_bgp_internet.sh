#!/usr/bin/env bash
# topology/bgp.ini, a small internet on BGP (three transit ASes in a ring, a
# site AS and a client on each): the routes cross three ASes (t1 holds c's
# route through t3 and b's through t2, with the AS paths the knobs make);
# before t0 each client's requests reach its own region's site; site a
# fails, c1's requests move to b (the [link t3 t1] prepend makes the path
# through t3 the longer) and c2's and c3's never change, on the replies and
# in the routers' FIBs; the run is valid. Then the knobs, in the file as a
# user would write them: the prepend moved to [link t1 t2] sends c1 to c
# instead; a site's prepend (a.prepend = 2) makes a a backup that c1 does
# not reach even before it fails; a local preference on [link t3 t1] at t1
# sends c1 to c, beating the shorter path to a. Each run may take up to
# the default settle of a BGP lab, 15 s, to converge.
# about 40 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-bgpnet
lab_guard $lab
run_pid=
trap 'set +e; if [ -n "$run_pid" ]; then kill -INT "$run_pid" 2>/dev/null; wait "$run_pid"; fi
	lab_cleanup '$lab'' EXIT
[ -x /usr/lib/frr/bgpd ] || fail "FRR is not installed (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
topo=$out/bgpnet.ini
sed "s/^name = bgp\$/name = $lab/" topology/bgp.ini >"$topo"
grep -q "^name = $lab\$" "$topo" || fail "topology/bgp.ini has no 'name = bgp' line"

# sites DIR CLIENT FROM TO: the sites that answered CLIENT's requests sent
# from FROM to TO (ns since the epoch, as requests-*.csv and t0 have them),
# "site=count" sorted by name, comma-separated
sites() {
	awk -F, -v from="$3" -v to="$4" '/^[0-9]/ && $4 == "ok" && $3 >= from && $3 < to { n[$5]++ }
		END { for (s in n) print s "=" n[s] }' "$1/requests-$2.csv" | sort | paste -sd, -
}
# only DIR CLIENT FROM TO SITE WHAT: every reply in the window came from SITE
only() {
	local got
	got=$(sites "$1" "$2" "$3" "$4")
	[[ $got =~ ^$5=[0-9]+$ ]] || fail "$6: $2's replies came from '$got', expected $5 only"
	echo "ok: $6: $2 -> $got"
}
# the knobs' runs shorter (the moves take well under a second)
short="--set duration=5s --set fail_at=2s"
# the run, in the background: while its traffic flows, before t0, t1's BGP
# table as vtysh shows it
start=$(date +%s%N)
$STEERLAB run "$topo" --quiet --out "$out/run" >"$out/run.txt" 2>&1 &
run_pid=$!
wait_until 40 has_event "$out/run/lab.events.jsonl" traffic_started ||
	{ cat "$out/run.txt"; fail "no traffic_started within 40 s"; }
# The warm-up waits for every router's best path (its FIB), not for the
# paths it does not choose: those may still be on their way when the
# traffic starts (a session that came up late, FRR's collision of two
# opens). They are waited for until t0, no longer: before t0 t1 must hold
# all three.
want="65002 65102 via 198.18.32.2,65003 65003 65103 via 198.18.32.9,65101 via 198.18.0.2 best"
t1_paths() {
	ip netns exec $lab-t1 vtysh --vty_socket /run/steerlab/$lab/frr/t1 \
		-c 'show bgp ipv4 unicast 198.19.0.1/32 json' |
		jq -r '.paths[] | "\(.aspath.string) via \(.nexthops[0].ip)\(if .bestpath.overall then " best" else "" end)"' |
		sort | paste -sd, -
}
paths=$(t1_paths)
while [ "$paths" != "$want" ] && ! has_event "$out/run/lab.events.jsonl" site_failed; do
	sleep 0.2
	paths=$(t1_paths)
done
echo "t1's paths to 198.19.0.1/32: $paths"
[ "$paths" = "$want" ] ||
	fail "t1's BGP paths before t0: expected a's (best), b's through t2 and c's through t3 prepended, got '$paths'"
echo "ok: routes cross three ASes: c's (AS 65103) reaches t1 (65001) through t3 (65003, prepended once)"
rc=0
wait $run_pid || rc=$?
[ $rc = 0 ] || { cat "$out/run.txt"; fail "run exited with status $rc"; }
run_pid=
r=$out/run
[ "$(json "$r/clocks.json" .valid)" = true ] || { cat "$out/run.txt"; fail "the run is not valid"; }
t0=$(jq -r 'select(.event == "site_failed") | .t' "$r/lab.events.jsonl")
after=$((t0 + 1000000000))
end=9999999999999999999
only "$r" c1 0 "$t0" a "before t0"
only "$r" c2 0 "$t0" b "before t0"
only "$r" c3 0 "$t0" c "before t0"
only "$r" c1 "$after" $end b "from t0 + 1 s"
only "$r" c2 "$t0" $end b "after t0"
only "$r" c3 "$t0" $end c "after t0"
# and in the FIBs: t1 moved from a to t2 (b), t2 and t3 kept theirs. What
# t1 had last before t0 counts: while the sessions came up it may have
# had b's route through t2 first, until a's own arrived (a loaded gate's
# bring-up did; the warm-up waits for the preferred route)
t1=$(jq -r --argjson t0 "$t0" 'select(.event == "route_added" and .prefix == "198.19.0.1/32")
	| "\(if .t < $t0 then "before" else "after" end) \(.via)"' "$r/t1.collector.events.jsonl" |
	awk '$1 == "before" { last = $0 } $1 == "after" { after = after $0 "," }
		END { print last "," after }')
[ "$t1" = "before 198.18.0.2,after 198.18.32.2," ] ||
	fail "t1's routes to the service: expected via a (the last before t0), then via t2, got '$t1'"
for router in t2 t3; do
	changed=$(route_changes "$r" $router "$t0")
	[ -z "$changed" ] || fail "$router's route to the service changed after t0: $changed"
done
echo "ok: t1's FIB moved from a to t2 (b) by BGP; t2's and t3's did not change; window" \
	"$(json "$r/clocks.json" .schemes.anycast.window_s) s"

# steerlab graph and steerlab merge on this run (tests/integration/graph_merge.sh)
. tests/integration/graph_merge.sh
graph_merge_check "$r"

# the prepend moved to [link t1 t2] (t2 announces to t1 with its AS twice):
# c1 goes to c instead, the others stay
sed -e "/^prepend = t3:1\$/d" -e "/^\[link t1 t2\]\$/a prepend = t2:1" "$topo" >"$out/flip.ini"
rc=0
run_valid "$out/flip.txt" "$out/flip.ini" --quiet $short --out "$out/flip" || rc=$?
[ $rc = 0 ] || { cat "$out/flip.txt"; fail "prepend on [link t1 t2]: run exited with status $rc"; }
[ "$(json "$out/flip/clocks.json" .valid)" = true ] || fail "prepend on [link t1 t2]: not valid"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$out/flip/lab.events.jsonl")
only "$out/flip" c1 0 "$t0" a "prepend t2:1, before t0"
only "$out/flip" c1 $((t0 + 1000000000)) $end c "prepend t2:1, from t0 + 1 s"
only "$out/flip" c2 0 $end b "prepend t2:1, throughout"
only "$out/flip" c3 0 $end c "prepend t2:1, throughout"

# a site's prepend: a announces itself three times over; t1 prefers b
# through t2 (two ASes) from the start: c1 never reaches a
rc=0
run_valid "$out/backup.txt" "$topo" --quiet $short --set a.prepend=2 --out "$out/backup" || rc=$?
[ $rc = 0 ] || { cat "$out/backup.txt"; fail "a.prepend=2: run exited with status $rc"; }
[ "$(json "$out/backup/clocks.json" .valid)" = true ] || fail "a.prepend=2: the run is not valid"
# (the warm-up waits for t1's route via t2: lab/build/bgpexpect.c)
only "$out/backup" c1 0 $end b "a.prepend=2, throughout"
only "$out/backup" c2 0 $end b "a.prepend=2, throughout"

# a local preference beats the AS path: t1 preferring what t3 brings
# (local_pref = t1:200 on [link t3 t1]) sends c1 to c while a is alive
sed -e "/^prepend = t3:1\$/a local_pref = t1:200" "$topo" >"$out/lp.ini"
rc=0
run_valid "$out/lp.txt" "$out/lp.ini" --quiet $short --out "$out/lp" || rc=$?
[ $rc = 0 ] || { cat "$out/lp.txt"; fail "local_pref = t1:200: run exited with status $rc"; }
[ "$(json "$out/lp/clocks.json" .valid)" = true ] || fail "local_pref = t1:200: the run is not valid"
only "$out/lp" c1 0 $end c "local_pref t1:200 from t3, throughout"
only "$out/lp" c2 0 $end b "local_pref t1:200 from t3, throughout"
only "$out/lp" c3 0 $end c "local_pref t1:200 from t3, throughout"

assert_no_leftovers $lab "$out/lp"
echo "bgp internet: $(( ($(date +%s%N) - start) / 1000000 )) ms for four runs"
rm -rf "$out"
