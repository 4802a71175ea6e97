#!/usr/bin/env bash
# Where SCHED_FIFO is refused (docs/topology.md, "Real-time priority"): a
# cgroup of the cpu controller with no real-time budget (cpu.rt_runtime_us
# 0, a new cgroup's default, as in many containers) refuses it even to
# root. steerlab says so once and runs bfdd and linkd at the default
# policy instead of failing to come up:
# - topology/latency.ini (its links' delays by linkd, this kernel having no
#   netem), 3 s: the warning, linkd without -p, the run valid, the delays
#   measured on the packets as configured (c1's requests to a 20 ms there
#   and back, within 1 ms);
# - topology/presets/ebgp.ini with bfd = yes, 3 s: bfdd up (BFD's sessions
#   up at the warm-up, as a run waits for), the run valid.
# Needs cgroup v1's cpu controller with real-time group scheduling
# (/sys/fs/cgroup/cpu/cpu.rt_runtime_us): this machine's and CI's kernel
# have it; without it the test says so and fails.
# about 11 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-rt
lab_guard $lab
cpu=/sys/fs/cgroup/cpu
[ -f "$cpu/cpu.rt_runtime_us" ] ||
	fail "no cgroup v1 cpu controller with real-time group scheduling ($cpu/cpu.rt_runtime_us)"
cg=$cpu/steerlab-it-rt.$$
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; echo $$ >'"$cpu"'/cgroup.procs; rmdir '"$cg"' 2>/dev/null; lab_cleanup '$lab'; [ -n "${passed:-}" ] && rm -rf "$out"' EXIT
mkdir "$cg"
[ "$(cat "$cg/cpu.rt_runtime_us")" = 0 ] || fail "$cg: cpu.rt_runtime_us is $(cat "$cg/cpu.rt_runtime_us"), not 0"
echo $$ >"$cg/cgroup.procs"
# the refusal itself, as any program here sees it
if chrt -f 1 true 2>/dev/null; then fail "SCHED_FIFO permitted in $cg"; fi
echo "ok: SCHED_FIFO refused in a cgroup with no real-time budget"

r=$out/lat
rc=0
run_valid "$r.log" topology/latency.ini --set name=$lab --set duration=3s --out "$r" || rc=$?
[ "$rc" = 0 ] || fail "latency.ini: exit status $rc"
grep -q "SCHED_FIFO is refused here (EPERM): bfdd and linkd run at the default policy" "$r.log" ||
	fail "latency.ini: no word of SCHED_FIFO refused: $(head -5 "$r.log")"
[ "$(grep -c 'SCHED_FIFO is refused' "$r.log")" = 1 ] || fail "latency.ini: the refusal said more than once"
echo "ok: latency.ini: the refusal said once, and the run valid"
grep -q "SCHED_FIFO" "$r"/*.linkd.log && fail "a linkd tried SCHED_FIFO: $(grep -h SCHED_FIFO "$r"/*.linkd.log)"
echo "ok: no linkd asked for SCHED_FIFO"
# the delay line's 10 ms each way on a's link, measured on c1's records:
# its requests a answered before the failure (at 2 s; 1 s of warm-up)
t0=$(json "$r/clocks.json" .t0_ns)
rtt=$(awk -F, -v t0="$t0" '/^[0-9]/ && $4 == "ok" && $5 == "a" && $3 < t0 { print $6 }' "$r"/requests-c1-dns.csv |
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] / 1e9 }')
[ -n "$rtt" ] || fail "latency.ini: no request of c1 answered by a before t0"
assert_ge "$rtt" 0.019 "c1's round trip to a (s, p50), by linkd at the default policy"
assert_le "$rtt" 0.021 "c1's round trip to a (s, p50), by linkd at the default policy"
assert_no_leftovers $lab "$r"

r=$out/bfd
rc=0
run_valid "$r.log" topology/presets/ebgp.ini --set name=$lab --set bfd=yes --set duration=3s \
	--set e1.at=1s --out "$r" || rc=$?
[ "$rc" = 0 ] || fail "ebgp.ini, bfd = yes: exit status $rc"
grep -q "SCHED_FIFO is refused here" "$r.log" || fail "ebgp.ini: no word of SCHED_FIFO refused"
ls "$r"/*.bfdd.log >/dev/null 2>&1 || fail "ebgp.ini: no bfdd ran"
echo "ok: ebgp.ini with BFD: bfdd at the default policy, BFD up at the warm-up, the run valid"
assert_no_leftovers $lab "$r"
passed=1
echo "PASS: test_rt_refused"
