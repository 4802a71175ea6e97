#!/usr/bin/env bash
# Collector check over three namespaces, client -> router -> site, as in a lab:
# the collector captures both router links and monitors the router's routes
# while blast sends requests at a high rate. Passes if every packet sent was
# written to both captures with nothing dropped, the pcaps read back with
# nanosecond timestamps, and the route add/del produced route events.
#
#   tests/tools/collector-check.sh [RATE [DURATION]]     (root; default 200000 3s)
#
# COLLECTOR_ARGS adds collector flags (e.g. "-B 1M"); STALL=SECONDS stops the
# collector (SIGSTOP) that long during the blast, to see drops reported.
# Needs bin/collector and build/release/tools/blast (see tests/tools/blast.c).
set -euo pipefail
cd "$(dirname "$0")/../.."

RATE=${1:-200000}
DUR=${2:-3s}
COLLECTOR=${COLLECTOR:-bin/collector}
BLAST=${BLAST:-build/release/tools/blast}
NS_CL=${NS_PREFIX:-hb}-cl NS_RT=${NS_PREFIX:-hb}-rt NS_ST=${NS_PREFIX:-hb}-st
SERVICE=198.19.210.1
OUT=$(mktemp -d /tmp/hb-collector.XXXXXX)
EV=$OUT/rt.collector.events.jsonl
CPID=

[ "$(id -u)" = 0 ] || { echo "collector-check: needs root (namespaces)" >&2; exit 77; }
for f in "$COLLECTOR" "$BLAST"; do
	[ -x "$f" ] || { echo "collector-check: $f not built" >&2; exit 1; }
done
for ns in $NS_CL $NS_RT $NS_ST; do
	if [ -e "/run/netns/$ns" ]; then
		echo "collector-check: namespace $ns exists; refusing to touch it" >&2
		exit 1
	fi
done

cleanup() {
	if [ -n "$CPID" ] && kill -0 "$CPID" 2>/dev/null; then
		kill -TERM "$CPID"
		wait "$CPID" || true
	fi
	for ns in $NS_CL $NS_RT $NS_ST; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	return 0
}
trap cleanup EXIT

# wait_until SECONDS COMMAND...: poll instead of guessing a sleep
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || { echo "collector-check: timed out: $*" >&2; return 1; }
		sleep 0.05
	done
}
events() {
	local n
	n=$(grep -c "\"event\":\"$1\"" "$EV" 2>/dev/null) || true
	echo "${n:-0}"
}
have_events() { [ "$(events "$1")" -ge "$2" ]; }

for ns in $NS_CL $NS_RT $NS_ST; do ip netns add "$ns"; done
ip -n $NS_CL link add eth0 type veth peer name cl0 netns $NS_RT
ip -n $NS_ST link add eth0 type veth peer name st0 netns $NS_RT
ip -n $NS_CL addr add 198.18.210.2/30 dev eth0
ip -n $NS_RT addr add 198.18.210.1/30 dev cl0
ip -n $NS_RT addr add 198.18.210.5/30 dev st0
ip -n $NS_ST addr add 198.18.210.6/30 dev eth0
ip -n $NS_ST addr add $SERVICE/32 dev lo
for ns in $NS_CL $NS_RT $NS_ST; do
	ip -n "$ns" link set lo up
done
ip -n $NS_CL link set eth0 up
ip -n $NS_ST link set eth0 up
ip -n $NS_RT link set cl0 up
ip -n $NS_RT link set st0 up
ip -n $NS_CL route add default via 198.18.210.1
ip netns exec $NS_RT sysctl -qw net.ipv4.ip_forward=1

ip netns exec $NS_RT "$COLLECTOR" -n rt -e "$EV" -o "$OUT" -c st0=st -c cl0=cl \
	-P $SERVICE/32 ${COLLECTOR_ARGS:-} 2>"$OUT/rt.collector.log" &
CPID=$!
wait_until 5 have_events capture_ready 2

ip -n $NS_RT route add $SERVICE/32 via 198.18.210.6 metric 10 proto 186
wait_until 2 have_events route_added 1

if [ -n "${STALL:-}" ]; then
	(sleep 0.5; kill -STOP "$CPID"; sleep "$STALL"; kill -CONT "$CPID") &
	SPID=$!
fi
ip netns exec $NS_CL "$BLAST" -t $SERVICE:7000 -r "$RATE" -d "$DUR" | tee "$OUT/blast.txt"
[ -z "${SPID:-}" ] || wait "$SPID"
SENT=$(sed -n 's/^blast: sent \([0-9]*\) .*/\1/p' "$OUT/blast.txt")

ip -n $NS_RT route del $SERVICE/32 via 198.18.210.6
wait_until 2 have_events route_deleted 1

kill -TERM "$CPID"
rc=0
wait "$CPID" || rc=$?
CPID=
[ $rc = 0 ] || { echo "collector-check: collector exited $rc" >&2; cat "$OUT/rt.collector.log"; exit 1; }

echo "--- events"
grep -E '"event":"(route_added|route_deleted|capture_stats)"' "$EV"
fail=0
for label in st cl; do
	pcap=$OUT/capture-$label.pcap
	n=$(tcpdump -nn -r "$pcap" 2>/dev/null | wc -l)
	stats=$(grep "\"event\":\"capture_stats\"" "$EV" | grep "\"label\":\"$label\"")
	dropped=$(sed -n 's/.*"dropped":\([0-9]*\).*/\1/p' <<<"$stats")
	ifdropped=$(sed -n 's/.*"if_dropped":\([0-9]*\).*/\1/p' <<<"$stats")
	echo "--- $label: sent $SENT, in pcap $n, dropped $dropped, if_dropped $ifdropped"
	[ "${SENT:-0}" -gt 0 ] && [ "$n" = "$SENT" ] && [ "$dropped" = 0 ] && [ "$ifdropped" = 0 ] || fail=1
done
echo "--- first packets of capture-st.pcap"
tcpdump -nn --time-stamp-precision=nano -r "$OUT/capture-st.pcap" -c 2 2>/dev/null
file_magic=$(od -An -tx1 -N4 "$OUT/capture-st.pcap" | tr -d ' ')
echo "--- pcap magic $file_magic (4d3cb2a1: nanosecond, little-endian)"
[ "$file_magic" = 4d3cb2a1 ] || fail=1
echo "--- output in $OUT"
[ $fail = 0 ] && echo "collector-check: PASS" || { echo "collector-check: FAIL"; exit 1; }
