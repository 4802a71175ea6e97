#!/usr/bin/env bash
# bench/bgp/pair.sh ROUNDS OUTFILE: the floor of a BGP withdrawal, FRR alone.
# Two namespaces, bbgp-pa (a site: the service /32 on lo, announced by
# `redistribute connected`) and bbgp-pb (its router), one veth between
# them, zebra, bfdd and bgpd in each run by this script with the
# configurations steerlab writes for a site and a router with MRAI 0 and BFD
# at 100 ms x 3 (frr defaults datacenter). ROUNDS times: remove the /32 from
# pa's lo, wait for pb's FIB to drop it, put it back, wait for pb's FIB to
# have it again. Appends one line per withdrawal to OUTFILE: the milliseconds
# from the address leaving lo to pb's route deletion, both stamped by
# `ip monitor` (address events in pa, route events in pb). Everything it
# makes (namespaces, daemons, files, FRR's /var/tmp/frr/DAEMON.PID) goes at
# exit. BBGP_FLOOR_LOGS=DIR keeps the daemons' logs, with `debug bgp
# updates` and `debug zebra rib`, with microseconds, in DIR;
# BBGP_FLOOR_ZEBRA=LINE adds LINE to both zebras' configuration (e.g.
# `zebra work-queue 0`).
set -euo pipefail
rounds=${1:?usage: pair.sh ROUNDS OUTFILE} out=${2:?usage: pair.sh ROUNDS OUTFILE}
svc=198.19.0.1
[ "$(id -u)" = 0 ] || { echo "bench/bgp/pair.sh needs root" >&2; exit 1; }
[ -x /usr/lib/frr/bgpd ] || { echo "bench/bgp/pair.sh: FRR is not installed (sudo make deps)" >&2; exit 1; }
for ns in bbgp-pa bbgp-pb; do
	[ -e "/run/netns/$ns" ] && { echo "bench/bgp/pair.sh: namespace $ns exists: a bench is running, or remove it" >&2; exit 1; }
