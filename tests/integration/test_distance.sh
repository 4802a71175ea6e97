#!/usr/bin/env bash
# about 20 s
# Distance: a client whose own link is 15 ms each way ([link c1 core] delay =
# 15ms, tests/integration/data/distance.ini). `check` prints the link per
# direction, the mechanism this kernel needs (netem, or the delay line
# linkd) and the 30 ms RTT of each of its paths, and refuses a client
# timeout shorter than that (and run, a duplicate the delay line cannot
# make); while the lab is up the impairment is in place
# (a netem qdisc, or linkd and its nftables table in each impaired
# namespace); a run is valid and its client's RTT p50 before t0 is 30 ms
# within 5 %, in the records and in clocks.json's impairments; after `down`
# no linkd runs and no namespace (nor its table) is left. With 2 % loss
# towards the client, a run is still valid: its losses are the configured
# loss's (loss_configured), not unexplained_loss.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=tdist
topo=tests/integration/data/distance.ini
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

# the mechanism, as linkd and the lab detect it
mech=$(bin/linkd -M 2>/dev/null) || fail "linkd -M failed"
case $mech in
netem) mtext=netem ;;
delayline) mtext="delayline (linkd)" ;;
*) fail "linkd -M: expected netem or delayline, got '$mech'" ;;
esac

# check: the link per direction, the mechanism, the paths' RTT
$STEERLAB check $topo --set name=$lab >"$out/check.txt"
for want in "# impaired links, per direction, applied by $mtext:" "# link c1 core" \
	"#   c1>core: delay 15ms" "#   core>c1: delay 15ms" "#   rtt c1 a: 30ms (c1 core a)" \
	"#   rtt c1 b: 30ms (c1 core b)" "# configuration OK"; do
	grep -qxF -- "$want" "$out/check.txt" || fail "check does not print '$want': $(cat "$out/check.txt")"
done
echo "ok: check prints the link, its mechanism ($mtext) and the paths' RTT"

# a client timeout shorter than its path's RTT: refused, naming both
rc=0
$STEERLAB check $topo --set name=$lab --set c1.timeout=20ms >/dev/null 2>"$out/refused.txt" || rc=$?
[ "$rc" = 1 ] || fail "check with c1.timeout=20ms: exit $rc, expected 1"
want="--set c1.timeout=20ms: [client c1] timeout: 20ms is shorter than the configured RTT of its path to site 'a', 30ms (c1 core a); expected at least 30ms"
grep -qxF -- "$want" "$out/refused.txt" || fail "check's refusal: $(cat "$out/refused.txt")"
echo "ok: a timeout shorter than the path's RTT is refused, naming both"

# what the delay line cannot do (duplicate) is refused by run before anything is made
if [ "$mech" = delayline ]; then
	{ cat $topo; echo "duplicate = 1%"; } >"$out/dup.ini"
	line=$(wc -l <"$out/dup.ini")
	rc=0
	$STEERLAB run "$out/dup.ini" --set name=$lab --out "$out/dup" >"$out/dup.txt" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "run with duplicate over the delay line: exit $rc, expected 1"
	want="$out/dup.ini:$((line - 2)): c1>core: duplicate: the delay line (linkd) cannot duplicate packets; only netem can (mechanism: delayline (linkd))"
	grep -qxF -- "$want" "$out/dup.txt" || fail "run's refusal of duplicate: $(cat "$out/dup.txt")"
	[ -e "$out/dup" ] && fail "the refused run made its run directory"
	[ -e /run/steerlab/$lab ] && fail "the refused run made its state directory"
	echo "ok: duplicate over the delay line is refused before anything is made"
fi

# up: the impairment in place where it should be, and gone after down
$STEERLAB up $topo --set name=$lab --out "$out/up" >"$out/up.log" 2>&1 || fail "up: $(cat "$out/up.log")"
for node in c1 core; do
	if [ "$mech" = delayline ]; then
		ip netns exec $lab-$node nft list tables | grep -x 'table inet linkd' >/dev/null ||
			fail "no nftables table inet linkd in $lab-$node"
		awk -v n=$node '$3 == n && $4 == "linkd"' "$out/up/agents.tsv" | grep . >/dev/null ||
			fail "no linkd of $node in agents.tsv"
	else
		ip netns exec $lab-$node tc qdisc show | grep netem >/dev/null || fail "no netem qdisc in $lab-$node"
	fi
