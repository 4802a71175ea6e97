#!/usr/bin/env bash
# bench/dns-qps: dnsperf against authd (policies simple, geolocation and
# weighted), NSD and Knot serving the same zone on loopback, each server with
# one worker pinned to one CPU and dnsperf pinned to the other, alternating,
# in one run. Prints the median queries/s and latency of each and authd's
# ratios to NSD and Knot against the targets (issue 3).
# Usage: bench/dns-qps/run.sh [SECONDS] [ROUNDS]
# Environment: BDQ_PORT (first of five UDP/TCP ports on 127.0.0.1, default
# 55301), BDQ_OUTSTANDING (dnsperf -q, default 100), BDQ_RETRIES (how often a
# run is repeated when other programs took more than 10% of a CPU during it,
# default 2; the least disturbed run counts), BDQ_PERF=1 (then
# profile each server with perf for 4 s under the same load: its share of
# user-space time and its hottest functions).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/result.sh
secs=${1:-10} rounds=${2:-3}
addr=127.0.0.1 port0=${BDQ_PORT:-55301} outstanding=${BDQ_OUTSTANDING:-100}
retries=${BDQ_RETRIES:-2}
srv_cpu=1 cli_cpu=0

missing=""
need="nsd:nsd knotd:knot dnsperf:dnsperf kdig:knot-dnsutils taskset:util-linux ss:iproute2 pgrep:procps"
[ "${BDQ_PERF:-0}" = 1 ] && need="$need perf:linux-perf"
for c in $need; do
	command -v "${c%%:*}" >/dev/null || missing="$missing ${c#*:}"
done
[ -z "$missing" ] || { echo "bench/dns-qps: missing$missing (sudo apt-get install$missing)" >&2; exit 1; }
[ -x bin/authd ] || { echo "bench/dns-qps: no bin/authd (make bin/authd)" >&2; exit 1; }
if [ "$(nproc)" -lt 2 ]; then
	echo "bench/dns-qps: fewer than 2 CPUs: server and dnsperf share CPU 0" >&2
	srv_cpu=0
fi

# The servers, in the order of the table. authd runs once per policy.
names=(nsd knot authd-simple authd-geolocation authd-weighted)
label=("NSD" "Knot" "authd" "authd" "authd")
policy=("-" "-" "simple" "geolocation" "weighted")
declare -A port pid
for i in "${!names[@]}"; do
	port[${names[$i]}]=$((port0 + i))
done
for s in "${names[@]}"; do
	if [ -n "$(ss -Htuln "sport = :${port[$s]}")" ]; then
		echo "bench/dns-qps: port ${port[$s]} is in use; stop the previous bench run or set BDQ_PORT" >&2
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/steerlab-bench-dns.XXXXXX)
started=() # every PID this run started, with the children of the servers

# stop_all: TERM the PIDs we started, KILL what is left after 5 s.
stop_all() {
	local p left i
	for p in "${started[@]}"; do kill "$p" 2>/dev/null || true; done
	for i in $(seq 50); do
		left=""
		for p in "${started[@]}"; do [ -d "/proc/$p" ] && left="$left $p"; done
		[ -z "$left" ] && break
		sleep 0.1
	done
	for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
	for p in "${started[@]}"; do wait "$p" 2>/dev/null || true; done
	started=()
}
trap 'stop_all; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_until SECONDS COMMAND...: poll every 0.1 s.
wait_until() {
	local n=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# The zone, written once: for NSD and Knot a zone file, for authd a [zone]
# with the same records and www as a [name] whose answer is the same two A
# records (site a) under every policy.
soa="ns1 hostmaster 2024010101 3600 600 86400 20"
records=("@ NS ns1" "ns1 A 198.18.0.53" "@ MX 10 mail" "mail A 198.18.0.25" "api A 198.18.0.80")
site_a=(198.19.1.1 198.19.1.2)
site_b=(198.19.2.1 198.19.2.2)
{
	printf '$ORIGIN lab.example.\n$TTL 30\n@ SOA %s\n' "$soa"
	printf '%s\n' "${records[@]}"
	for a in "${site_a[@]}"; do echo "www A $a"; done
} >"$tmp/lab.example.zone"

authd_conf() {
	printf '[zone lab.example]\nsoa = %s\nttl = 30\n' "$soa"
	printf 'record = %s\n' "${records[@]}"
	printf '[site a]\n'
	printf 'address = %s\n' "${site_a[@]}"
	printf '[site b]\n'
	printf 'address = %s\n' "${site_b[@]}"
	printf '[name www.lab.example]\npolicy = %s\n' "$1"
	case $1 in
	simple) echo "sites = a" ;;
	# the querier, 127.0.0.1, is in the third prefix: a
	geolocation) printf 'geo = 198.18.0.0/15 b\ngeo = 10.0.0.0/8 b\ngeo = 127.0.0.0/8 a\ndefault = b\n' ;;
	weighted) printf 'weight = a 3\nweight = b 1\n' ;;
	esac
}

