#!/usr/bin/env bash
# bench/bringup: `steerlab up --no-agents` and `steerlab down` of a generated
# N-node star, against the same star built and removed by ip -batch,
# alternating, in one run. Prints the median times and the ratios.
# Usage (root): bench/bringup/run.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/result.sh
n=${1:-50} rounds=${2:-7}
[ "$(id -u)" = 0 ] || { echo "bench/bringup needs root: sudo make bench" >&2; exit 1; }
for ns in bstar-hub bip-hub; do
	ip netns list | grep "^$ns\b" >/dev/null && { echo "bench/bringup: namespace $ns exists; remove the previous bench run first" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/steerlab-bench.XXXXXX)
trap 'bin/steerlab down bstar >/dev/null 2>&1 || true; bench/bringup/ipbatch.sh down '"$n"' >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
bench/bringup/star.sh "$n" >"$tmp/star.ini"
bin/steerlab check "$tmp/star.ini" >/dev/null

ms() { echo $(( ($2 - $1) / 1000000 )); }
now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
: >"$tmp/sl_up"; : >"$tmp/sl_down"; : >"$tmp/ip_up"; : >"$tmp/ip_down"

# check PREFIX: both builds must be the same network: the last node reaches
# the first through the router.
check() {
	ip -n "$1-n$n" route | grep "^default via" >/dev/null || { echo "bench/bringup: $1 has no default route" >&2; exit 1; }
	ip netns exec "$1-n$n" ping -c 1 -W 1 198.18.0.2 >/dev/null 2>&1 ||
		{ command -v ping >/dev/null && { echo "bench/bringup: $1-n$n cannot reach s1" >&2; exit 1; }; }
	return 0
}

echo "bench/bringup: $n-node star, $rounds rounds, steerlab and ip -batch alternating"
for r in $(seq 1 "$rounds"); do
	t=$(now); bin/steerlab up "$tmp/star.ini" --no-agents --out "$tmp/run" >/dev/null; u=$(now)
	[ "$r" = 1 ] && check bstar
	bin/steerlab down bstar >/dev/null; d=$(now)
	ms "$t" "$u" >>"$tmp/sl_up"; ms "$u" "$d" >>"$tmp/sl_down"
	t=$(now); bench/bringup/ipbatch.sh up "$n"; u=$(now)
	[ "$r" = 1 ] && check bip
	bench/bringup/ipbatch.sh down "$n"; d=$(now)
	ms "$t" "$u" >>"$tmp/ip_up"; ms "$u" "$d" >>"$tmp/ip_down"
	printf '  round %d: steerlab up %s ms down %s ms | ip -batch up %s ms down %s ms\n' "$r" \
		"$(tail -1 "$tmp/sl_up")" "$(tail -1 "$tmp/sl_down")" "$(tail -1 "$tmp/ip_up")" "$(tail -1 "$tmp/ip_down")"
done
slu=$(median <"$tmp/sl_up"); sld=$(median <"$tmp/sl_down")
ipu=$(median <"$tmp/ip_up"); ipd=$(median <"$tmp/ip_down")
echo
printf '%-10s %12s %12s\n' "median" "up (ms)" "down (ms)"
printf '%-10s %12s %12s\n' "steerlab" "$slu" "$sld"
printf '%-10s %12s %12s\n' "ip -batch" "$ipu" "$ipd"
awk -v a="$slu" -v b="$ipu" -v c="$sld" -v d="$ipd" 'BEGIN {
	printf "ratio steerlab / ip -batch: up %.2f, down %.2f (target: up <= 1.00)\n", a / b, c / d }'
r=$(awk -v a="$slu" -v b="$ipu" 'BEGIN { printf "%.2f", a / b }')
bench_result bringup.up bringup "steerlab up / ip -batch up, $n-node star" "$r" "<= 1.00" "$(bench_judge "$r" "<=" 1)"