done
for node in a b; do
	awk -v n=$node '$3 == n && $4 == "linkd"' "$out/up/agents.tsv" | grep . >/dev/null &&
		fail "a linkd runs in $node, which has no impaired link"
done
echo "ok: up: the impairment is in place in c1 and core ($mech), not in the sites"
$STEERLAB down $lab >"$out/down.log" 2>&1 || fail "down: $(cat "$out/down.log")"
# every agent of agents.tsv, each linkd with them, gone (a zombie has exited)
assert_no_leftovers $lab "$out/up"
for ns in $(ip netns list | awk '{print $1}'); do
	case $ns in $lab-*) fail "namespace $ns (and its tables) left after down" ;; esac
done
echo "ok: down: no linkd, no namespace and so no table of $lab left"

# a run: valid, the client's RTT p50 before t0 is 30 ms within 5 %
run_valid "$out/run.log" $topo --set name=$lab --out "$rundir"
clocks=$rundir/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(run_codes "$rundir")"
t0=$(jq -r 'select(.event == "site_failed") | .t' "$rundir/lab.events.jsonl")
p50=$(awk -F, -v t0="$t0" '/^[0-9]/ && $4 == "ok" && $3 < t0 { print $6 }' "$rundir/requests-c1.csv" |
	sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.6f\n", v[int((NR + 1) / 2)] / 1e9 }')
n=$(awk -F, -v t0="$t0" '/^[0-9]/ && $4 == "ok" && $3 < t0' "$rundir/requests-c1.csv" | wc -l)
echo "c1: $n requests answered before t0, RTT p50 $p50 s"
assert_ge "$n" 300 "c1's requests answered before t0 (200/s for 3 s)"
assert_ge "$p50" 0.0285 "c1's RTT p50 in its records >= 30 ms - 5 %"
assert_le "$p50" 0.0315 "c1's RTT p50 in its records <= 30 ms + 5 %"
path='.impairments.paths[] | select(.client == "c1" and .site == "a")'
[ "$(json "$clocks" .impairments.mechanism)" = "$mech" ] ||
	fail "clocks.json's mechanism: $(json "$clocks" .impairments.mechanism), expected $mech"
assert_eq "$(json "$clocks" "$path | .configured_rtt_s")" 0.03 "clocks.json: configured RTT c1 to a"
cp50=$(json "$clocks" "$path | .measured_rtt_p50_s")
assert_ge "$cp50" 0.0285 "clocks.json: measured RTT p50 c1 to a >= 30 ms - 5 %"
assert_le "$cp50" 0.0315 "clocks.json: measured RTT p50 c1 to a <= 30 ms + 5 %"
[ "$(json "$clocks" "$path | .mismatch")" = false ] || fail "clocks.json: c1 to a mismatch"
assert_eq "$(json "$clocks" '[.warnings[] | select(.code == "impairment_mismatch")] | length')" 0 \
	"no impairment_mismatch"
assert_no_leftovers $lab "$rundir"
if [ "$mech" = delayline ]; then
	has_event "$rundir/c1.linkd.events.jsonl" linkd_summary || fail "c1's linkd did not stop cleanly"
	echo "ok: c1's linkd stopped cleanly (linkd_summary)"
fi

# a lossy link (2 % towards the client): its losses are the configured loss's, not the failure's
{ cat $topo; echo "core>c1.loss = 2%"; } >"$out/loss.ini"
run_valid "$out/loss.log" "$out/loss.ini" --set name=$lab --out "$out/loss"
clocks=$out/loss/clocks.json
[ "$(json "$clocks" .valid)" = true ] || fail "the lossy run is not valid: $(run_codes "$out/loss")"
assert_eq "$(json "$clocks" '[.warnings[] | select(.code == "unexplained_loss")] | length')" 0 \
	"lossy link: no unexplained_loss"
assert_eq "$(json "$clocks" '[.warnings[] | select(.code == "loss_configured")] | length')" 1 \
	"lossy link: its losses are loss_configured"
json "$clocks" '.warnings[] | select(.code == "loss_configured") | .message'
assert_eq "$(json "$clocks" '[.warnings[] | select(.code == "loss_unchecked")] | length')" 1 \
	"lossy link: loss_mismatch not checked (loss_unchecked)"
assert_eq "$(json "$clocks" '.impairments.paths[] | select(.site == "a") | .configured_loss_pct')" 2 \
	"clocks.json: configured loss c1 to a"
assert_no_leftovers $lab "$out/loss"
rm -rf "$out"
