#!/usr/bin/env bash
# bench/analysis: `steerlab report` on a synthetic run directory whose dead
# site's capture holds at least 10 million requests (tests/tools/synthrun),
# against `tcpdump -r --count` of that capture and tshark computing the same
# per-site counts as the clocks, alternating, in one run. Prints the median
# times, the packets per second of each, steerlab's ratios to the targets
# (issue 21: at least 1.0x tcpdump's packets/s with the plots, at least 20x
# tshark's) and the median time of each stage of the report (read, clocks,
# verdict, writers, plots: `steerlab report --times`), so that a regression
# names its stage.
# Usage: bench/analysis/run.sh [PACKETS] [ROUNDS]   (default 10000000 and 3)
# Environment: TMPDIR (where the run directory goes, about 127 bytes per
# packet: 1.3 GB; default /tmp), BAN_PERF=1 (then a perf profile of one
# `steerlab report`: its hottest functions).
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/result.sh
packets=${1:-10000000} rounds=${2:-3}
build=${BUILD:-build/release}
synthrun=$build/tools/synthrun
steerlab=bin/steerlab

missing=""
need="tcpdump:tcpdump tshark:tshark jq:jq gnuplot:gnuplot-nox"
[ "${BAN_PERF:-0}" = 1 ] && need="$need perf:linux-perf"
for c in $need; do
	command -v "${c%%:*}" >/dev/null || missing="$missing ${c#*:}"
done
[ -z "$missing" ] || { echo "bench/analysis: missing$missing (sudo apt-get install$missing)" >&2; exit 1; }
for f in "$steerlab" "$synthrun"; do
	[ -x "$f" ] || { echo "bench/analysis: no $f (make $f)" >&2; exit 1; }
done

