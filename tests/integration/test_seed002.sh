#!/usr/bin/env bash
# Seed 002's decay reproduced by a run (issue 26, item 5):
# topology/presets/seed002.ini, the seed's TTL 300 s column 100 times
# faster (2,500 users, half the preset's, over 64 spread caches, 2 % sticky for 18 s, a check
# that needs three failures of a 100 ms probe). The run is valid, every
# clock lies within the model's interval (no model_disagrees, but for the
# sticky tail's last users: below), and bucket by
# bucket of decay.csv (100 ms each, until the traffic ends):
# - the run's share of requests sent to a is the model's (which follows
#   every user through its cache: the lab's assumptions) within 1 point,
#   against the model's bucket or the one either side: each cache moves 1/64
#   of the users (1.56 points) at once, and on a loaded machine its switch
#   may cross a bucket's edge some ms from the model's (a gate's run lagged
#   about 60 ms: 2.16 points off bucket by bucket, 0.10 with a bucket either
#   way);
# - it is the seed's formula (../shared/seeds/002: still_sent, with the
#   run's own detect, TTL 3 s, sticky 18 s, 2 %) one request interval
#   (0.5 s) later, at the bucket's middle, where the two agree on what
#   happens: the users who honour the TTL (until 0.5 s after the last cache
#   refill). Within 1 point, a bucket either way: the seed's answers
#   expire in a straight line, the lab's 64 caches each take 1/64 of the
#   users (1.56 points) at once, a staircase about that line. The sticky tail is the lab's own: a sticky user
#   holds 18 s from its own resolution, through a cache that may still hold
#   the old answer 3 s, where the seed's share leaves over 18 s from the
#   detection; that part is printed beside the seed's, not compared.
# about 35 s
# heavy: 2,500 users at 5,000 requests/s, each 100 ms of them on schedule or the run is invalid
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-seed002
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
r=$out/run
rc=0
# a starved population is an invalid run (client_stalled), run once more
# half the preset's users at half its rate: each still asks every 0.5 s and
# each cache still moves 1/64 of them, but the client's CPU is halved (at
# 10,000 requests/s on the gate's two cores it was starved of 50 ms, twice
# in a row, in 2 of 5 fresh-checks: client_stalled)
run_valid "$out/run.txt" topology/presets/seed002.ini -q --set name=$lab --set users.population=2500 \
	--set users.rate=5000 --out "$r" || rc=$?
[ $rc = 0 ] || fail "run exited with status $rc: $(tail -20 "$out/run.txt")"
echo "ok: the run is valid"
# every clock within the model's interval but the sticky tail's window,
# max and p99: each the last packet of one sticky user whose re-resolution
# came just before its cache's refill (a stale answer, 18 s more) or just
# after it, where a few ms of a loaded machine decide (a gate's run: 20.30 s
# against the model's 21.10, the user 4299 asking 19 ms before the refill
# in the model, after it in the lab); printed, not asserted
out_of=$(jq -r '[.warnings[]? | select(.code == "model_disagrees") | .message |
	select(test("window|last packet max|last packet p99") | not)] | join("; ")' "$r/clocks.json")
[ -z "$out_of" ] || fail "a clock outside the model's interval: $out_of"
grep 'model_disagrees' "$out/run.txt" || true
echo "ok: every clock within the model's interval (the sticky tail's edges aside)"
detect=$(json "$r/clocks.json" .schemes.dns.detect_s)
awk -v d="$detect" 'BEGIN { exit !(d > 0.2 && d < 0.4) }' || fail "detect $detect s, not about 0.29 s"

