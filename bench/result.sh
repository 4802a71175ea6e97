# bench/result.sh, sourced by each bench: bench_result adds one row to the
# summary `make bench` prints (bench/all.sh, bench/summary.sh) when
# BENCH_SUMMARY names a file; a bench run alone prints its own tables only.
#
# bench_result ID BENCH WHAT VALUE TARGET VERDICT
#   ID       a stable key, for the history table of docs/benchmarks.md
#            (dns.simple, analysis.tcpdump, bgp.withdraw10, ...)
#   WHAT     the ratio or figure, in words
#   VALUE    as printed by the bench
#   TARGET   e.g. ">= 1.00", "<= 5 s"; "-" when none
#   VERDICT  PASS, FAIL or "-" (not judged)
bench_result() {
	[ -n "${BENCH_SUMMARY:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$BENCH_SUMMARY"
}

# bench_judge VALUE OP LIMIT: PASS or FAIL (OP is >= or <=), VALUE as printed
bench_judge() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		ok = (op == ">=") ? (v + 0 >= l + 0) : (v + 0 <= l + 0); print ok ? "PASS" : "FAIL" }'
}
