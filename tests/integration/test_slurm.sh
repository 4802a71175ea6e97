#!/usr/bin/env bash
# Sweeps beyond one run at a time (docs/sweeps.md, "Many points at once"):
#   1. --jobs 2: a 2-point sweep of the TTL on tests/integration/data/
#      compare.ini (3 s of traffic each), both at once on this machine,
#      each a `steerlab run` of its own lab (it-slm-1, it-slm-2);
#   2. --via slurm: the same sweep against a one-machine Slurm of Debian's
#      packages (tests/integration/slurm.sh: munged, slurmctld, slurmd,
#      started and stopped here), one array task per point, progress from
#      squeue; its sweep.md has the shape of the local one (the same lines
#      once the numbers are blanked), and no lab, namespace or process of a
#      point remains;
#   3. resumed: one point's run removed, the same command submits that
#      point alone and rewrites the table.
# about 30 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/slurm.sh

lab=it-slm
for n in 1 2; do
	[ -e "/run/steerlab/$lab-$n" ] && fail "lab $lab-$n already exists"
done
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
cleanup() {
	slurm_stop "$out/slurm"
	for n in 1 2; do lab_cleanup $lab-$n; done
	rm -rf "$out"
}
trap cleanup EXIT
args=(tests/integration/data/compare.ini --set name=$lab --set duration=3s --set fail_at=1s
	--set ttl=1,2 --quiet)

# shape FILE: sweep.md's headings and, for each table row, its first cell
# (numbers blanked) and its number of cells: not the values, nor a cell's
# width or its "outside" mark (a clock outside its model, which a loaded
# machine may give one sweep and not the other)
shape() {
	awk -F'|' '/^#/ { print; next }
		/^\|/ { c = $2; gsub(/[-+≥ ]*[0-9]+(\.[0-9]+)?/, "N", c); gsub(/ +/, "", c); print "row", c, NF }' "$1"
}

# ---- 1. --jobs 2 ----
rc=0
$STEERLAB sweep "${args[@]}" --jobs 2 --out "$out/local" >"$out/local.log" 2>&1 || rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$out/local.log"; fail "sweep --jobs 2 exited with $rc"; }
assert_eq "$(grep -c ': started, 2 at once' "$out/local.log")" 2 "points started by --jobs 2"
assert_eq "$(grep -c '^steerlab: point ttl=[12]: finished' "$out/local.log")" 2 \
	"points finished by --jobs 2"
# two at once: the second point started before the first finished
first_end=$(grep -n ': finished' "$out/local.log" | sed -n '1s/:.*//p')
second_start=$(grep -n 'point ttl=2 (2 of 2): started' "$out/local.log" | cut -d: -f1)
assert_lt "$second_start" "$first_end" "--jobs 2: the second point starts before the first ends"
for n in 1 2; do
	[ "$(json "$out/local/ttl-$n/clocks.json" .lab)" = "$lab-$n" ] || fail "ttl=$n's lab is not $lab-$n"
	assert_no_leftovers $lab-$n "$out/local/ttl-$n"
done
grep -q "^# Sweep of ttl, lab $lab$" "$out/local/sweep.md" || fail "sweep.md does not name the lab $lab"
echo "ok: --jobs 2 ran the 2 points at once, each its own lab"

# ---- 2. --via slurm ----
slurm_start "$out/slurm"
rc=0
$STEERLAB sweep "${args[@]}" --via slurm --out "$out/slurm-sweep" >"$out/slurm.log" 2>&1 || rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || {
	cat "$out/slurm.log" "$out"/slurm-sweep/logs/* 2>/dev/null
	fail "sweep --via slurm exited with $rc"
}
grep -q '^steerlab: Slurm job [0-9]*: 2 points as an array' "$out/slurm.log" ||
	{ cat "$out/slurm.log"; fail "no Slurm job said"; }
grep -Eq '^steerlab: Slurm job [0-9]+: [0-9] pending, 1 running, [0-9] of 2 finished' "$out/slurm.log" ||
	{ cat "$out/slurm.log"; fail "no progress from squeue"; }
assert_eq "$(grep -c '^steerlab: point ttl=[12]: finished' "$out/slurm.log")" 2 \
	"points finished on Slurm"
for n in 1 2; do
	[ -s "$out/slurm-sweep/ttl-$n/clocks.json" ] || fail "no clocks.json of ttl=$n"
	assert_no_leftovers $lab-$n "$out/slurm-sweep/ttl-$n"
done
diff <(shape "$out/local/sweep.md") <(shape "$out/slurm-sweep/sweep.md") ||
	fail "sweep.md of Slurm's points differs in shape from the local one (above)"
for f in sweep.csv report.html; do
	[ -s "$out/slurm-sweep/$f" ] || fail "no $f in the Slurm sweep's directory"
done
echo "ok: --via slurm ran the 2 points as one job array; sweep.md has the local one's shape"

# ---- 3. resumed ----
rm "$out/slurm-sweep/ttl-2/clocks.json"
before=$(stat -c %Y "$out/slurm-sweep/ttl-1/clocks.json")
rc=0
$STEERLAB sweep "${args[@]}" --via slurm --out "$out/slurm-sweep" >"$out/resume.log" 2>&1 || rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$out/resume.log"; fail "the resumed sweep exited with $rc"; }
grep -q '^steerlab: Slurm job [0-9]*: 1 point as an array' "$out/resume.log" ||
	{ cat "$out/resume.log"; fail "the resumed sweep did not submit the one point left"; }
grep -q '^steerlab: point ttl=1: done, skipped$' "$out/resume.log" || fail "ttl=1 not skipped"
[ -s "$out/slurm-sweep/ttl-2/clocks.json" ] || fail "ttl=2 was not run again"
assert_eq "$(stat -c %Y "$out/slurm-sweep/ttl-1/clocks.json")" "$before" "ttl=1's clocks.json untouched"
echo "ok: the resumed sweep submitted ttl=2 alone"
