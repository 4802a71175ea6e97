#!/usr/bin/env bash
# bench/links: the delay line (linkd) against what it was told (issue 24).
#
# Two throwaway namespaces, blk-a and blk-b, joined by a veth; linkd in
# blk-a impairs blk-a's egress. blast (tests/tools/blast) sends RATE
# datagrams/s for SECONDS from blk-a to 1000 ports of blk-b (1000 flows, so
# that the per-flow order linkd keeps does not bind under jitter), each
# stamped with its send time; tcpdump captures them on blk-b's end with
# nanosecond time stamps; tests/tools/owd reads the capture: the one-way
# delay of every datagram (arrival stamp - send stamp, one clock), and the
# same percentiles of a million of lib/impair's draws of the configured
# impairment. (The send end has no capture of its own: a capture on blk-a's
# veth sees packets after the postrouting hook, i.e. as linkd releases
# them; the send stamp is that end.) Three runs:
#
#   floor   no linkd: what blast, the veth and the capture add (reported)
#   delay   linkd -d 10ms
#   jitter  linkd -d 10ms -j '1ms normal' -l 1%
#
# For each: datagrams sent and captured, the measured p50 and p99 against
# the configured ones and their error (target: |p99 error| <= max(0.2 ms,
# 2 % of the configured p99)), the loss against its binomial 99 % interval
# (target: inside), the drops linkd did not decide (sent - captured -
# linkd's loss draws, and linkd's count of queue overflows; target 0), and
# linkd's CPU per packet (its own getrusage, which includes the kernel's
# work sending each released packet on). linkd runs at SCHED_FIFO
# priority 50 (-p 50) and blast at 10, as a lab on a shared machine would
# run them; the load average is printed with each run.
#
#   bench/links/run.sh [SECONDS [RATE]]     (root; default 3 100000)
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/result.sh
secs=${1:-3} rate=${2:-100000}
BUILD=${BUILD:-build/release}
LINKD=${LINKD:-bin/linkd}
BLAST=${BLAST:-$BUILD/tools/blast}
OWD=${OWD:-$BUILD/tools/owd}
nsa=blk-a nsb=blk-b
[ "$(id -u)" = 0 ] || { echo "bench/links: needs root (namespaces)" >&2; exit 77; }
for f in "$LINKD" "$BLAST" "$OWD"; do
	[ -x "$f" ] || { echo "bench/links: $f not built (make all tools)" >&2; exit 1; }
done
command -v tcpdump >/dev/null || { echo "bench/links: needs tcpdump (make deps)" >&2; exit 1; }
for ns in $nsa $nsb; do
	[ ! -e "/run/netns/$ns" ] || { echo "bench/links: namespace $ns exists (another bench?); not touching it" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/steerlab-bench-links.XXXXXX)
