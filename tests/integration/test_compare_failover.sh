#!/usr/bin/env bash
# Anycast and DNS steering through one failure, in one run
# (tests/integration/data/compare.ini): TTL 2 s, probes every 100 ms,
# threshold 3. TTL-honouring DNS clients stop reaching the dead site within
# [detect, detect + TTL + 0.5 s], the slowest of them after detect + TTL -
# 0.5 s; the sticky client keeps sending to it for its 8 s; anycast fails
# over within detect + 50 ms; every clock lies within the model's bounds
# (no model_disagrees); every client begins at the traffic's start;
# nothing of the lab remains. report.html, opened in a real browser
# (headless chromium: report_html.sh), loads with no console message, plots
# decay.csv's points and shows clocks.json's verdict and clocks.
# about 11 s, and 5-9 s of chromium
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/report_html.sh

lab=it-cmp
ttl=2
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" tests/integration/data/compare.ini --out "$rundir" --quiet ||
	{ cat "$out/run.log"; fail "steerlab run failed"; }
clocks=$rundir/clocks.json
[ -s "$clocks" ] || fail "no $clocks"
jq -c '.schemes.dns | {detect_s, steer_s, window_s, last_by_client_s, upstream_queries}' "$clocks"
jq -c '.schemes.anycast | {detect_s, steer_s, window_s, lost_client, lost_capture}' "$clocks"

detect=$(json "$clocks" .schemes.dns.detect_s)
[ "$detect" != null ] || fail "dns: no detect clock"
for id in 100001 100002 100003 100004; do
	last=$(json "$clocks" ".schemes.dns.last_by_client_s[\"$id\"]")
	[ "$last" != null ] || fail "dns client $id: no last packet"
	assert_le "$detect" "$last" "client $id's last packet to the dead site comes after detect"
	assert_le "$last" "$(awk -v d="$detect" -v t=$ttl 'BEGIN { print d + t + 0.5 }')" \
		"client $id's last packet is within detect + TTL + 0.5 s"
done
slowest=$(jq -r '[.schemes.dns.last_by_client_s | to_entries[] |
	select(.key == "100001" or .key == "100002" or .key == "100003" or .key == "100004") | .value] | max' "$clocks")
assert_le "$(awk -v d="$detect" -v t=$ttl 'BEGIN { print d + t - 0.5 }')" "$slowest" \
	"the slowest TTL-honouring client sends to the dead site past detect + TTL - 0.5 s"

# c5 resolved at the start of traffic and keeps that answer 8 s: it sends to
# the dead site until 8 s - fail_at (3 s) = 5 s after t0
sticky=$(json "$clocks" '.schemes.dns.last_by_client_s["100005"]')
assert_le 4.5 "$sticky" "the sticky client keeps sending to the dead site until its 8 s are up"
assert_le "$sticky" 5.5 "the sticky client moves once its 8 s are up"

adetect=$(json "$clocks" .schemes.anycast.detect_s)
awindow=$(json "$clocks" .schemes.anycast.window_s)
[ "$adetect" != null ] && [ "$awindow" != null ] || fail "anycast: a clock is missing"
assert_le "$awindow" "$(awk -v d="$adetect" 'BEGIN { print d + 0.05 }')" "anycast window <= detect + 50 ms"
[ "$(json "$clocks" .schemes.dns.capture_drops)" = 0 ] || fail "the captures dropped packets"
echo "ok: capture_drops = 0"

# the model beside the measurement (docs/clocks.md, "The model"): made from
# the run's own topology.ini, and every clock it predicts measured within
# its bounds widened by the tolerance (100 ms; measured: 20 ms at most on
# this topology, 32 ms with three labs at once and a busy core)
[ "$(json "$clocks" .model.from)" = topology.ini ] || fail "no model of the run in clocks.json"
[ "$(json "$clocks" .schemes.dns.model.window_s.max)" != null ] || fail "dns: no model of the window"
[ "$(json "$clocks" .schemes.anycast.model.detect_s.max)" != null ] || fail "anycast: no model of detect"
disagree=$(jq -r '.warnings[] | select(.code == "model_disagrees") | .message' "$clocks")
[ -z "$disagree" ] || fail "model_disagrees: $disagree"
echo "ok: every clock the model predicts within its bounds (no model_disagrees)"
csv_header "$rundir/decay.csv" | grep -F ',anycast_model_share,dns_model_share' >/dev/null ||
	fail "decay.csv has no model columns"
echo "ok: decay.csv has the model's curves"
# every client began at the traffic's start, not one after the other:
# client_started comes after its first resolution, from 0 to a few ms after
# the traffic_started stamp (before the common start: 32 ms before it
# to 20 ms after), bounded here at 100 ms for a loaded machine; each said
# client_ready before the stamp (the lab's barrier: the go once all are)
ts=$(jq -r 'select(.event == "traffic_started") | .t' "$rundir/lab.events.jsonl")
for f in "$rundir"/*.client*.events.jsonl; do
	r=$(jq -r --argjson ts "$ts" 'select(.event == "client_ready") | (.t - $ts) / 1e9' "$f")
	assert_lt "$r" 0 "${f##*/}: client_ready before the traffic's start (s)"
	d=$(jq -r --argjson ts "$ts" 'select(.event == "client_started") | (.t - $ts) / 1e9' "$f")
	assert_ge "$d" 0 "${f##*/}: client_started after the traffic's start (s)"
	assert_lt "$d" 0.1 "${f##*/}: client_started within 0.1 s of the traffic's start (s)"
done
echo "ok: every client began at the traffic's start"

report_html_check "$rundir"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
