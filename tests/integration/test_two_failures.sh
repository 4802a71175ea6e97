#!/usr/bin/env bash
# Every failure of the timeline has its clocks (docs/clocks.md, "Every
# failure"): topology/two-failures.ini, sites a, b, c; a crashes at 2 s, b is
# killed at 4 s, c takes over; 6 s of traffic, both schemes.
#
# - The run is valid: b's losses and b dead are the timeline's (no
#   unexplained_loss, no healthy_site_dead).
# - clocks.json: the top level is a's failure, as for one failure; its
#   "failures" array holds b's (e2, sigkill, 2 s after a's t0, 4 s after the
#   traffic's start).
# - Each failure's clocks, both schemes, relative to its own t0: detect
#   within 1 s (a's anycast detect is the routers' hold timer, static_hold
#   600 ms + one static_refresh; the others a few probe intervals), steer
#   not before detect, the window bounded (no lower bound, < 1.9 s) and
#   requests lost at each site.
# - The clients' losses are the two failures': a's capture count plus b's
#   equals the clients' lost requests, per scheme (within 10 requests), and
#   the verdict compared them (no loss_unchecked, no loss_mismatch).
# - The table "every failure of the timeline" on the terminal and in
#   report.md, with b's row. Nothing of the lab remains.
# - The model of b's failure beside its row (a settled and out by then),
#   each clock inside it.
# - The same lab with a killed at 1 s, recovered at 2.5 s and killed again at
#   3.5 s: two failures of a, the first's window ending at the recovery, the
#   second's clocks from its own t0, the losses e1's and e3's; e1's
#   fail-back within its model; the model of e3 says why there is none (a
#   failure after its site's recovery).
# about 15 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
lab=${IT_PREFIX:-it}-twofail
lab_guard $lab

