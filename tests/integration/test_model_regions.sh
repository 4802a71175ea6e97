#!/usr/bin/env bash
# The failover clocks of a geolocation name (topology/regions.ini; docs/model.md,
# "Policies other than failover"): three regions' caches, a and c's sent to
# site a, b's to b; a is killed at 2.25 s. The model names the clients that
# were on a at t0 (ca and cc, not cb) from the steady state's answers, and
# predicts each one's last packet: ca 1.75 s (its cache's entry to 4 s),
# cc 0.75 s (to 3 s), cb none. The run's every clock lies within the
# model's interval (no model_disagrees), each client's last packet within
# 20 ms below and 100 ms above the model's (and the scheduling slack the
# run's clients show), and cb sent nothing to a.
# about 10 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-regions
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'set +e; lab_cleanup '$lab'; [ -n "${passed:-}" ] && rm -rf "$out"' EXIT

$STEERLAB model topology/regions.ini --json >"$out/model.json"
for c in ca cc; do
	[ "$(json "$out/model.json" ".schemes.dns.last_by_client_s.$c.p50 > 0")" = true ] ||
		fail "the model does not have $c on a at t0: $(json "$out/model.json" .schemes.dns.last_by_client_s)"
done
[ "$(json "$out/model.json" ".schemes.dns.last_by_client_s.cb.max")" = 0 ] ||
	fail "the model has cb on a: $(json "$out/model.json" .schemes.dns.last_by_client_s)"
echo "ok: the model has ca and cc on a at t0, cb never"

r=$out/run
run_model_agrees "$out/run.txt" "$r" topology/regions.ini --set name=$lab
# the upper bound: 100 ms, and how late this machine ran the clients
# around the failure (sched_slack, docs/style.md): a loaded gate's clients
# sent their last packet to a 104 ms after the model's instant once
t0=$(json "$r/clocks.json" .t0_ns)
slack=$(sched_slack "$r" "$t0" $((t0 + 2000000000)))
for k in ca:100001 cb:100002 cc:100003; do
	got=$(json "$r/clocks.json" ".schemes.dns.last_by_client_s[\"${k#*:}\"]")
	want=$(json "$out/model.json" ".schemes.dns.last_by_client_s.${k%:*}.p50")
	assert_ge "$got" "$(awk -v x="$want" 'BEGIN { print x - 0.02 }')" "${k%:*}'s last packet at a (s after t0), the model's $want"
	assert_le "$got" "$(awk -v x="$want" -v s="$slack" 'BEGIN { print x + 0.1 + s }')" \
		"${k%:*}'s last packet at a (s after t0), the model's $want, 100 ms and the clients' slack $slack s later"
done
assert_no_leftovers $lab "$r"
passed=1
echo "PASS: test_model_regions"
