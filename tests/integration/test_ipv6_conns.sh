#!/usr/bin/env bash
# Happy Eyeballs over connections (docs/topology.md, "IPv6 clients"; issue
# 28): topology/dual-stack.ini with every client over the lab's own TCP
# client (proto = tcp; PROTO=http: over HTTP, by hand: not in the gate,
# see below), a's IPv6 frozen
# at 3 s. cd (family = dual) races its connections: libcurl itself (both
# addresses given, IPv4 250 ms after IPv6, CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS),
# or the TCP client (its IPv4 attempt 250 ms after the IPv6 one, the first
# connected kept). The run is valid; c4 loses nothing, c6 nearly every
# request after t0, cd only those on its IPv6 connections when they froze
# and those waiting for a connection meanwhile, the rest answered over new
# IPv4 connections (its records' family 4, fallback 1). The TCP client has
# one connection, given up when a request times out: at most a timeout
# and an attempt delay's worth lost, 0.75 s of requests (a few more: the
# timers' ticks), none a second after t0. libcurl keeps up to six to a
# host, as a browser, and each kept-alive IPv6 one it picks again hangs
# until a timeout, whenever that is: at most a quarter lost. That bound is
# not the gate's: on a loaded machine one run lost nearly all of cd's
# requests, most likely its transfers queued behind the six hung connections older
# than their timeout by the time a slot freed (docs/topology.md).
# about 14 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

proto=${PROTO:-tcp}
lab=it-ipv6${proto:0:1}
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'; rm -rf "$out"' EXIT
r=$out/run

run_valid "$out/run.txt" topology/dual-stack.ini --set name=$lab --set proto=$proto -q --out "$r" || fail "the run: $(tail -20 "$out/run.txt")"
echo "ok: the run is valid"
# from when the freeze's table was in place (site_failed's killed_ns; t0
# is stamped before the action, which a loaded machine took 200 ms to apply)
t0=$(json "$r/lab.events.jsonl" 'select(.event == "site_failed") | .killed_ns')
# after it: sent, lost, answered over IPv4 having fallen back, of one flow
after() { awk -F, -v t0="$t0" -v from="${2:-0}" '/^[0-9]/ && $3 > t0 + from * 1e9 { n++; l += $4 != "ok"; f += $4 == "ok" && $7 == 4 && $8 == 1 }
	END { print n + 0, l + 0, f + 0 }' "$r/requests-$1.csv"; }
for flow in "" -dns; do
	read -r n4 l4 _ < <(after c4$flow)
	read -r n6 l6 _ < <(after c6$flow)
	read -r nd ld fd < <(after cd$flow)
	assert_eq "$l4" 0 "c4$flow's losses after the freeze"
	assert_ge "$l6" $((n6 * 9 / 10)) "c6$flow's losses after the freeze (of $n6)"
	if [ "$proto" = tcp ]; then
		assert_le "$ld" 800 "cd$flow's losses after the freeze (of $nd)"
		assert_ge "$fd" $((nd * 8 / 10)) "cd$flow's requests answered over IPv4 after the freeze (of $nd)"
		read -r n1 l1 _ < <(after cd$flow 1)
		assert_eq "$l1" 0 "cd$flow's losses from the freeze + 1 s (of $n1)"
	else
		# libcurl's pool: each kept-alive IPv6 connection it picks again
		# hangs until a timeout, whenever it is picked
		assert_le "$ld" $((nd / 4)) "cd$flow's losses after the freeze (of $nd)"
		assert_ge "$fd" $((nd / 2)) "cd$flow's requests answered over IPv4 after the freeze (of $nd)"
	fi
	echo "ok: after the freeze, c4$flow lost $l4 of $n4, c6$flow $l6 of $n6, cd$flow $ld of $nd ($fd answered over IPv4)"
done
p50=$(json "$r/clocks.json" '.families[] | select(.family == "dual") | .rescued_rtt_p50_s')
is_number "$p50" || fail "no rescued_rtt_p50_s of the dual clients: $p50"
assert_le "$p50" 0.3 "the dual clients' rescued requests' median round trip"
echo "ok: the dual clients' rescued requests took $p50 s (median)"
assert_no_leftovers $lab "$r"