# The run directory and the captures' page cache: room for both.
base=${TMPDIR:-/tmp}
bytes=$((packets * 127 + 100000000))
avail=$(df -B1 --output=avail "$base" | tail -1)
[ "$avail" -gt "$bytes" ] || {
	echo "bench/analysis: $base has $((avail >> 20)) MiB free, the run needs $((bytes >> 20)) MiB (set TMPDIR)" >&2
	exit 1
}
memavail=$(awk '/^MemAvailable:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo)
[ "$memavail" -gt $((bytes * 3)) ] || echo "bench/analysis: warning: $((memavail >> 20)) MiB of memory" \
	"available: the captures may not stay in the page cache, and tshark needs ~200 bytes a packet"

tmp=$(mktemp -d "$base/steerlab-bench-analysis.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
run=$tmp/run
mkdir "$tmp/nobin" # a PATH without gnuplot: the report without its plots

echo "bench/analysis: writing a synthetic run of at least $packets requests at site a ($run)"
t=$(date +%s%N)
"$synthrun" -n "$packets" "$run" >"$tmp/synthrun.out"
read -r t0_ns na nb nq any_a any_b dns_a dns_b < <(tr ' ' '\n' <"$tmp/synthrun.out" | cut -d= -f2 | paste -sd' ')
printf '  capture-a.pcap %d requests (%d MiB), capture-b.pcap %d, capture-dns-ns.pcap %d queries; %.1f s\n' \
	"$na" $(($(stat -c %s "$run/capture-a.pcap") >> 20)) "$nb" "$nq" "$(awk -v n=$(($(date +%s%N) - t)) 'BEGIN { print n / 1e9 }')"
# every tool reads the captures from the page cache, written back (no
# writeback during the rounds)
sync "$run"/capture-*.pcap
cat "$run"/capture-*.pcap >/dev/null

# The per-site counts, as the clocks define them (docs/clocks.md; the same
# filters as tests/integration/test_tshark_crosscheck.sh): requests after t0
# of each scheme on each site link, and the DNS requests to the dead site's
# address. tshark decodes port 7000 as data (-d), its fastest here.
t0="${t0_ns:0:${#t0_ns}-9}.${t0_ns: -9}"
req="ip && udp.dstport == 7000 && ip.frag_offset == 0 && ip.flags.mf == 0 && len(udp.payload) >= 48"
req="$req && udp.payload[0:6] == 53:4c:52:51:01:01 && frame.time_epoch > $t0"
f_any="$req && udp.payload[8:4] > 00:00:00:00 && udp.payload[8:4] < 00:01:86:a0 && ip.dst == 198.19.0.1/32"
f_dns="$req && udp.payload[8:4] >= 00:01:86:a0"
f_dead="$f_dns && ip.dst == 198.19.1.1"

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# busy_ticks: clock ticks the machine spent on anything but idle (and steal).
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# child_seconds: user + system seconds of this shell's finished children,
# as `times >"$tmp/times"` (run in this shell, not in a subshell) wrote them.
child_seconds() { awk 'NR == 2 { gsub(/s/, ""); split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp/times"; }

# The tools, in the order of the table: run_TOOL runs one (and is timed),
# check_TOOL then checks what it said against what synthrun wrote.
tools=(steerlab noplot tcpdump tshark)
declare -A label=([steerlab]="steerlab report" [noplot]="  without plots" [tcpdump]="tcpdump --count"
	[tshark]="tshark io,stat")
declare -A npkt=([steerlab]=$((na + nb + nq)) [noplot]=$((na + nb + nq)) [tcpdump]=$na [tshark]=$((na + nb)))
declare -A reads=([steerlab]="every capture" [noplot]="every capture" [tcpdump]="capture-a.pcap" [tshark]="capture-a, -b")

# exit 3 is a full analysis whose verdict is "invalid": the synthetic run's
# records lose nothing while its captures reach the dead site (loss_mismatch),
# which is what the timing needs, not a consistent lab
report_ok() { local rc=0; "$@" >"$tmp/out" 2>&1 || rc=$?; [ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat "$tmp/out" >&2; exit 1; }; }
run_steerlab() { report_ok "$steerlab" report "$run" --times; }
run_noplot() { PATH="$tmp/nobin" report_ok "$steerlab" report "$run" --times; }
run_tcpdump() { tcpdump -r "$run/capture-a.pcap" --count 'udp dst port 7000' >"$tmp/out" 2>/dev/null; }
# tshark_counts FILE FILTER...: the frames of FILE matching each filter, in one pass.
tshark_counts() {
	local f=$1 args="" x
	shift
	for x in "$@"; do args="$args,$x"; done
	tshark -n -d udp.port==7000,data -r "$f" -q -z "io,stat,0$args" 2>/dev/null |
		awk -F'|' '/<>/ { for (i = 3; i <= NF; i += 2) if ($i ~ /[0-9]/) printf "%s%d", n++ ? " " : "", $i }
			END { print "" }'
}
run_tshark() {
	echo "$(tshark_counts "$run/capture-a.pcap" "$f_any" "$f_dns" "$f_dead") $(tshark_counts "$run/capture-b.pcap" "$f_any" "$f_dns")" >"$tmp/out"
}

check_steerlab() {
	local got want="$any_a $any_b $dns_a $dns_b $any_a $dns_a"
	got=$(jq -r '[.schemes.anycast.captured_after_t0.a, .schemes.anycast.captured_after_t0.b,
		.schemes.dns.captured_after_t0.a, .schemes.dns.captured_after_t0.b,
		.schemes.anycast.lost_capture, .schemes.dns.lost_capture] | map(tostring) | join(" ")' "$run/clocks.json")
	[ "$got" = "$want" ] || { echo "bench/analysis: steerlab counts $got, synthrun wrote $want" >&2; exit 1; }
	[ "${1:-}" = noplot ] || grep "plots: decay.png" "$tmp/out" >/dev/null ||
		{ echo "bench/analysis: no plots drawn:" >&2; tail -3 "$tmp/out" >&2; exit 1; }
}
check_noplot() { check_steerlab noplot; }
# stages TOOL: the stage times `steerlab report --times` printed, appended
# to stages-TOOL as "read clocks verdict writers plots" (seconds)
stages() {
	sed -n 's/^report: stages: //p' "$tmp/out" | tr -d ',' |
		awk '{ for (i = 2; i <= NF; i += 3) printf "%s%s", (i > 2 ? " " : ""), $i; print "" }' >>"$tmp/stages-$1"
}
check_tcpdump() {
	[ "$(awk '{ print $1 }' "$tmp/out")" = "$na" ] ||
		{ echo "bench/analysis: tcpdump says $(cat "$tmp/out") in capture-a.pcap, not $na" >&2; exit 1; }
}
check_tshark() {
	[ "$(cat "$tmp/out")" = "$any_a $dns_a $dns_a $any_b $dns_b" ] ||
		{ echo "bench/analysis: tshark counts $(cat "$tmp/out"), synthrun wrote $any_a $dns_a $dns_a $any_b $dns_b" >&2; exit 1; }
}

# measure TOOL: one timed run, then its check; appends "seconds others% cpu"
# to res-TOOL: others is the CPU that anything but the tool took meanwhile
# (the noise), cpu the tool's own user + system seconds (its children's
# included: gnuplot's for steerlab).
measure() {
	local s=$1 t0 t1 c0 c1 m0 m1
	times >"$tmp/times"; c0=$(child_seconds); m0=$(busy_ticks); t0=$(date +%s%N)
	"run_$s"
	t1=$(date +%s%N); m1=$(busy_ticks); times >"$tmp/times"; c1=$(child_seconds)
	"check_$s"
	case $s in steerlab | noplot) stages "$s" ;; esac
	awk -v ns=$((t1 - t0)) -v busy=$((m1 - m0)) -v hz="$(getconf CLK_TCK)" -v c="$c0 $c1" 'BEGIN {
		split(c, x, " "); others = busy / hz - (x[2] - x[1]); if (others < 0) others = 0
		printf "%.4f %.0f %.2f\n", ns / 1e9, 100 * others / (ns / 1e9), x[2] - x[1] }' >>"$tmp/res-$s"
}

cpu0=$(head -1 /proc/stat); sleep 1; cpu1=$(head -1 /proc/stat)
echo "$cpu0 $cpu1" | awk '{ n = (NF - 2) / 2
	for (i = 2; i <= n + 1; i++) { d = $(i + n + 1) - $i; t += d; if (i == 5 || i == 6) idle += d }
	if (t > 0 && 100 * (t - idle) / t > 10)
		printf "bench/analysis: warning: the machine was %.0f%% busy before the run: the figures will be noisy\n", 100 * (t - idle) / t }'