done
dir=$(mktemp -d /tmp/steerlab-bbgp-pair.XXXXXX)
pids=() mons=()
cleanup() {
	set +e
	for p in "${mons[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
		rm -rf "/var/tmp/frr/zebra.$p" "/var/tmp/frr/bgpd.$p" "/var/tmp/frr/bfdd.$p"
	done
	ip netns del bbgp-pa 2>/dev/null
	ip netns del bbgp-pb 2>/dev/null
	if [ -n "${BBGP_FLOOR_LOGS:-}" ]; then mkdir -p "$BBGP_FLOOR_LOGS" && cp "$dir"/*.log "$dir"/*.dbg "$BBGP_FLOOR_LOGS"/; fi
	rm -rf "$dir"
}
trap cleanup EXIT

ip netns add bbgp-pa
ip netns add bbgp-pb
ip link add eth0 netns bbgp-pa type veth peer name a netns bbgp-pb
ip -n bbgp-pa addr add 198.18.0.2/30 dev eth0
ip -n bbgp-pb addr add 198.18.0.1/30 dev a
for ns in bbgp-pa bbgp-pb; do ip -n $ns link set lo up; done
ip -n bbgp-pa link set dev eth0 up
ip -n bbgp-pb link set dev a up

debug=
# with BBGP_FLOOR_LOGS, each daemon logs with microseconds to NODE.DAEMON.dbg
# (FRR applies the precision to the targets of its configuration only)
dbg() { [ -z "${BBGP_FLOOR_LOGS:-}" ] || printf 'log timestamp precision 6\nlog file %s/%s.%s.dbg\n%s' "$dir" "$1" "$2" "$3"; }
bfd='bfd
 profile steerlab
  receive-interval 100
  transmit-interval 100
  detect-multiplier 3
 exit
exit'
cat >"$dir/pa.bgpd.conf" <<CONF
frr defaults datacenter
hostname pa
$(dbg pa bgpd $'debug bgp updates\ndebug bgp zebra\n')
ip prefix-list STEERLAB-SERVICE seq 5 permit $svc/32
route-map STEERLAB-ANNOUNCE permit 10
 match ip address prefix-list STEERLAB-SERVICE
 set metric 10
exit
router bgp 65101
 bgp router-id 198.18.0.2
 no bgp ebgp-requires-policy
 bgp always-compare-med
 timers bgp 3 9
 neighbor 198.18.0.1 remote-as 65001
 neighbor 198.18.0.1 timers connect 10
 neighbor 198.18.0.1 advertisement-interval 0
 neighbor 198.18.0.1 bfd profile steerlab
 address-family ipv4 unicast
  redistribute connected route-map STEERLAB-ANNOUNCE
  maximum-paths 1
 exit-address-family
exit
CONF
cat >"$dir/pb.bgpd.conf" <<CONF
frr defaults datacenter
hostname pb
$(dbg pb bgpd $'debug bgp updates\ndebug bgp zebra\n')
router bgp 65001
 bgp router-id 198.18.0.1
 no bgp ebgp-requires-policy
 bgp always-compare-med
 timers bgp 3 9
 neighbor 198.18.0.2 remote-as 65101
 neighbor 198.18.0.2 timers connect 10
 neighbor 198.18.0.2 advertisement-interval 0
 neighbor 198.18.0.2 bfd profile steerlab
 address-family ipv4 unicast
  maximum-paths 1
 exit-address-family
exit
CONF
for n in pa pb; do
	printf 'frr defaults datacenter\nhostname %s\n%s\n' $n "$bfd" >"$dir/$n.bfdd.conf"
	{ dbg $n zebra $'debug zebra rib detailed\ndebug zebra kernel\n'; printf '%s\n' "${BBGP_FLOOR_ZEBRA:-}"; } >"$dir/$n.zebra.conf"
	mkdir "$dir/$n"
done
chown -R frr:frr "$dir"

# start NODE DAEMON: in the node's namespace, in the foreground, as frr
start() {
	local n=$1 d=$2 extra=()
	[ "$d" = bfdd ] && extra=(--bfdctl "$dir/$n/bfdd.sock")
	ip netns exec "bbgp-$n" "/usr/lib/frr/$d" -z "$dir/$n/zserv.api" --vty_socket "$dir/$n" \
		-i "$dir/$n/$d.pid" -u frr -g frr --log "file:$dir/$n.$d.log" -P 0 \
		-f "$dir/$n.$d.conf" "${extra[@]}" >/dev/null 2>&1 &
	pids+=($!)
}
for n in pa pb; do
	start $n zebra
	for _ in $(seq 100); do [ -S "$dir/$n/zserv.api" ] && break; sleep 0.05; done
	[ -S "$dir/$n/zserv.api" ] || { echo "pair.sh: zebra of $n did not start" >&2; exit 1; }
	start $n bfdd
	start $n bgpd
done

TZ=UTC ip -n bbgp-pa -ts monitor address >>"$dir/pa.mon" 2>&1 &
mons+=($!)
TZ=UTC ip -n bbgp-pb -ts monitor route >>"$dir/pb.mon" 2>&1 &
mons+=($!)
# has_route: pb's FIB has the service route (from bgpd)
has_route() { [ -n "$(ip -n bbgp-pb route show $svc/32 proto bgp)" ]; }
# wait_for COND SECONDS
wait_for() {
	local i
	for i in $(seq $(($2 * 50))); do "$1" && return 0; sleep 0.02; done
	return 1
}
no_route() { ! has_route; }
ip -n bbgp-pa addr add $svc/32 dev lo
wait_for has_route 30 || { echo "pair.sh: pb never learned $svc" >&2; exit 1; }
sleep 1
stamp() { TZ=UTC awk -F'[][T:.-]' '{ print mktime($2 " " $3 " " $4 " " $5 " " $6 " " $7) "." $8 }'; }
for r in $(seq "$rounds"); do
	: >"$dir/pa.mon"; : >"$dir/pb.mon"
	ip -n bbgp-pa addr del $svc/32 dev lo
	wait_for no_route 10 || { echo "pair.sh: pb kept $svc after its withdrawal" >&2; exit 1; }
	sleep 0.2
	t0=$(grep -a -m1 "^\[.*Deleted .* inet $svc/32" "$dir/pa.mon" | stamp)
	t1=$(grep -a -m1 "^\[.*Deleted $svc " "$dir/pb.mon" | stamp)
	[ -n "$t0" ] && [ -n "$t1" ] || { echo "pair.sh: ip monitor missed an event" >&2; cat "$dir"/p?.mon >&2; exit 1; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$out"
	ip -n bbgp-pa addr add $svc/32 dev lo
	wait_for has_route 10 || { echo "pair.sh: pb did not learn $svc again" >&2; exit 1; }
	sleep 1
done