# Other work on the machine skews every figure: say so.
cpu0=$(head -1 /proc/stat); sleep 1; cpu1=$(head -1 /proc/stat)
echo "$cpu0 $cpu1" | awk '{ n = (NF - 2) / 2
	for (i = 2; i <= n + 1; i++) { d = $(i + n + 1) - $i; t += d; if (i == 5 || i == 6) idle += d }
	if (t > 0 && 100 * (t - idle) / t > 10)
		printf "bench/dns-qps: warning: the machine was %.0f%% busy before the run: the figures will be noisy\n", 100 * (t - idle) / t }'

mkdir -p "$tmp/nsd" "$tmp/knot"
cat >"$tmp/nsd/nsd.conf" <<EOF
server:
	server-count: 1
	ip-address: $addr@${port[nsd]}
	do-ip6: no
	username: ""
	chroot: ""
	zonesdir: "$tmp"
	database: ""
	zonelistfile: "$tmp/nsd/zone.list"
	xfrdfile: "$tmp/nsd/xfrd.state"
	xfrdir: "$tmp/nsd"
	pidfile: "$tmp/nsd/nsd.pid"
	logfile: "$tmp/nsd/nsd.log"
	verbosity: 0
	minimal-responses: yes
	rrl-ratelimit: 0
	rrl-whitelist-ratelimit: 0
remote-control:
	control-enable: no
zone:
	name: lab.example
	zonefile: "lab.example.zone"
EOF
cat >"$tmp/knot/knot.conf" <<EOF
server:
    rundir: "$tmp/knot"
    pidfile: "$tmp/knot/knot.pid"
    listen: $addr@${port[knot]}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
log:
  - target: stderr
    any: warning
database:
    storage: "$tmp/knot"
template:
  - id: default
    storage: "$tmp"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
zone:
  - domain: lab.example
    file: "lab.example.zone"
EOF
for pol in simple geolocation weighted; do
	authd_conf "$pol" >"$tmp/authd-$pol.ini"
	bin/authd -c "$tmp/authd-$pol.ini" -t >/dev/null
done
nsd-checkconf "$tmp/nsd/nsd.conf"
knotc -c "$tmp/knot/knot.conf" conf-check >/dev/null
echo "www.lab.example A" >"$tmp/queries"

# answers SERVER: www's A records as the server gives them, sorted.
answers() { kdig @"$addr" -p "${port[$1]}" +short +time=1 +retry=0 www.lab.example A | sort | tr '\n' ' '; }
answers_ok() { [ "$(answers "$1" | wc -w)" = "${#site_a[@]}" ]; }
# tree PID: PID and its descendants.
tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree "$c"; done
}
# cpu_ticks SERVER: "USER SYSTEM" clock ticks of the server's processes.
cpu_ticks() {
	local p
	for p in $(tree "${pid[$1]}"); do sed 's/.*) //' /proc/"$p"/stat 2>/dev/null || true; done |
		awk '{ u += $12; s += $13 } END { print u + 0, s + 0 }'
}

for s in "${names[@]}"; do
	case $s in
	nsd) taskset -c "$srv_cpu" nsd -d -c "$tmp/nsd/nsd.conf" >"$tmp/nsd/out" 2>&1 & ;;
	knot) taskset -c "$srv_cpu" knotd -c "$tmp/knot/knot.conf" >"$tmp/knot/out" 2>&1 & ;;
	authd-*) taskset -c "$srv_cpu" bin/authd -c "$tmp/$s.ini" -l "$addr:${port[$s]}" -C none \
		-e "$tmp/$s.events" >"$tmp/$s.out" 2>&1 & ;;
	esac
	pid[$s]=$!
	started+=("$!")
done
for s in "${names[@]}"; do
	if ! wait_until 10 answers_ok "$s"; then
		echo "bench/dns-qps: $s does not answer www.lab.example A with ${#site_a[@]} records on $addr:${port[$s]}; it said:" >&2
		cat "$tmp"/"$s"*.out "$tmp/$s/out" "$tmp/$s/nsd.log" 2>/dev/null | tail -5 >&2
		exit 1
	fi
	# Knot pins its UDP worker N to CPU N itself: pin every thread again,
	# so that all servers run on srv_cpu alone.
	for p in $(tree "${pid[$s]}"); do
		[ "$p" = "${pid[$s]}" ] || started+=("$p")
		taskset -a -cp "$srv_cpu" "$p" >/dev/null
	done
done

echo "bench/dns-qps: www.lab.example A from dnsperf (-c 1 -T 1 -q $outstanding, no rate limit) for $secs s," \
	"$rounds rounds; servers on CPU $srv_cpu, dnsperf on CPU $cli_cpu"