lpid= tpid=
cleanup() {
	[ -n "$lpid" ] && kill -TERM "$lpid" 2>/dev/null && wait "$lpid" 2>/dev/null
	[ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	for ns in $nsa $nsb; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	[ -n "${KEEP_OUT:-}" ] && echo "bench/links: files kept in $tmp" || rm -rf "$tmp"
	return 0
}
trap cleanup EXIT
load() { cut -d' ' -f1 /proc/loadavg; }

ip netns add $nsa
ip netns add $nsb
ip -n $nsa link set lo up
ip -n $nsb link set lo up
ip -n $nsa link add blka type veth peer name blkb netns $nsb
ip -n $nsa addr add 198.18.34.1/30 dev blka
ip -n $nsb addr add 198.18.34.2/30 dev blkb
ip -n $nsa link set blka up
ip -n $nsb link set blkb up
# blk-b drops the datagrams after the capture, rather than answering each
# with an ICMP port unreachable
ip netns exec $nsb nft -f - <<'EOF'
table inet blk {
	chain input {
		type filter hook input priority 0; policy accept;
		udp dport 7000-7999 drop
	}
}
EOF

# wait_for FILE TEXT PID: until FILE has TEXT (5 s), or PID exited
wait_for() {
	for _ in $(seq 50); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# val FILE KEY: the value of "KEY VALUE" in FILE
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

printf '%-7s %6s %8s %8s %7s %9s %9s %9s %9s %8s %8s %7s %7s %6s %s\n' run load sent captured "loss%" \
	"want p50" "got p50" "want p99" "got p99" "err p50" "err p99" "tol" undecd "us/pkt" verdict
# run NAME LOSS_PCT OWD_ARGS... -- LINKD_ARGS...: one run, its row
run() {
	local name=$1 loss=$2 l0 sent cap dist dropped=0 overflow=0 cpu=- late= v=PASS
	shift 2
	local owd_args=() linkd_args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do owd_args+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	linkd_args=("$@")
	l0=$(load)
	ip netns exec $nsb tcpdump -i blkb -w "$tmp/$name.pcap" -B 262144 -s 128 -n \
		--time-stamp-precision=nano 'udp dst portrange 7000-7999' 2>"$tmp/$name.tcpdump" &
	tpid=$!
	wait_for "$tmp/$name.tcpdump" "listening on" $tpid || { cat "$tmp/$name.tcpdump" >&2; return 1; }
	if [ ${#linkd_args[@]} -gt 0 ]; then
		ip netns exec $nsa "$LINKD" -p 50 -e "$tmp/$name.events" -i blka "${linkd_args[@]}" 2>"$tmp/$name.linkd" &
		lpid=$!
		wait_for "$tmp/$name.linkd" "delay line on" $lpid || { cat "$tmp/$name.linkd" >&2; return 1; }
	fi
	ip netns exec $nsa chrt -f 10 "$BLAST" -t 198.18.34.2:7000 -r "$rate" -d "${secs}s" -b 8 -f 1000 \
		>"$tmp/$name.blast"
	sent=$(sed -n 's/^blast: sent \([0-9]*\) .*/\1/p' "$tmp/$name.blast")
	sleep 0.5
	if [ -n "$lpid" ]; then
		kill -TERM $lpid
		wait $lpid || { cat "$tmp/$name.linkd" >&2; lpid=; return 1; }
		lpid=
		local sum
		sum=$(grep 'summary:' "$tmp/$name.linkd")
		dropped=$(echo "$sum" | sed -E 's/.* dropped ([0-9]+) .*/\1/')
		overflow=$(echo "$sum" | sed -E 's/.* overflow ([0-9]+) .*/\1/')
		cpu=$(echo "$sum" | sed -E 's/.* ([0-9.]+) us\/packet\).*/\1/')
		late=$(echo "$sum" | sed -E 's/.* late (p50 [0-9]+ us p99 [0-9]+ us) .*/\1/')
	fi
	sleep 1
	kill -INT $tpid
	wait $tpid || true
	tpid=
	grep -q '^0 packets dropped by kernel' "$tmp/$name.tcpdump" || {
		echo "bench/links: $name: tcpdump dropped packets: the capture is incomplete" >&2
		v=FAIL
	}
	"$OWD" -r "$tmp/$name.pcap" "${owd_args[@]}" >"$tmp/$name.owd"
	cap=$(val "$tmp/$name.owd" captured)
	dist=$(val "$tmp/$name.owd" distinct)
	awk -v name="$name" -v l0="$l0" -v sent="$sent" -v cap="$cap" -v dist="$dist" -v loss="$loss" \
		-v dropped="$dropped" -v overflow="$overflow" -v cpu="$cpu" -v v="$v" \
		-v gp50="$(val "$tmp/$name.owd" owd_p50_us)" -v gp99="$(val "$tmp/$name.owd" owd_p99_us)" \
		-v wp50="$(val "$tmp/$name.owd" want_p50_us)" -v wp99="$(val "$tmp/$name.owd" want_p99_us)" '
	function fmt(x) { return x == "" ? "-" : sprintf("%.3f", x / 1000) }
	BEGIN {
		lost = sent - dist
		undecided = lost - dropped + overflow
		p = loss / 100
		half = 2.576 * sqrt(p * (1 - p) / sent)
		lossp = 100 * lost / sent
		if (wp50 != "") {
			e50 = gp50 - wp50; e99 = gp99 - wp99
			tol = 0.02 * wp99; if (tol < 200) tol = 200
			if (e99 > tol || e99 < -tol) v = "FAIL"
		}
		if (lost / sent < p - half || lost / sent > p + half) v = "FAIL"
		if (undecided != 0 || cap != dist) v = "FAIL"
		if (wp50 == "") v = "-"
		printf "%-7s %6s %8d %8d %7.3f %9s %9s %9s %9s %8s %8s %7s %7d %6s %s\n", name, l0, sent, cap, lossp,
			fmt(wp50), fmt(gp50), fmt(wp99), fmt(gp99), wp50 == "" ? "-" : fmt(e50),
			wp50 == "" ? "-" : fmt(e99), wp50 == "" ? "-" : fmt(tol), undecided, cpu, v
		if (loss > 0)
			printf "        loss %.3f %% against %.3f %% +- %.3f %% (binomial 99 %%, %d sent)\n",
				lossp, loss, 100 * half, sent
	}' | tee "$tmp/$name.row"
	[ -z "$late" ] || echo "        linkd's own count of its releases' lateness: $late"
}

run floor 0
run delay 0 -d 10ms -- -d 10ms
run jitter 1 -d 10ms -j '1ms normal' -- -d 10ms -j '1ms normal' -l 1%
echo "(ms but loss, undecided drops and CPU; tolerance max(0.2 ms, 2 % of p99); load: 1-min average at the start; now $(load))"

for name in delay jitter; do
	read -r _ _ _ _ _ _ _ _ _ _ e99 tol und cpu verdict <"$tmp/$name.row"
	bench_result "links.$name.p99" links "linkd $name: p99 one-way delay error (ms)" "$e99" "<= $tol" "$verdict"
	bench_result "links.$name.undecided" links "linkd $name: drops linkd did not decide" "$und" "== 0" \
		"$([ "$und" = 0 ] && echo PASS || echo FAIL)"
done
bench_result links.cpu links "linkd at $rate/s: CPU per packet (us)" "$cpu" - -