# One untimed run of steerlab and tcpdump first: the first process to take
# a few hundred MB after synthrun wrote its GB is slowed by the kernel (0.5 s
# more, every time here), whichever it is. tshark is 100 times slower anyway.
for s in steerlab tcpdump; do "run_$s"; "check_$s"; done

echo "bench/analysis: $rounds rounds, the tools alternating (order rotating), after a warm-up; t0 = $t0"
n=${#tools[@]}
for r in $(seq 1 "$rounds"); do
	line="  round $r:"
	for k in $(seq 0 $((n - 1))); do
		s=${tools[$(((k + r - 1) % n))]}
		measure "$s"
		line="$line $s $(tail -1 "$tmp/res-$s" | awk '{ printf "%.2f s (CPU %.2f s, others %d%%)", $1, $3, $2 }');"
	done
	echo "${line%;}"
done

echo
printf '%-18s %-15s %11s %10s %9s %14s %7s %7s\n' "median of $rounds" "reads" "packets" "seconds" "min-max" \
	"packets/s" "CPU s" "others"
declare -A pps ppc
for s in "${tools[@]}"; do
	secs=$(cut -d' ' -f1 "$tmp/res-$s" | median)
	pps[$s]=$(awk -v n="${npkt[$s]}" -v t="$secs" 'BEGIN { printf "%.0f", n / t }')
	ppc[$s]=$(awk -v n="${npkt[$s]}" -v t="$(cut -d' ' -f3 "$tmp/res-$s" | median)" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
	printf '%-18s %-15s %11d %10.3f %9s %14s %7.2f %6.0f%%\n' "${label[$s]}" "${reads[$s]}" "${npkt[$s]}" "$secs" \
		"$(cut -d' ' -f1 "$tmp/res-$s" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }')" \
		"${pps[$s]}" "$(cut -d' ' -f3 "$tmp/res-$s" | median)" "$(cut -d' ' -f2 "$tmp/res-$s" | median)"
done
echo
printf '%-30s %10s %10s   %s\n' "packets/s ratio" "tcpdump" "tshark" "targets: >= 1.0x tcpdump, >= 20x tshark"
for s in steerlab noplot; do
	awk -v a="${pps[$s]}" -v d="${pps[tcpdump]}" -v k="${pps[tshark]}" -v judged=$([ $s = steerlab ] && echo 1 || echo 0) 'BEGIN {
		rd = sprintf("%.2f", a / d); rk = sprintf("%.1f", a / k) # judged as printed
		printf "%-30s %10s %10s   %s\n", (judged ? "steerlab report" : "steerlab report, no plots"), rd, rk,
			judged ? ((rd + 0 >= 1.0 ? "PASS" : "FAIL") " / " (rk + 0 >= 20 ? "PASS" : "FAIL")) : "(not judged)" }'
done
r=$(awk -v a="${pps[steerlab]}" -v d="${pps[tcpdump]}" 'BEGIN { printf "%.2f", a / d }')
bench_result analysis.tcpdump analysis "steerlab report / tcpdump --count, packets/s" "$r" ">= 1.0" \
	"$(bench_judge "$r" ">=" 1)"
r=$(awk -v a="${pps[steerlab]}" -v k="${pps[tshark]}" 'BEGIN { printf "%.1f", a / k }')
bench_result analysis.tshark analysis "steerlab report / tshark, packets/s" "$r" ">= 20" "$(bench_judge "$r" ">=" 20)"
# the same by CPU time (the tool's and its children's): what other programs
# running beside it move least; not judged
for s in steerlab noplot; do
	awk -v a="${ppc[$s]}" -v d="${ppc[tcpdump]}" -v k="${ppc[tshark]}" -v n="$s" 'BEGIN {
		printf "%-30s %10.2f %10.1f   (by CPU time, not judged)\n",
			(n == "steerlab" ? "steerlab report" : "steerlab report, no plots"), a / d, a / k }'
done
echo
printf '%-30s %8s %8s %8s %8s %8s\n' "stages, median (s)" read clocks verdict writers plots
for s in steerlab noplot; do
	printf '%-30s' "$([ $s = steerlab ] && echo "steerlab report" || echo "steerlab report, no plots")"
	for k in 1 2 3 4 5; do printf ' %8.3f' "$(cut -d' ' -f$k "$tmp/stages-$s" | median)"; done
	echo
done
cut -d' ' -f2 "$tmp"/res-* | median | awk '$1 > 10 { printf "warning: other programs took %.0f%% of a CPU in the median run: the figures are noisy (run on a quiet machine)\n", $1 }'

[ "${BAN_PERF:-0}" = 1 ] || exit 0
echo
echo "perf: one steerlab report (shares of its CPU samples, children included)"
# perf exits with the report's status: 3 is the synthetic run's verdict
perf record -q -F 4999 -o "$tmp/perf.data" -- "$steerlab" report "$run" >/dev/null 2>&1 || [ $? = 3 ]
perf report -i "$tmp/perf.data" --no-children --sort comm,sym --stdio 2>/dev/null |
	awk '/^#/ || !/%/ { next } n++ < 20 { printf "  %s\n", $0 }'
