#!/usr/bin/env bash
# steerlab model (lab/cli/cmd_model.c, docs/model.md): the JSON of
# topology/compare.ini parses and has clocks.json's scheme keys, each
# interval {p5, p50, p95}; the table has its rows; bad input is refused as
# steerlab check refuses it. No root: nothing is built.
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
# what is not modelled is null with its reason, never a made-up zero: BGP
# beyond the failed site's own router
"$steerlab" model topology/bgp.ini --json >"$tmp/b.json"
jq -e '.schemes.anycast.steer_s == null and (.schemes.anycast.not_modelled.steer_s | strings)' \
	"$tmp/b.json" >/dev/null || fail "model --json: anycast steer over AS hops not null with a reason"
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
rc=0
"$steerlab" model topology/policies.ini >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] || fail "model of a lab without a failure: exit status $rc, expected 1"
grep -F "topology/policies.ini: the timeline fails no site" "$tmp/err" >/dev/null ||
	fail "model of a lab without a failure: $(cat "$tmp/err")"

[ "$failed" = 0 ] && echo "test_model_cli: ok"
exit "$failed"
