#!/usr/bin/env bash
# The model of a cache that prefetches (docs/model.md, "Prefetch"): r
# prefetches at 50 % of a 2 s TTL, c1 honours TTLs and c2 resolves every
# 0.7 s, a is killed at 3 s. The clients' hits with little left refresh r's
# entry early, so which answer each holds at the steer depends on every
# query before it: the model follows them one by one, each of the two
# clients first at r in half its draws (the lab does not say which). The
# run is valid, no clock is outside the model's interval (no
# model_disagrees), each client's last packet to a lies within the
# model's bounds, and r prefetched (upstream-r.csv's reason).
# about 15 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-prefetch
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
cat >"$out/pf.ini" <<INI
[lab]
name = $lab
dns_name = www.lab.example
duration = 10s
rate = 100
[router core]
[site a]
link = core
[site b]
link = core
[dns ns]
link = core
[prober p1]
link = core
[resolver r]
link = core
prefetch = 50%
[client c1]
link = core
mode = dns
resolver = r
[client c2]
link = core
mode = dns
resolver = r
sticky = 700ms
[event kill]
at = 3s
action = kill
target = a
[zone lab.example]
soa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5
ttl = 60
record = @ NS ns.lab.example.
record = ns A 198.18.0.10
[name www.lab.example]
policy = failover
primary = a
secondary = b
ttl = 2
INI
$STEERLAB model "$out/pf.ini" --json >"$out/model.json"
r=$out/run
run_model_agrees "$out/run.txt" "$r" "$out/pf.ini"
for k in c1:100001 c2:100002; do
	got=$(json "$r/clocks.json" ".schemes.dns.last_by_client_s[\"${k#*:}\"]")
	lo=$(json "$out/model.json" ".schemes.dns.last_by_client_s.${k%:*}.min")
	hi=$(json "$out/model.json" ".schemes.dns.last_by_client_s.${k%:*}.max")
	assert_ge "$got" "$(awk -v x="$lo" 'BEGIN { print x - 0.02 }')" "${k%:*}'s last packet (s after t0), the model's least $lo"
	assert_le "$got" "$(awk -v x="$hi" 'BEGIN { print x + 0.1 }')" "${k%:*}'s last packet (s after t0), the model's greatest $hi"
done
assert_ge "$(grep -c ',prefetch,' "$r/upstream-r.csv")" 3 "r's prefetches (upstream-r.csv)"
assert_no_leftovers $lab "$r"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_model_prefetch"
