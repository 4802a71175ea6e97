#!/usr/bin/env bash
# A run, a report and a sweep made with sudo belong to the user who ran
# sudo (README, "Exit status"; docs/sweeps.md): with SUDO_UID and SUDO_GID
# set to nobody's 65534 (no user is created), every file and directory of
# the run is nobody's; nobody can then run `steerlab report` on it (exit 0
# or 3, the table, clocks.json written again); root's report on it leaves
# no root file behind; a run directory nobody cannot write still gets the
# whole table and the verdict, then the file it could not write, exit 4; a
# two-point sweep, and the same sweep resumed, are nobody's too.
# about 13 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-own
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
chmod 755 "$out" # nobody must reach the run directory
run=$out/run
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
steerlab=$(realpath "$STEERLAB")

# not_nobodys DIR: the entries of DIR (itself included) not 65534:65534
not_nobodys() {
	find "$1" \( ! -uid 65534 -o ! -gid 65534 \) -printf '%u:%g %p\n'
}

rc=0
SUDO_UID=65534 SUDO_GID=65534 run_valid "$out/run.log" tests/integration/data/compare.ini --set name=$lab \
	--set duration=3s --set fail_at=1s --out "$run" --quiet || rc=$?
[ $rc = 0 ] || { cat "$out/run.log"; fail "steerlab run exited $rc"; }
[ -s "$run/clocks.json" ] || fail "the run wrote no clocks.json"
left=$(not_nobodys "$run")
[ -z "$left" ] || fail "the run left files that are not the sudo user's: $left"
echo "ok: all $(find "$run" | wc -l) entries of the run are 65534:65534"

before=$(stat -c %Y.%y "$run/clocks.json")
sleep 1
rc=0
(cd "$out" && "${nobody[@]}" "$steerlab" report "$run") >"$out/report.log" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$out/report.log"; fail "nobody's report of a valid run exited $rc"; }
grep -q '^detect (s) ' "$out/report.log" || grep 'detect (s)' "$out/report.log" >/dev/null ||
	{ cat "$out/report.log"; fail "nobody's report printed no table"; }
grep -q 'cannot' "$out/report.log" && { cat "$out/report.log"; fail "nobody's report could not write"; }
[ "$(stat -c %Y.%y "$run/clocks.json")" != "$before" ] || fail "clocks.json was not written again"
left=$(not_nobodys "$run")
[ -z "$left" ] || fail "nobody's report left other files: $left"
echo "ok: nobody's steerlab report exits $rc, prints the table and writes clocks.json"

rc=0
SUDO_UID=65534 SUDO_GID=65534 $STEERLAB report "$run" >"$out/root-report.log" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$out/root-report.log"; fail "root's report of a valid run exited $rc"; }
left=$(not_nobodys "$run")
[ -z "$left" ] || fail "root's report (sudo) left root's files: $left"
echo "ok: a report rerun with sudo leaves every file the user's"

# a directory the user cannot write: the table all the same, then the file
chmod a-w "$run"
rc=0
(cd "$out" && "${nobody[@]}" "$steerlab" report "$run") >"$out/ro.out" 2>"$out/ro.err" || rc=$?
chmod u+w "$run"
[ $rc = 4 ] || { cat "$out/ro.out" "$out/ro.err"; fail "report on an unwritable directory exited $rc, expected 4"; }
grep -q 'detect (s)' "$out/ro.out" || { cat "$out/ro.out"; fail "no table when the files cannot be written"; }
grep -Eq '^(valid run|INVALID RUN)' "$out/ro.out" ||
	{ cat "$out/ro.out"; fail "no verdict when the files cannot be written"; }
grep -q "steerlab: report: $run/clocks.json: cannot create: Permission denied" "$out/ro.err" ||
	{ cat "$out/ro.err"; fail "the error does not name $run/clocks.json"; }
grep -q "the tables above are complete" "$out/ro.err" || fail "the error does not say the tables are complete"
[ -z "$(find "$run" -name '*.tmp-*')" ] || fail "temporary files left behind"
echo "ok: unwritable: the table and the verdict, then: $(head -c 160 "$out/ro.err")"

# a sweep of two points, then the same command again (resumed, as root)
dir=$out/sweep
args=(sweep tests/integration/data/compare.ini --set name=$lab --set duration=2s --set fail_at=1s
	--set ttl=1,2 --out "$dir" --quiet)
for pass in first resumed; do
	rc=0
	SUDO_UID=65534 SUDO_GID=65534 $STEERLAB "${args[@]}" >"$out/sweep-$pass.log" 2>&1 || rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || { cat "$out/sweep-$pass.log"; fail "the $pass sweep exited $rc"; }
	[ -s "$dir/sweep.csv" ] || fail "the $pass sweep wrote no sweep.csv"
	left=$(not_nobodys "$dir")
	[ -z "$left" ] || fail "the $pass sweep left files that are not the user's: $left"
	echo "ok: $pass sweep: all $(find "$dir" | wc -l) entries are 65534:65534"
done
assert_no_leftovers $lab "$run"
rm -rf "$out"
echo "PASS: test_run_owner"
