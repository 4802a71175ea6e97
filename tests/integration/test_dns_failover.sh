#!/usr/bin/env bash
# DNS steering in a lab (topology/dns.ini): two remote probers every 100 ms,
# threshold 3. When site a dies, authd must stop handing out its address
# within interval x threshold + one interval, seen in its events; the
# TTL-honouring client must follow within that plus the TTL; nothing of the
# lab may remain afterwards.
# about 8 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-dns
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" topology/dns.ini --out "$rundir" --set name=$lab --set duration=7s \
	--set fail_at=3s --set probe_interval=100ms --set probe_timeout=50ms --set probe_down=3 \
	--quiet || { cat "$out/run.log"; fail "steerlab run failed"; }

t0=$(jq -r 'select(.event == "site_failed") | .t' "$rundir/lab.events.jsonl")
[ -n "$t0" ] || fail "no site_failed event"
ev=$rundir/ns.authd.events.jsonl
changed=$(jq -r --argjson t0 "$t0" 'select(.event == "answer_changed" and .t > $t0
	and (.before | index("198.19.1.1")) and ((.after | index("198.19.1.1")) | not)) | .t' "$ev" | sed -n 1p)
[ -n "$changed" ] || fail "authd never stopped handing out site a (198.19.1.1): $(cat "$ev")"
steer=$(awk -v a="$changed" -v b="$t0" 'BEGIN { printf "%.6f", (a - b) / 1e9 }')
echo "authd stopped handing out site a $steer s after t0"
# a probe in flight at t0 fails at its timeout: 3 failures take at least
# 2 intervals - 1 timeout
assert_le 0.15 "$steer" "authd waited for 3 failed probes"
assert_le "$steer" 0.45 "authd steered within interval x threshold + one interval (+50 ms)"
after=$(jq -r --argjson t0 "$t0" 'select(.event == "answer_changed" and .t > $t0) | .after[0]' "$ev" | sed -n 1p)
[ "$after" = 198.19.1.2 ] || fail "authd now answers $after, expected site b (198.19.1.2)"
echo "ok: authd now answers site b"

cev=$rundir/c1.client-dns.events.jsonl
moved=$(jq -r --argjson t0 "$t0" 'select(.event == "dns_answer" and .t > $t0 and .address == "198.19.1.2") | .t' "$cev" | sed -n 1p)
[ -n "$moved" ] || fail "the DNS client never moved to site b"
follow=$(awk -v a="$moved" -v b="$t0" 'BEGIN { printf "%.6f", (a - b) / 1e9 }')
echo "the client moved to site b $follow s after t0"
assert_le "$follow" "$(awk -v s="$steer" 'BEGIN { print s + 2 + 0.2 }')" "the client followed within steer + TTL (2 s)"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
