#!/usr/bin/env bash
# Several addresses (topology/tcp-addresses.ini, issue 25): ns answers both
# sites' addresses, a's first, and a freezes. c2 tries the next address
# when a connection fails: its stalled connection given up, one attempt at
# a that times out (connect_timeout, 300 ms) and it is on b, before its
# cached answer (ttl 4 s) changes, within timeout + connect_timeout of t0
# (with 0.2 s for the timers and the machine's measured stalls). c1 takes the first address only:
# never the next, and on b only once its answer has changed. The capture's
# connection clocks say both recovered, the later one after c1's answer
# changed. An invalid run is said and run once more (run_valid).
# about 10 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-addrs
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

rc=0
run_valid "$out/run.log" topology/tcp-addresses.ini --out "$r" --set name=$lab -q || rc=$?
[ $rc = 0 ] || { cat "$out/run.log"; fail "run exited with status $rc (not a valid run)"; }
t0=$(jq -r 'select(.event == "site_failed") | .t' "$r/lab.events.jsonl")
addr_a=$(jq -r '.nodes[] | select(.name == "a") | .address' "$r/plan.json")
addr_b=$(jq -r '.nodes[] | select(.name == "b") | .address' "$r/plan.json")
[ -n "$addr_a" ] && [ -n "$addr_b" ] || fail "plan.json names no address for a or b"
s_after() { awk -v a="$1" -v b="$t0" 'BEGIN { printf "%.3f", (a - b) / 1e9 }'; }

# when FILE's answer first changed to b, and its first connection to b
ev() { jq -r "$2" "$r/$1.client-dns.events.jsonl" | sed -n 1p; }
for c in c1 c2; do
	changed=$(ev $c 'select(.event == "dns_answer" and .address == "'"$addr_b"'") | .t')
	on_b=$(ev $c 'select(.event == "tcp_connected" and .address == "'"$addr_b"'") | .t')
	[ -n "$changed" ] || fail "$c: its answer never changed to b's address"
	[ -n "$on_b" ] || fail "$c: never connected to b's address"
	eval "changed_$c=$changed on_b_$c=$on_b"
	echo "ok: $c: answer changed to b at t0 + $(s_after "$changed") s, connected to b at t0 + $(s_after "$on_b") s"
done

# c2 walked to the next address: a timed out, then b, before its answer changed
walked=$(ev c2 'select(.event == "tcp_failed" and .next and .address == "'"$addr_a"'") | .cause')
[ "$walked" = timeout ] || fail "c2: no attempt at a that timed out and went on to the next address (got '$walked')"
assert_lt "$on_b_c2" "$changed_c2" "c2: on b before its answer changed (ns)"
slack=$(sched_slack "$r" "$t0" "$on_b_c2")
bound=$(awk -v s="$slack" 'BEGIN { print 1 + 0.3 + 0.2 + s }')
assert_le "$(s_after "$on_b_c2")" "$bound" "c2: on b (s after t0) within timeout + connect_timeout + 0.2 s + stalls"

# c1 never tried another address, and reached b only with its new answer
tried=$(jq -s '[.[] | select(.event == "tcp_failed" and .next)] | length' "$r/c1.client-dns.events.jsonl")
assert_eq "$tried" 0 "c1: attempts that went on to a next address"
assert_ge "$on_b_c1" "$changed_c1" "c1: on b not before its answer changed (ns)"

# the capture's clocks: both hit and recovered; the later after c1's answer changed
conn() { json "$r/clocks.json" ".connections.dns.$1"; }
assert_eq "$(conn clients.hit)" 2 "dns: clients the failure hit"
assert_eq "$(conn clients.recovered)" 2 "dns: clients answered again by b"
assert_ge "$(conn clients.recovered_s.max)" "$(s_after "$changed_c1")" "dns: the later recovery (s after t0) against c1's answer change"
# (its first reply on b: the bound with the stalls until then, and 50 ms
# for the request's way there and back; a loaded gate's came 9 ms after the
# connection's bound)
rec=$(conn clients.recovered_s.p50)
slack=$(sched_slack "$r" "$t0" "$(awk -v t="$t0" -v s="$rec" 'BEGIN { printf "%.0f", t + s * 1e9 }')")
bound=$(awk -v s="$slack" 'BEGIN { print 1 + 0.3 + 0.2 + 0.05 + s }')
assert_le "$rec" "$bound" "dns: the earlier recovery (s after t0) against c2's bound"
assert_no_leftovers $lab "$r"
