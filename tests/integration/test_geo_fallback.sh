#!/usr/bin/env bash
# authd's geolocation fallback map in a lab (tests/integration/data/
# geo_fallback.ini): g1's region maps to site b34, whose fallback is b06;
# when b34 dies, authd must answer g1 with b06 (198.19.1.3), not with the
# default b35 (198.19.1.2) that it would choose without the map, and the
# client must follow. One short run.
# about 6 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-geo
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" tests/integration/data/geo_fallback.ini --out "$rundir" --set name=$lab \
	--set duration=4s --set fail_at=2s --set probe_interval=100ms --set probe_timeout=50ms \
	--set probe_down=3 --quiet || { cat "$out/run.log"; fail "steerlab run failed"; }

t0=$(jq -r 'select(.event == "site_failed") | .t' "$rundir/lab.events.jsonl")
[ -n "$t0" ] || fail "no site_failed event"
ev=$rundir/ns.authd.events.jsonl
# the handout per network: g1's /30, and "*" for the rest (the default)
after=$(jq -r --argjson t0 "$t0" 'select(.event == "answer_changed" and .t > $t0)
	| .networks["198.18.0.20/30"] // empty | select(index("198.19.1.1") | not) | join(",")' \
	"$ev" | sed -n 1p)
[ -n "$after" ] || fail "authd never stopped handing out b34 (198.19.1.1) to g1: $(cat "$ev")"
[ "$after" = 198.19.1.3 ] ||
	fail "authd answers g1's region $after once b34 is dead, expected its fallback b06 (198.19.1.3)"
echo "ok: authd answers b34's fallback b06"

cev=$rundir/g1.client-dns.events.jsonl
moved=$(jq -r --argjson t0 "$t0" 'select(.event == "dns_answer" and .t > $t0 and .address == "198.19.1.3") | .t' "$cev" | sed -n 1p)
[ -n "$moved" ] || fail "the client never moved to b06: $(tail -5 "$cev")"
other=$(jq -r 'select(.event == "dns_answer" and .address == "198.19.1.2") | .t' "$cev" | sed -n 1p)
[ -z "$other" ] || fail "the client was answered b35 (198.19.1.2) at $other"
echo "ok: the client moved to b06, never to b35"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