for s in "${names[@]}"; do printf '  %-18s %s:%-5s answers %s\n' "$s" "$addr" "${port[$s]}" "$(answers "$s")"; done

# busy_ticks: clock ticks the machine spent on anything but idle (and steal).
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# child_seconds: user + system seconds of this shell's finished children,
# as `times >"$tmp/times"` (run in this shell, not in a subshell) wrote them.
child_seconds() { awk 'NR == 2 { gsub(/s/, ""); split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp/times"; }

# run SERVER ROUND: one dnsperf run; appends a line to res-SERVER (fields
# in the order of `fields`). others: the CPU taken by whatever ran beside the
# server and dnsperf, i.e. the noise.
fields=(qps lat_ms srv_cpu srv_us srv_user_us lost resp_bytes others cli_cpu)
run() {
	local s=$1 out="$tmp/dnsperf-$1-$2" t0 t1 c0 c1 m0 m1 d0 d1
	c0=$(cpu_ticks "$s"); times >"$tmp/times"; d0=$(child_seconds); m0=$(busy_ticks); t0=$(date +%s%N)
	taskset -c "$cli_cpu" dnsperf -s "$addr" -p "${port[$s]}" -d "$tmp/queries" -l "$secs" \
		-c 1 -T 1 -q "$outstanding" >"$out" 2>&1 ||
		{ echo "bench/dns-qps: dnsperf against $s failed:" >&2; tail -5 "$out" >&2; exit 1; }
	t1=$(date +%s%N); m1=$(busy_ticks); times >"$tmp/times"; d1=$(child_seconds); c1=$(cpu_ticks "$s")
	grep -q "Queries per second" "$out" || { echo "bench/dns-qps: no result from dnsperf against $s" >&2; cat "$out" >&2; exit 1; }
	awk -v c0="$c0" -v c1="$c1" -v hz="$(getconf CLK_TCK)" -v ns=$((t1 - t0)) \
		-v busy=$((m1 - m0)) -v client="$d0 $d1" '
		BEGIN { split(c0, a, " "); split(c1, b, " "); user = (b[1] - a[1]) / hz; sys = (b[2] - a[2]) / hz
			split(client, d, " "); cli = d[2] - d[1]; secs = ns / 1e9
			others = busy / hz - (user + sys) - cli
			if (others < 0) others = 0 }
		/Queries sent:/ { sent = $3 }
		/Queries completed:/ { done = $3 }
		/Queries lost:/ { lost = $3 }
		/Average packet size:/ { rb = $NF }
		/Queries per second:/ { qps = $4 }
		/Average Latency/ { lat = $4 * 1000 }
		END { printf "%.0f %.3f %.0f %.3f %.3f %.2f %s %.0f %.0f\n", qps, lat, 100 * (user + sys) / secs,
			done ? 1e6 * (user + sys) / done : 0, done ? 1e6 * user / done : 0,
			sent ? 100 * lost / sent : 0, rb, 100 * others / secs, 100 * cli / secs }
	' "$out" >>"$tmp/res-$s"
	if ! grep -q "NOERROR [0-9]* (100.00%)" "$out"; then
		echo "bench/dns-qps: $s answered with other codes than NOERROR: $(grep 'Response codes' "$out")" >&2
		exit 1
	fi
}
# measure SERVER ROUND: run, and again (at most `retries` times) while other
# programs took more than 10% of a CPU; keeps the least disturbed run.
measure() {
	local s=$1 r=$2 a k
	: >"$tmp/tries"
	for a in $(seq 0 "$retries"); do
		run "$s" "$r.$a"
		tail -1 "$tmp/res-$s" >>"$tmp/tries"
		sed -i '$d' "$tmp/res-$s"
		[ "$(tail -1 "$tmp/tries" | field others)" -le 10 ] && break
	done
	for k in "${!fields[@]}"; do [ "${fields[$k]}" = others ] && break; done
	sort -t' ' -k$((k + 1)),$((k + 1))g "$tmp/tries" | sed -n 1p >>"$tmp/res-$s"
	tries=$(wc -l <"$tmp/tries")
}

# field NAME FILE...: that field of every run in the files.
field() {
	local f=$1 i
	shift
	for i in "${!fields[@]}"; do
		if [ "${fields[$i]}" = "$f" ]; then cut -d' ' -f$((i + 1)) "$@"; fi
	done
}

n=${#names[@]}
for r in $(seq 1 "$rounds"); do
	line="  round $r:" noise=""
	for k in $(seq 0 $((n - 1))); do
		s=${names[$(((k + r - 1) % n))]} # rotate the order from round to round
		measure "$s" "$r"
		line="$line $s $(tail -1 "$tmp/res-$s" | field qps)"
		noise="$noise $(tail -1 "$tmp/res-$s" | field others)%"
		[ "$tries" = 1 ] || noise="$noise (best of $tries)"
	done
	echo "$line q/s (others' CPU:$noise)"
done

echo
printf '%-6s %-12s %9s %10s %7s %7s %9s %8s %8s %7s %6s %6s\n' "median" "policy" "queries/s" "min-max" \
	"avg ms" "server" "server" "of which" "dnsperf" "others" "resp." "lost"
printf '%-6s %-12s %9s %10s %7s %7s %9s %8s %8s %7s %6s %6s\n' "" "" "" "" "" "CPU" "µs/query" "user" "CPU" "CPU" "bytes" ""
declare -A qps
for i in "${!names[@]}"; do
	s=${names[$i]} f="$tmp/res-${names[$i]}"
	qps[$s]=$(field qps "$f" | median)
	range=$(field qps "$f" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0fk-%.0fk", lo / 1000, hi / 1000 }')
	printf '%-6s %-12s %9.0f %10s %7.3f %6.0f%% %9.2f %8.2f %7.0f%% %6.0f%% %6s %5.2f%%\n' "${label[$i]}" "${policy[$i]}" \
		"${qps[$s]}" "$range" "$(field lat_ms "$f" | median)" "$(field srv_cpu "$f" | median)" \
		"$(field srv_us "$f" | median)" "$(field srv_user_us "$f" | median)" "$(field cli_cpu "$f" | median)" \
		"$(field others "$f" | median)" "$(field resp_bytes "$f" | median)" "$(field lost "$f" | median)"
done
echo
printf '%-12s %12s %12s   %s\n' "policy" "authd/NSD" "authd/Knot" "target (queries/s)"
for pol in simple geolocation weighted; do
	awk -v p="$pol" -v a="${qps[authd-$pol]}" -v n="${qps[nsd]}" -v k="${qps[knot]}" 'BEGIN {
		t = (p == "simple") ? 1.0 : 0.8
		r = sprintf("%.2f", a / n) # judged as printed
		printf "%-12s %12s %12.2f   authd >= %.1fx NSD: %s\n", p, r, a / k, t, (r + 0 >= t) ? "PASS" : "FAIL" }'
	r=$(awk -v a="${qps[authd-$pol]}" -v n="${qps[nsd]}" 'BEGIN { printf "%.2f", a / n }')
	t=$([ "$pol" = simple ] && echo 1.0 || echo 0.8)
	bench_result "dns.$pol" dns-qps "authd $pol / NSD, queries/s" "$r" ">= $t" "$(bench_judge "$r" ">=" "$t")"
done
field others "$tmp"/res-* | median | awk '$1 > 10 { printf "warning: other programs took %.0f%% of a CPU in the median run: the figures are noisy (run on a quiet machine)\n", $1 }'
field cli_cpu "$tmp"/res-* | median | awk '$1 >= 95 { printf "note: dnsperf used %.0f%% of its CPU in the median run: queries/s is near the client'"'"'s limit, server µs/query compares the servers\n", $1 }'

[ "${BDQ_PERF:-0}" = 1 ] || exit 0

# profile SERVER: perf record (cpu-clock) of the server's processes for 4 s
# of the same load; prints the kernel's share and the top user functions.
profile() {
	local s=$1 data="$tmp/perf-$1.data" dp
	taskset -c "$cli_cpu" dnsperf -s "$addr" -p "${port[$s]}" -d "$tmp/queries" -l 6 -c 1 -T 1 \
		-q "$outstanding" >"$tmp/perf-$s.dnsperf" 2>&1 &
	dp=$!
	started+=("$dp")
	sleep 1
	perf record -q -e cpu-clock -F 2999 -o "$data" -p "$(tree "${pid[$s]}" | paste -sd,)" -- sleep 4 \
		>/dev/null 2>&1
	wait "$dp" || true
	perf report -i "$data" --no-children --sort dso,sym --stdio 2>/dev/null | awk -v s="$s" '
		/^#/ || !/%/ { next }
		{ pct = $1; sub(/%/, "", pct) }
		$3 == "[k]" { k += pct; if (nk < 4) ktop[nk++] = sprintf("%s %s", $1, $4); next }
		{ user += pct; if (n < 8) top[n++] = sprintf("%s %s", $1, $4) }
		END {
			printf "  %-18s kernel %.1f%%, user %.1f%%\n    hottest kernel functions: ", s, k, user
			for (i = 0; i < nk; i++) printf "%s%s", i ? ", " : "", ktop[i]
			printf "\n    hottest user functions:"
			for (i = 0; i < n; i++) printf "%s%s", (i % 4) ? ", " : "\n      ", top[i]
			printf "\n" }'
}

echo
echo "perf: each server under the same load for 4 s (shares of its CPU samples)"
for s in "${names[@]}"; do profile "$s"; done