# every bucket: the model within 1 point; the seed's formula one interval
# later within 1 point until 0.5 s after the last cache's refill (detect +
# TTL + interval), both printed at the seed's table times (scaled). A
# bucket either way is allowed: each of the 64 caches moves 1.56 points of
# the users at once, so a few ms of the lab's timing across a bucket's edge
# move a whole cache between buckets, and the verdict accepts a population
# up to half a bucket behind its schedule (client_stalled); a gate's run
# lagged about 60 ms around 1.4 s, 2.16 points off bucket by bucket, 0.10
# with a bucket either way
awk -F, -v detect="$detect" '
function still(t,   s, o, k) {
	if (t < detect) return 1
	s = t - detect
	o = 1 - s / 3; if (o < 0) o = 0
	k = 1 - s / 18; if (k < 0) k = 0
	return 0.98 * o + 0.02 * k
}
# dev V LO HI: how far V lies outside [LO, HI]
function dev(v, lo, hi) { return v < lo ? lo - v : v > hi ? v - hi : 0 }
function lo3(a, k) { return min3(a[k - 1], a[k], a[k + 1]) }
function hi3(a, k) { return max3(a[k - 1], a[k], a[k + 1]) }
function min3(x, y, z,   m) { m = x; if (y < m) m = y; if (z < m) m = z; return m }
function max3(x, y, z,   m) { m = x; if (y > m) m = y; if (z > m) m = z; return m }
/^#/ { next }
!ncol++ { for (i = 1; i <= NF; i++) col[$i] = i; next }
$col["dns_share"] == "" || $col["dns_model_share"] == "" { next }
{
	n++
	lab[n] = $col["dns_share"] * 100; model[n] = $col["dns_model_share"] * 100
	te[n] = $col["t_end_s"] + 0; mid[n] = ($col["t_s"] + te[n]) / 2
	seed[n] = still(mid[n] - 0.5) * 100
}
END {
	split("0.2 0.3 0.5 0.6 1.2 3.0 6.0 18.0", at, " ")
	model[0] = model[1]; model[n + 1] = model[n]; seed[0] = seed[1]; seed[n + 1] = seed[n]
	for (k = 1; k <= n; k++) {
		dm = dev(lab[k], lo3(model, k), hi3(model, k))
		# printed: bucket by bucket, no bucket either way
		d0 = dev(lab[k], model[k], model[k]); if (d0 > mm0) mm0 = d0
		if (dm > mm) { mm = dm; atm = te[k] }
		if (dm > 1) { printf "bucket ending %.1f s: lab %.2f %% against the model %.2f %% (%.2f-%.2f over the buckets beside)\n", te[k], lab[k], model[k], lo3(model, k), hi3(model, k); bad = 1 }
		if (mid[k] < detect + 3 + 0.5) {
			ds = dev(lab[k], lo3(seed, k), hi3(seed, k))
			d0 = dev(lab[k], seed[k], seed[k]); if (d0 > ms0) ms0 = d0
			if (ds > ms) { ms = ds; ats = te[k] }
			if (ds > 1) { printf "bucket ending %.1f s: lab %.2f %% against the seed %.2f %% (one interval later; %.2f-%.2f beside)\n", te[k], lab[k], seed[k], lo3(seed, k), hi3(seed, k); bad = 1 }
		}
		for (i in at) if (sprintf("%.1f", te[k]) == at[i])
			printf "  %5.1f s  lab %6.2f %%  model %6.2f %%  seed %6.2f %% (at t: %6.2f %%)\n", te[k], lab[k], model[k], seed[k], still(te[k]) * 100
	}
	printf "%d buckets: the model within %.2f points (at %.1f s), the seed one interval later within %.2f points (at %.1f s), a bucket either way allowed; bucket by bucket alone, %.2f and %.2f\n", n, mm, atm, ms, ats, mm0, ms0
	exit bad || n < 200
}
' "$r/decay.csv" || fail "the decay is not the model's or the seed's within 1 point, a bucket either way"
echo "ok: the decay is the model's and the seed's (one request interval later) within 1 point, a bucket either way"
assert_no_leftovers $lab "$r"
rm -rf "$out" # kept only when a check fails
echo "PASS: test_seed002"
