#!/usr/bin/env bash
# bench/all.sh: what `make bench` runs: every bench in turn with its
# defaults, each one's output shown and kept in BENCH_LOGS (default a new
# /tmp/steerlab-bench-all.XXXXXX, kept), then one table of every ratio
# against its target (bench/summary.sh). A bench that fails does not stop
# the others: its row says so. BENCH_ONLY="analysis bgp" runs those alone;
# BENCH_ARGS_analysis="4000000 3" gives bench/analysis/run.sh its arguments
# (BENCH_ARGS_dns_qps for dns-qps). Root (the labs).
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/result.sh
logs=${BENCH_LOGS:-$(mktemp -d /tmp/steerlab-bench-all.XXXXXX)}
mkdir -p "$logs"
export BENCH_SUMMARY=$logs/summary.tsv
: >"$BENCH_SUMMARY"
for b in ${BENCH_ONLY:-bringup dns-qps analysis bgp load links}; do
	[ -x "bench/$b/run.sh" ] || { echo "bench/all: no bench/$b/run.sh" >&2; exit 2; }
	echo "== bench/$b ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
	args=BENCH_ARGS_${b//-/_}
	# shellcheck disable=SC2086 # the arguments, split as given
	bench/"$b"/run.sh ${!args:-} 2>&1 | tee "$logs/$b.log"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || bench_result "$b.run" "$b" "bench/$b/run.sh exited $rc (see $logs/$b.log)" - - FAIL
done
bench/summary.sh "$BENCH_SUMMARY" | tee "$logs/summary.txt"
echo "logs in $logs"
