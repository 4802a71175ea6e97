#!/usr/bin/env bash
# A record added during a run after a resolver cached its NXDOMAIN (seed
# 002's warning; tests/integration/data/newname.ini): the client asks for
# new.lab.example through one cache from the start; the lab adds the record
# at 0.5 s (add-record, through authd's control channel); the cache keeps
# the NXDOMAIN for the zone's negative TTL, min(60, MINIMUM 2) = 2 s.
# Checked on authd's link capture (tshark) and the records: authd answered
# NXDOMAIN before the change and the new address after it, the zone_changed
# serial is the zone's next; the cache answered from its negative entry;
# and the client's first request left no earlier than the NXDOMAIN's
# answer plus its 2 s, after the record existed. Bounds a stall cannot
# break: a late step or a slow process only moves the first request later.
# about 12 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-newname
lab_guard $lab
command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" tests/integration/data/newname.ini --set name=$lab --out "$rundir" ||
	{ cat "$out/run.log"; fail "steerlab run of newname.ini failed"; }
[ "$(json "$rundir/clocks.json" .valid)" = true ] || fail "the run is not valid: $(run_codes "$rundir")"
authd=$rundir/ns.authd.events.jsonl
t_add=$(json "$authd" 'select(.event == "zone_changed" and .what == "add-record") | .t')
[ -n "$t_add" ] || fail "no zone_changed of the add-record"
[ "$(json "$authd" 'select(.event == "zone_changed") | .serial')" = 2024010102 ] ||
	fail "the add-record did not bump the serial to 2024010102"
[ "$(json "$rundir/lab.events.jsonl" 'select(.event == "event_applied" and .name == "add") | .serial')" = 2024010102 ] ||
	fail "event_applied does not carry the serial authd answered"

# authd's answers on its link: NXDOMAIN before the change, the address after
tshark -r "$rundir/capture-dns-ns.pcap" -Y 'dns.flags.response == 1 && dns.qry.name == "new.lab.example"' \
	-T fields -e frame.time_epoch -e dns.flags.rcode -e dns.a 2>/dev/null |
	awk '{ split($1, p, "."); print p[1] substr(p[2] "000000000", 1, 9), $2, $3 }' >"$out/answers"
cat "$out/answers"
# the nanosecond times stay text: awk's doubles would round them
t_nx=$(awk '$2 == 3 { print $1; exit }' "$out/answers")
[ -n "$t_nx" ] || fail "authd answered no NXDOMAIN for new.lab.example"
nx_after=$(awk -v t="$t_add" '$2 == 3 && $1 > t' "$out/answers" | wc -l)
assert_lt "$t_nx" "$t_add" "authd's NXDOMAIN came before the record existed"
assert_eq "$nx_after" 0 "no NXDOMAIN for new.lab.example after the change"
assert_ge "$(awk -v t="$t_add" '$1 > t && $2 == 0 && $3 == "198.19.1.1"' "$out/answers" | wc -l)" 1 \
	"authd answered the new address after the change"

# the cache's negative entry answered meanwhile
neg=$(jq -s '[.[] | select(.event == "resolver_summary") | .negative_hits] | add' \
	"$rundir/r.resolverd.events.jsonl")
assert_ge "$neg" 1 "the cache answered from its cached NXDOMAIN"

# the client's first request: not before the NXDOMAIN's 2 s ran out
first=$(awk -F, '/^[0-9]/ { print $3 }' "$rundir/requests-c1-dns.csv" | sort -n | sed -n 1p)
[ -n "$first" ] || fail "the client sent no request"
assert_ge "$first" "$((t_nx + 2000000000 - 1000000))" \
	"the client's first request left 2 s (the negative TTL) after authd's NXDOMAIN or later"
assert_gt "$first" "$t_add" "the client's first request came after the record existed"
echo "the record existed $(awk -v a="$t_add" -v b="$first" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s before the client could use it"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
