#!/usr/bin/env bash
# routing = static's hold timer (docs/topology.md, "Routing"): a site that
# stops announcing loses its route after static_hold, as a BGP peer that
# goes silent does after its hold time.
#
# Two routers (r1 - r2), site a (preferred) on r1, b on r2; refresh 500 ms,
# hold 1.5 s. a crashes at 1 s (sited and its prober killed: nobody sends a
# WITHDRAW) and recovers at 4 s.
#
# 1. steerlab check: the keys printed back; a hold not above the refresh
#    refused at its line, a hold of 0 taken.
# 2. The run: routed got -H 1500000us and the probers -k 500000us; a's route
#    leaves both routers' FIBs (the collectors' route_deleted of the route
#    site_failed lists for each router) between hold - refresh (the last
#    announcement came up to one refresh before the crash) and hold +
#    refresh after t0, each with routed's route_expired (silent_s >= hold);
#    b's route never expires; the anycast detect (the expiry), steer and
#    window are finite and about the hold; the route comes back after the
#    recover (fail-back steer); the run is valid.
# 3. The same with static_hold = 0: no route_expired, no route_deleted of a's
#    route, anycast steer missing and the window runs to the recover.
# about 15 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
lab=${IT_PREFIX:-it}-sthold
lab_guard $lab

cat >"$out/hold.ini" <<'EOF'
[lab]
name = sthold
duration = 6s
static_refresh = 500ms
static_hold = 1500ms
[router r1]
[router r2]
[link r1 r2]
[site a]
link = r1
metric = 10
[site b]
link = r2
metric = 20
[client c1]
link = r1
rate = 500
[event e1]
at = 1s
action = crash
target = a
[event e2]
at = 4s
action = recover
target = a
EOF

# --- 1. check
checked=$($STEERLAB check "$out/hold.ini")
grep -q '^static_refresh = 500ms$' <<<"$checked" && grep -q '^static_hold = 1500ms$' <<<"$checked" ||
	fail "check does not print the keys: $(grep static_ <<<"$checked")"
echo "ok: check prints static_refresh = 500ms, static_hold = 1500ms"
sed 's/^static_hold = 1500ms$/static_hold = 500ms/' "$out/hold.ini" >"$out/bad.ini"
rc=0
msg=$($STEERLAB check "$out/bad.ini" 2>&1 >/dev/null) || rc=$?
[ "$rc" != 0 ] || fail "check took static_hold = static_refresh"
grep -qF "$out/bad.ini:5: [lab] static_hold: expected more than static_refresh (500ms), got 500ms" <<<"$msg" ||
	fail "check's error: $msg"
echo "ok: check refuses static_hold = static_refresh at its line: $msg"
$STEERLAB check "$out/hold.ini" --set static_hold=0 | grep '^static_hold = 0s$' >/dev/null ||
	fail "check does not take static_hold = 0"
echo "ok: check takes static_hold = 0"

# --- 2. the run
r=$out/run
$STEERLAB run "$out/hold.ini" --set name=$lab --out "$r" -q >"$r.log" 2>&1 &
run_pid=$!
wait_until 20 test -s "/run/steerlab/$lab/agents.tsv" || fail "the lab did not come up: $(tail "$r.log")"
# cmdline PID: its arguments, space separated
cmdline() { tr '\0' ' ' <"/proc/$1/cmdline"; }
# has_agent NODE AGENT: agents.tsv lists it
has_agent() { awk -v n="$1" -v a="$2" '$3 == n && $4 == a { f = 1 } END { exit !f }' "/run/steerlab/$lab/agents.tsv"; }
wait_until 10 has_agent r2 routed || fail "no routed on r2"
for node in r1 r2; do
	pid=$(awk -v n=$node '$3 == n && $4 == "routed" { print $1; exit }' "/run/steerlab/$lab/agents.tsv")
	grep -q -- '-H 1500000us' <<<"$(cmdline "$pid")" || fail "routed of $node: $(cmdline "$pid")"
done
echo "ok: every routed runs with -H 1500000us"
wait_until 10 has_agent b prober || fail "no prober on b"
pid=$(awk '$3 == "b" && $4 == "prober" { print $1; exit }' "/run/steerlab/$lab/agents.tsv")
grep -q -- '-k 500000us' <<<"$(cmdline "$pid")" || fail "b's prober: $(cmdline "$pid")"
echo "ok: the site's prober runs with -k 500000us"
rc=0
wait "$run_pid" || rc=$?
[ "$rc" = 0 ] || fail "run: exit status $rc (not a valid run): $(tail -20 "$r.log")"
echo "ok: run valid (exit 0)"

