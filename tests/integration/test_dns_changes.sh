#!/usr/bin/env bash
# DNS changes during a run (issue 27 item 3), on topology/maintenance.ini:
# two names hand out sites a and b at a TTL of 10 s; right's TTL is lowered
# to 1 s at 1 s (set-ttl), a is drained out of both at 13 s (set-weight a 0)
# and killed at 17 s. Checked: each change reached authd from the lab
# (event_applied with the serial authd answered, zone_changed with the same,
# serials one apart); the new TTL is in authd's answers on the capture of
# its link (tshark): right's answers before the change 10, after it 1,
# wrong's 10 throughout; the drain was handed out at once (answer_changed);
# and the maintenance done right loses nothing while the one done wrong
# loses requests: right's clients' records have none lost and its caches'
# clients sent nothing to a after t0, wrong's lost some, each a request to a
# captured after t0; the shares per second and the weights table say the
# same (shares.csv: right's requests to a end 2 s after the drain). Bounds a busy machine cannot
# break: right's caches had 3 s after the drain (one new TTL and a
# second's rounding, plus 2 s) and 11 s after the TTL change (one old TTL
# plus 1 s) before each step that relies on them; wrong's stale answers
# last up to 10 s after the drain, 6 s past the kill, and a loss is any one.
# about 32 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-dnschg
lab_guard $lab
command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" topology/maintenance.ini --set name=$lab --out "$rundir" ||
	{ cat "$out/run.log"; fail "steerlab run of topology/maintenance.ini failed"; }
clocks=$rundir/clocks.json
authd=$rundir/ns.authd.events.jsonl
[ "$(json "$clocks" .valid)" = true ] || fail "the run is not valid: $(run_codes "$rundir")"
grep -q "at 1.0 s: set-ttl dns ns: right.lab.example ttl 1s (serial 2024010102)" "$out/run.log" ||
	fail "run did not say the set-ttl with its serial"

# each change: the lab's record of it and authd's, the same serial
for ev in lower drain-right drain-wrong; do
	lab_serial=$(jq -r --arg n $ev 'select(.event == "event_applied" and .name == $n) | .serial' \
		"$rundir/lab.events.jsonl")
	authd_serial=$(jq -r --arg n $ev 'select(.event == "zone_changed" and .id == $n) | .serial' "$authd")
	[ -n "$lab_serial" ] && [ "$lab_serial" = "$authd_serial" ] ||
		fail "$ev: event_applied's serial '$lab_serial', zone_changed's '$authd_serial'"
	echo "ok: $ev applied, serial $lab_serial"
done
[ "$(jq -s '[.[] | select(.event == "zone_changed") | .serial] == [2024010102, 2024010103, 2024010104]' "$authd")" = true ] ||
	fail "the serials are not one apart from the zone's 2024010101"
[ "$(json "$authd" 'select(.event == "authd_summary") | .changes')" = 3 ] || fail "authd counted other than 3 changes"
[ "$(json "$authd" 'select(.event == "authd_summary") | .rejected_changes')" = 0 ] ||
	fail "authd rejected a change of the lab's"
# the drain, handed out at once: answer_changed for each name, a gone
for n in right wrong; do
	jq -s -e --arg n "$n.lab.example." '[.[] | select(.event == "answer_changed") |
		select(.name == $n and (.reason | startswith("weight of site a 0"))) | .after] ==
		[["198.19.1.2"]]' "$authd" >/dev/null || fail "$n: no answer_changed without a after the drain"
done
echo "ok: the drain changed what both names hand out"

