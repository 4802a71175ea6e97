#!/usr/bin/env bash
# steerlab model (lab/cli/cmd_model.c, docs/model.md): the JSON of
# topology/compare.ini parses and has clocks.json's scheme keys, each
# interval {p5, p50, p95}; the table has its rows; bad input is refused as
# steerlab check refuses it; inverse design (--target, --vary: every point
# listed meets the target, cheapest first, as the model predicts it alone).
# No root: nothing is built.
set -euo pipefail
cd "$(dirname "$0")/../.."
steerlab=${OUTBIN:-bin}/steerlab
tmp=$(mktemp -d /tmp/steerlab-model.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

"$steerlab" model topology/compare.ini --json >"$tmp/m.json"
for key in .schemes.anycast.detect_s.p5 .schemes.anycast.detect_s.p50 .schemes.anycast.detect_s.p95 \
	.schemes.dns.detect_s.p50 .schemes.dns.steer_s.p50 .schemes.dns.window_s.p95 \
	.schemes.dns.last_per_client_s.p50.p50 .schemes.dns.lost_client.p50 \
	.schemes.dns.budget.equivalent_downtime_s.p50 .schemes.dns.budget.budget_share_downtime.p50 \
	.schemes.dns.upstream_queries.p50 .schemes.dns.upstream_queries_per_s.p50; do
	jq -e "$key | numbers" "$tmp/m.json" >/dev/null || fail "model --json: no number at $key"
done
# BGP across one AS hop: steer is detect plus FRR's floor of 122 ms
jq -e '(.schemes.anycast.steer_s.p50 - .schemes.anycast.detect_s.p50 - 0.122) | fabs < 1e-6' \
	"$tmp/m.json" >/dev/null || fail "model --json: anycast steer under BGP is not detect + 0.122"
# what is not modelled is null with its reason, never a made-up zero: iBGP
# (two routers of one AS)
"$steerlab" model topology/bgp.ini --set t1.asn=65001 --set t2.asn=65001 --json >"$tmp/b.json"
jq -e '.schemes.anycast.steer_s == null and (.schemes.anycast.not_modelled.steer_s | test("iBGP"))' \
	"$tmp/b.json" >/dev/null || fail "model --json: anycast steer under iBGP not null with a reason"
# BGP over AS hops is modelled: bgp.ini's c1 leaves at t1's FIB change
"$steerlab" model topology/bgp.ini --json >"$tmp/b.json"
jq -e '(.schemes.anycast.window_s.p50 - .schemes.anycast.steer_s.p50) | fabs < 1e-9' \
	"$tmp/b.json" >/dev/null || fail "model --json: bgp.ini's window is not its steer"
jq -e '.assumptions | length > 0' "$tmp/m.json" >/dev/null || fail "model --json: no assumptions"
# the sticky client holds the DNS window: 8 s resolutions, the kill at 3 s
jq -e '.schemes.dns.window_s.p50 == 5' "$tmp/m.json" >/dev/null ||
	fail "model --json: dns window is not 5 s"

"$steerlab" model topology/compare.ini --set routing=static --json >"$tmp/s.json"
jq -e '.schemes.anycast.window_s.p50 > 0.2 and .schemes.anycast.window_s.p50 < 0.3' \
	"$tmp/s.json" >/dev/null || fail "model --set routing=static: anycast window not in (0.2, 0.3)"

"$steerlab" model topology/compare.ini >"$tmp/table"
for row in 'detect (s)' 'steer (s)' 'window (s)' 'lost (requests)' 'equivalent downtime (s)' \
	'assumptions:' 'not modelled:'; do
	grep -F -- "$row" "$tmp/table" >/dev/null || fail "model: no row '$row'"
done

# refused as check refuses: the --set's error, exit status 1; no file: 2
rc=0
"$steerlab" model topology/compare.ini --set bogus=1 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] || fail "model --set bogus=1: exit status $rc, expected 1"
grep -F -- "--set bogus=1: unknown key 'bogus' in [lab]" "$tmp/err" >/dev/null ||
	fail "model --set bogus=1: $(cat "$tmp/err")"
rc=0
"$steerlab" model >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "model without a file: exit status $rc, expected 2"
# a steady state: no failure, the model of its steering (docs/model.md,
# "Steady state"): seed 000's geolocation and latency rows exactly, the
# groups' request shares (195 + 101 and 195 + 88 of 514 at b34)
"$steerlab" model topology/policies.ini >"$tmp/out" 2>"$tmp/err" ||
	fail "model of a steady state: $(cat "$tmp/err")"
grep -E '^dns +geo.lab.example +geolocation \| +57.6% +25.3% +17.1% \| +0.076 \| +30840 \| +34.202' \
	"$tmp/out" >/dev/null || fail "model of policies.ini: no geolocation row: $(cat "$tmp/out")"
"$steerlab" model topology/policies.ini --json >"$tmp/p.json"
jq -e '.steady_state and
	(.steering.schemes.dns.names["geo.lab.example"].share.b34.p50 - 296 / 514 | fabs < 1e-9) and
	(.steering.schemes.dns.names["lat.lab.example"].share.b34.p50 - 283 / 514 | fabs < 1e-9) and
	(.steering.schemes.dns.names["w.lab.example"].share.b34 | .p5 < .p95) and
	(.steering.schemes.dns.names["w.lab.example"] | has("requests") and has("target") and
		has("deviation") and has("rtt_mean_ms") and has("upstream_queries"))' \
	"$tmp/p.json" >/dev/null || fail "model --json of policies.ini: steering not as expected"