r=$out/run
rc=0
run_valid "$r.log" topology/two-failures.ini --set name=$lab --out "$r" || rc=$?
[ "$rc" = 0 ] || fail "run: exit status $rc (not a valid run): $(tail -30 "$r.log")"
echo "ok: run valid (exit 0)"
c=$r/clocks.json
[ "$(json "$c" .valid)" = true ] || fail "clocks.json: valid is $(json "$c" .valid)"
for code in unexplained_loss healthy_site_dead healthy_route_withdrawn clock_missing loss_unchecked \
	loss_mismatch; do
	assert_eq "$(json "$c" "[.warnings[] | select(.code == \"$code\")] | length")" 0 \
		"$code warnings"
done

# the failures
[ "$(json "$c" .failed.site)" = a ] || fail "the first failure is $(json "$c" .failed.site), not a"
assert_eq "$(json "$c" '.failures | length')" 1 "failures after the first"
f='.failures[0]'
[ "$(json "$c" "$f.site") $(json "$c" "$f.name") $(json "$c" "$f.how")" = "b e2 sigkill" ] ||
	fail "second failure: $(json "$c" "$f | {site, name, how}" | tr -d '\n')"
echo "ok: the second failure is b's (e2, sigkill)"
# each step at its instant after the traffic's start, up to 50 ms early
# (the stamps' rounding) or 200 ms late (a loaded machine starts a step
# late): a's at 2 s (b's at_s less its after_first_s), b's at 4 s. Not b's
# after a's within those bounds: a late a and an on-time b are nearer
assert_ge "$(json "$c" "$f.at_s - $f.after_first_s")" 1.95 "a's t0 after the traffic's start (s)"
assert_le "$(json "$c" "$f.at_s - $f.after_first_s")" 2.2 "a's t0 after the traffic's start (s)"
assert_ge "$(json "$c" "$f.at_s")" 3.95 "b's t0 after the traffic's start (s)"
assert_le "$(json "$c" "$f.at_s")" 4.2 "b's t0 after the traffic's start (s)"

# each failure's clocks, relative to its own t0
for scheme in anycast dns; do
	for where in ".schemes.$scheme" "$f.schemes.$scheme"; do
		what="$([ "$where" = ".schemes.$scheme" ] && echo a || echo b) $scheme"
		d=$(json "$c" "$where.detect_s")
		s=$(json "$c" "$where.steer_s")
		w=$(json "$c" "$where.window_s")
		assert_gt "$d" 0 "$what detect (s)"
		assert_le "$d" 1.0 "$what detect (s)"
		assert_ge "$s" "$d" "$what steer, not before detect (s)"
		assert_le "$s" 1.2 "$what steer (s)"
		assert_gt "$w" 0 "$what window (s)"
		assert_lt "$w" 1.9 "$what window (s)"
		[ "$(json "$c" "$where.window_lower_bound")" = false ] ||
			fail "$what window is a lower bound"
		assert_gt "$(json "$c" "$where.lost_capture")" 0 "$what requests lost at the site"
	done
	# a's losses and b's are all the clients lost
	lc=$(json "$c" ".schemes.$scheme.lost_client")
	sum=$(json "$c" ".schemes.$scheme.lost_capture + $f.schemes.$scheme.lost_capture")
	diff=$(awk -v a="$lc" -v b="$sum" 'BEGIN { d = a - b; print d < 0 ? -d : d }')
	assert_le "$diff" 10 "$scheme: |clients' lost ($lc) - a's and b's captured losses ($sum)|"
	assert_le "$(json "$c" "$f.schemes.$scheme.lost_client")" \
		"$(json "$c" "$f.schemes.$scheme.lost_capture")" "$scheme: b's lost (client) within its capture's"
done

# the table, on the terminal and in report.md
off=$(jq -rs '[.[] | select(.event == "site_failed") | .t] | (.[1] - .[0]) / 1e9' "$r/lab.events.jsonl" |
	awk '{ printf "%.3f", $1 }')
assert_gt "$off" 1.75 "b's failure after a's (s, as recorded: a up to 200 ms late)"
off=${off//./\\.}
for file in "$r.log" "$r/report.md"; do
	grep -q "every failure of the timeline" "$file" || fail "$file: no table of every failure"
	# b's t0 after a's as the lab recorded them (site_failed), not as
	# scheduled: a loaded machine starts a step tens of ms late
	grep -Eq "^e2 +b +sigkill +\\+$off +anycast +[0-9.]+ " "$file" ||
		fail "$file: no row of b's failure: $(grep -A6 'every failure' "$file")"
done
echo "ok: the table of every failure, with b's row, on the terminal and in report.md"
# the model of b's failure beside it (docs/model.md, "Every failure"): a's
# settled by then, a out: the anycast clients on b (metric 20 before c's
# 30), the DNS answer b (a's secondary): b's prober 0.25 s, TTL 1 s
for scheme in anycast dns; do
	m="$f.schemes.$scheme.model"
	assert_eq "$(json "$c" "$m.outside | length")" 0 "e2 $scheme: no clock outside the model's"
	assert_ge "$(json "$c" "$m.window_s.p50")" 0.2 "e2 $scheme: the model's window (s)"
	assert_le "$(json "$c" "$m.window_s.p50")" 1.01 "e2 $scheme: the model's window (s)"
done
# the model at the run's own t0 of b's failure: b's probes keep their
# phase from the traffic's start, and its clients' answers their expiry, so
# a step late by L (b's t0 after 4 s into the traffic; 16 ms once under the
# gate's load) shortens the DNS window by L: 1 s - L, to 10 ms
late=$(json "$c" "$f.at_s - 4")
dwin=$(json "$c" "$f.schemes.dns.model.window_s.p50")
assert_ge "$dwin" "$(awk -v l="$late" 'BEGIN { print 1 - l - 0.01 }')" "e2 dns: the model's window (s), 1 s less the step's lateness $late s"
assert_le "$dwin" "$(awk -v l="$late" 'BEGIN { print 1 - l + 0.01 }')" "e2 dns: the model's window (s), 1 s less the step's lateness $late s"
grep -Eq "^ +model +0\.2[0-9]{2} +0\.2[0-9]{2} +(0\.[89][0-9]{2}|1\.00[0-9]) " "$r.log" ||
	fail "no model row of b's DNS failure: $(grep -A8 'every failure' "$r.log")"
echo "ok: the model of b's failure beside its clocks, none outside"
assert_no_leftovers $lab "$r"

# --- the same site again after its recovery: a killed at 1 s, recovered at
# 2.5 s, killed again at 3.5 s (no second site_failed: the lab writes one per
# site; the step is the failure). Not at 2 s: the DNS clients' caches refill
# at whole seconds (TTL 1 s), and whether a refill came before or after a
# recovery at the same instant decides whether they had left a at all
sed -e 's/^duration = 6s/duration = 5s/' -e 's/^action = crash/action = kill/' -e 's/^at = 2s$/at = 1s/' \
	-e '/^\[event e2\]/,/^target = b/d' topology/two-failures.ini >"$out/again.ini"
cat >>"$out/again.ini" <<'EOF'

[event e2]
at = 2500ms
action = recover
target = a

[event e3]
at = 3.5s
action = kill
target = a
EOF
r2=$out/again
rc=0
run_valid "$r2.log" "$out/again.ini" --set name=$lab --out "$r2" || rc=$?
[ "$rc" = 0 ] || fail "run again: exit status $rc (not a valid run): $(tail -30 "$r2.log")"
c=$r2/clocks.json
echo "ok: run again valid (exit 0)"
assert_eq "$(json "$c" '.failures | length')" 1 "again: failures after the first"
[ "$(json "$c" "$f.site") $(json "$c" "$f.name") $(json "$c" "$f.how")" = "a e3 sigkill" ] ||
	fail "again: second failure: $(json "$c" "$f | {site, name, how}" | tr -d '\n')"
echo "ok: again: the second failure is a's again (e3, sigkill)"
# e1 at 1 s, e3 at 3.5 s after the traffic's start (as above: a starved
# machine stamped e1 82 ms late and e3 on time, 2.418 s apart)
assert_ge "$(json "$c" "$f.at_s - $f.after_first_s")" 0.95 "again: e1's t0 after the traffic's start (s)"
assert_le "$(json "$c" "$f.at_s - $f.after_first_s")" 1.2 "again: e1's t0 after the traffic's start (s)"
assert_ge "$(json "$c" "$f.at_s")" 3.45 "again: e3's t0 after the traffic's start (s)"
assert_le "$(json "$c" "$f.at_s")" 3.7 "again: e3's t0 after the traffic's start (s)"
for scheme in anycast dns; do
	# the first failure's window ends at the recovery, 1.5 s after its t0
	assert_lt "$(json "$c" ".schemes.$scheme.window_s")" \
		"$(json "$c" ".schemes.$scheme.failback.recovered_s")" \
		"again: e1 $scheme window, before the recovery (s)"
	d=$(json "$c" "$f.schemes.$scheme.detect_s")
	assert_gt "$d" 0 "again: e3 $scheme detect from its own t0 (s)"
	assert_le "$d" 1.0 "again: e3 $scheme detect from its own t0 (s)"
	assert_gt "$(json "$c" "$f.schemes.$scheme.lost_capture")" 0 \
		"again: e3 $scheme requests lost at a"
	assert_lt "$(json "$c" "$f.schemes.$scheme.window_s")" 1.4 "again: e3 $scheme window (s)"
	# the clients lose what the captures counted while a was out, and
	# what reached a after its recovery before its sited answered again
	# (the capture's count of the outage ends at the recovery; the
	# verdict's loss_mismatch counts them, and the run is valid)
	lc=$(json "$c" ".schemes.$scheme.lost_client")
	sum=$(json "$c" ".schemes.$scheme.lost_capture + $f.schemes.$scheme.lost_capture")
	assert_ge "$((lc + 10))" "$sum" "again: $scheme: clients' lost ($lc) + 10 >= e1's and e3's captured losses"
done
for code in loss_unchecked loss_mismatch unexplained_loss; do
	assert_eq "$(json "$c" "[.warnings[] | select(.code == \"$code\")] | length")" 0 \
		"again: $code warnings"
done
# e1's fail-back beside its model (docs/model.md, "Fail-back"): a's prober's
# probes keep their cycle, probe_up of them declare it alive; none of the
# fail-back's clocks outside the model's
for scheme in anycast dns; do
	assert_gt "$(json "$c" ".schemes.$scheme.model.failback.healthy_s.p50")" 0 \
		"again: e1 $scheme: the model's fail-back healthy (s)"
	assert_eq "$(json "$c" "[.schemes.$scheme.model.outside[] | select(startswith(\"failback\"))] | length")" 0 \
		"again: e1 $scheme: fail-back clocks outside the model's"
done
# a failure after its site's recovery: not modelled, said
[ "$(json "$c" "$f.schemes.dns.model.window_s")" = null ] ||
	fail "again: e3's model has a window: $(json "$c" "$f.schemes.dns.model" | tr -d '\n')"
echo "ok: again: e3's model says why not: $(json "$c" "$f.schemes.dns.model.not_modelled.window_s")"
assert_no_leftovers $lab "$r2"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_two_failures"