# the new TTL in authd's answers on its link's capture
t_ttl=$(json "$authd" 'select(.event == "zone_changed" and .what == "set-ttl") | .t')
answers() {
	tshark -r "$rundir/capture-dns-ns.pcap" \
		-Y "dns.flags.response == 1 && dns.qry.name == \"$1\" && dns.count.answers > 0" \
		-T fields -e frame.time_epoch -e dns.resp.ttl 2>/dev/null
}
answers right.lab.example >"$out/right"
answers wrong.lab.example >"$out/wrong"
# frame.time_epoch to the nanosecond, compared as integers
read -r before_10 before_other after_1 after_other < <(awk -v t="$t_ttl" '{
	split($1, p, "."); ns = p[1] * 1000000000 + substr(p[2] "000000000", 1, 9)
	if (ns < t) { if ($2 == 10) b10++; else bo++ } else { if ($2 == 1) a1++; else ao++ }
} END { print b10 + 0, bo + 0, a1 + 0, ao + 0 }' "$out/right")
echo "right.lab.example: $before_10 answers of TTL 10 before the change ($before_other other), $after_1 of TTL 1 after ($after_other other)"
assert_ge "$before_10" 8 "right's first answers, one per cache, have the old TTL"
assert_eq "$before_other" 0 "right's answers before the change have no other TTL"
assert_ge "$after_1" 100 "right's answers after the change, the caches asking every second"
assert_eq "$after_other" 0 "every answer for right after the change has the new TTL"
assert_eq "$(awk '$2 != 10' "$out/wrong" | wc -l)" 0 "wrong's answers keep the TTL of 10 s"
assert_ge "$(wc -l <"$out/wrong")" 8 "wrong's answers"

# the maintenance: right loses nothing, wrong loses requests, all to a
lost() { awk -F, '/^[0-9]/ && $4 != "ok"' "$rundir/requests-$1-dns.csv" | wc -l; }
sent() { awk -F, '/^[0-9]/' "$rundir/requests-$1-dns.csv" | wc -l; }
right_lost=$(lost cright)
wrong_lost=$(lost cwrong)
echo "right: $right_lost lost of $(sent cright); wrong: $wrong_lost lost of $(sent cwrong)"
assert_ge "$(sent cright)" 4000 "right's clients sent for the whole run"
assert_eq "$right_lost" 0 "the maintenance done right loses nothing"
assert_eq "$(json "$clocks" .resolvers.nodes.rright.dead_after_t0)" 0 \
	"right's clients sent nothing to a after it was killed"
wrong_dead=$(json "$clocks" .resolvers.nodes.rwrong.dead_after_t0)
assert_ge "$wrong_lost" 20 "the maintenance done wrong loses requests"
# the requests to a after t0 on its capture are those lost, but for the few
# a answered in the instant between t0's stamp and its sited's end (the
# verdict's loss_mismatch allows 10)
assert_le "$wrong_lost" "$wrong_dead" "wrong's lost requests are requests to a after t0 on a's capture"
assert_ge "$wrong_lost" "$((wrong_dead - 10))" "wrong's requests to a after t0 were lost"
window=$(json "$clocks" .resolvers.nodes.rwrong.window_s)
assert_le "$window" 6.5 "wrong's stale answers ran out 10 s after the drain, 6 s after the kill"

# the shares per second (shares.csv): right's clients all off a by 2 s
# after the drain (a new TTL, and a client's rounding of it), long before
# the kill; wrong's still sending to a after it
[ -s "$rundir/shares.csv" ] || fail "no shares.csv"
col() { csv_header "$rundir/shares.csv" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
ra=$(col right.lab.example_a)
wa=$(col wrong.lab.example_a)
[ -n "$ra" ] && [ -n "$wa" ] || fail "shares.csv has no column of a's requests for right or wrong"
assert_eq "$(awk -F, -v c="$ra" '/^[0-9]/ && $1 >= 15 { n += $c } END { print n + 0 }' "$rundir/shares.csv")" 0 \
	"right's requests to a from 2 s after the drain on (shares.csv)"
# [17 s, end) holds every request after t0, stamped a little after 17 s
assert_ge "$(awk -F, -v c="$wa" '/^[0-9]/ && $1 >= 17 { n += $c } END { print n + 0 }' "$rundir/shares.csv")" \
	"$wrong_dead" "wrong's requests to a from the kill on (shares.csv)"
# the weights table: wrong's share of a after the drain, right's smaller
share() {
	json "$clocks" ".weights.names[\"$1.lab.example\"].periods[1].shares.a"
}
assert_gt "$(share wrong)" "$(share right)" "wrong's share of a after the drain is above right's"
grep -q "^## Weights" "$rundir/report.md" || fail "report.md has no weights section"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