# a failure's lab: the steering before it too
jq -e '.steering.schemes.dns.share.a.p50 == 1 and .steering.schemes.dns.names["www.lab.example"].policy == "failover"' \
	"$tmp/m.json" >/dev/null || fail "model --json of compare.ini: no steering before the failure"

# Inverse design (docs/model.md, "Inverse design"): the settings of a grid
# that meet a target, cheapest first. Each point listed must meet it, and
# be what `steerlab model` alone predicts for it over the same day of traffic.
"$steerlab" model topology/compare.ini --target 'dns.window<=30s' \
	--vary ttl=5..300,probe_interval=1s..30s --json >"$tmp/d.json"
jq -e '.points == 120 and (.meet | length) > 0 and (.miss | length) > 0 and
	((.meet | length) + (.miss | length) == 120)' "$tmp/d.json" >/dev/null ||
	fail "design: not 120 points split into meet and miss"
jq -e 'all(.meet[]; .targets[0].value <= 30 and .targets[0].met)' "$tmp/d.json" >/dev/null ||
	fail "design: a listed point's window p95 is over 30 s"
jq -e 'all(.miss[]; .targets[0].value > 30)' "$tmp/d.json" >/dev/null ||
	fail "design: a point that misses has its window p95 within 30 s"
# cheapest first: upstream queries a second, then probes a second, never down
jq -e '[.meet[] | [.upstream_queries_per_s, .probes_per_s]] as $c |
	$c == ($c | sort) and .meet[0].rank == 1' "$tmp/d.json" >/dev/null ||
	fail "design: the points that meet are not cheapest first"
# the cheapest and the last listed, modelled alone over a day: the same figures
for i in 0 -1; do
	ttl=$(jq -r ".meet[$i].set.ttl" "$tmp/d.json")
	pi=$(jq -r ".meet[$i].set.probe_interval" "$tmp/d.json")
	"$steerlab" model topology/compare.ini --set "ttl=$ttl" --set "probe_interval=$pi" \
		--set duration=1d --json >"$tmp/one.json"
	jq -e --slurpfile d "$tmp/d.json" --argjson i "$i" \
		'.schemes.dns.window_s.p95 == $d[0].meet[$i].targets[0].value and
		.schemes.dns.upstream_queries_per_s.p50 == $d[0].meet[$i].upstream_queries_per_s' \
		"$tmp/one.json" >/dev/null ||
		fail "design: ttl=$ttl probe_interval=$pi is not what model --set predicts"
done
# the table: the same points, the cheapest first
"$steerlab" model topology/compare.ini --target 'dns.window<=30s' \
	--vary ttl=5..300,probe_interval=1s..30s >"$tmp/d.txt"
first=$(jq -r '.meet[0] | "\(.set.ttl) \(.set.probe_interval)"' "$tmp/d.json")
row=$(awk '$1 == "1" { print $2, $3 }' "$tmp/d.txt")
[ "$row" = "$first" ] || fail "design: the table's first row is '$row', the JSON's '$first'"
grep -F "120 points, 4000 draws each: $(jq '.meet | length' "$tmp/d.json") meet" "$tmp/d.txt" \
	>/dev/null || fail "design: no count of the points that meet: $(sed -n 6p "$tmp/d.txt")"

# design_error RC TEXT ARGS...: steerlab model FILE ARGS exits RC saying TEXT
design_error() {
	local want_rc=$1 text=$2 rc=0
	shift 2
	"$steerlab" model topology/compare.ini "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want_rc" ] || fail "model $*: exit status $rc, expected $want_rc"
	grep -F -- "$text" "$tmp/err" >/dev/null || fail "model $*: $(cat "$tmp/err")"
}
design_error 2 "--target 'dns.windo<=30s': unknown clock 'windo' (expected detect, steer," \
	--target 'dns.windo<=30s'
design_error 2 "--vary 'ttl=300..5': expected KEY=LO..HI[:N]" \
	--target 'dns.window<=30s' --vary ttl=300..5
design_error 2 "--vary needs a --target" --vary ttl=5..300
# a key --set refuses, refused as --set refuses it
design_error 1 "--set bogus=1: unknown key 'bogus' in [lab]" \
	--target 'dns.window<=30s' --vary bogus=1..5
# a clock not modelled for the topology: bgp.ini with two routers of one
# AS (iBGP)
rc=0
"$steerlab" model topology/bgp.ini --set t1.asn=65001 --set t2.asn=65001 \
	--target 'anycast.window<=1s' >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -F -- "--target 'anycast.window p95 <= 1 s': not modelled for topology/bgp.ini: \
routing = bgp" "$tmp/err" >/dev/null || fail "model bgp.ini --target anycast.window: exit status $rc: $(cat "$tmp/err")"
rc=0
"$steerlab" check topology/compare.ini --target 'dns.window<=30s' >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -F -- "--target is an option of model, not of check" "$tmp/err" >/dev/null ||
	fail "check --target: exit status $rc: $(cat "$tmp/err")"

[ "$failed" = 0 ] && echo "test_model_cli: ok"
exit "$failed"