t0=$(jq -R 'fromjson? | select(.event == "site_failed") | .t' "$r/lab.events.jsonl" | sed -n 1p)
[ -n "$t0" ] || fail "no site_failed"
# a's route in each router, as site_failed lists them
routes=$(jq -cR 'fromjson? | select(.event == "site_failed") | .routes[]' "$r/lab.events.jsonl")
assert_eq "$(wc -l <<<"$routes")" 2 "site_failed's routes of a (one per router)"
while read -r route; do
	router=$(jq -r .router <<<"$route")
	via=$(jq -r .via <<<"$route")
	gone=$(jq -R --arg v "$via" --argjson t0 "$t0" 'fromjson? | select(.event == "route_deleted" and
		.prefix == "198.19.0.1/32" and .via == $v and .t >= $t0) | .t' \
		"$r/$router.collector.events.jsonl" | sed -n 1p)
	[ -n "$gone" ] || fail "a's route via $via never left $router's FIB"
	s=$(awk -v a="$gone" -v b="$t0" 'BEGIN { printf "%.3f", (a - b) / 1e9 }')
	assert_ge "$s" 1.0 "$router: a's route via $via left the FIB (s after t0, >= hold - refresh)"
	assert_le "$s" 2.0 "$router: a's route via $via left the FIB (s after t0, <= hold + refresh)"
	exp=$(jq -cR 'fromjson? | select(.event == "route_expired" and .site == "a")' \
		"$r/$router.routed.events.jsonl")
	assert_eq "$(grep -c . <<<"$exp")" 1 "$router: route_expired of a"
	[ "$(jq -r .deleted <<<"$exp")" = true ] || fail "$router: route_expired did not delete: $exp"
	echo "ok: $router: route_expired deleted the route"
	assert_ge "$(jq -r .silent_s <<<"$exp")" 1.5 "$router: silent_s of the expiry (>= hold)"
	assert_eq "$(jq -R 'fromjson? | select(.event == "route_expired" and .site == "b")' \
		"$r/$router.routed.events.jsonl" | jq -s length)" 0 "$router: route_expired of the healthy b"
done <<<"$routes"

a=$(json "$r/clocks.json" '.schemes.anycast')
for k in detect_s steer_s window_s; do
	assert_ge "$(jq -r .$k <<<"$a")" 1.0 "anycast $k (>= hold - refresh)"
	assert_le "$(jq -r .$k <<<"$a")" 2.0 "anycast $k (<= hold + refresh)"
done
assert_le "$(jq -r .detect_s <<<"$a")" "$(jq -r .steer_s <<<"$a")" \
	"anycast detect (the expiry's decision) not after steer (the kernel's deletion), s"
assert_eq "$(json "$r/clocks.json" '[.warnings[]? | select(.code == "clock_missing")] | length')" 0 \
	"clock_missing warnings"
grep -q "detect = a router's hold timer expires a's route" "$r.log" "$r/report.md" ||
	fail "the legend does not say what detect was"
echo "ok: the table's legend says detect is the hold timer's expiry"
assert_gt "$(jq -r .failback.steer_s <<<"$a")" 0 "fail-back steer: a's route back after the recover (s)"
assert_no_leftovers $lab "$r"

# --- 3. no hold timer: the route stays until the recover
r0=$out/run0
rc=0
run_valid "$r0.log" "$out/hold.ini" --set name=$lab --set static_hold=0 --out "$r0" -q || rc=$?
[ "$rc" = 0 ] || fail "run static_hold=0: exit status $rc: $(tail -20 "$r0.log")"
assert_eq "$(cat "$r0"/*.routed.events.jsonl | jq -R 'fromjson? | select(.event == "route_expired")' |
	jq -s length)" 0 "static_hold = 0: route_expired events"
[ "$(json "$r0/clocks.json" '.schemes.anycast.steer_s')" = null ] ||
	fail "static_hold = 0: anycast steer is $(json "$r0/clocks.json" '.schemes.anycast.steer_s'), expected null"
echo "ok: static_hold = 0: anycast steer missing (no route left the FIB)"
assert_ge "$(json "$r0/clocks.json" '.schemes.anycast.window_s')" 2.9 \
	"static_hold = 0: anycast window runs to the recover (s)"
assert_no_leftovers $lab "$r0"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_static_hold"
