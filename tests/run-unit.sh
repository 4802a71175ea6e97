#!/usr/bin/env bash
# Run every unit-test program given (cmocka suites, or shell scripts); the
# last line sums them up for CI. A cmocka test that skips itself says why
# (the few that need root); the skipped ones are named and counted, and as
# root, where nothing has a reason to skip, a skip fails the run.
# UNIT_JOBS (default 1) runs that many at once; each one's output is shown
# whole when it ends, in the order they end.
cd "$(dirname "$0")/.." || exit 1
jobs=${UNIT_JOBS:-1}
out=$(mktemp -d /tmp/steerlab-unit.XXXXXX)
trap 'rm -rf "$out"' EXIT
passed=0 failed=0 failures=() skips=()

# finish I T RC: test T (the I-th) ended with RC; its output shown, counted
finish() {
	local i=$1 t=$2 rc=$3 name
	cat "$out/$i"
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$t")
	fi
	while read -r name; do
		skips+=("$(basename "$t") $name")
	done < <(sed -n 's/^\[  SKIPPED \] \(test_[A-Za-z0-9_]*\)$/\1/p' "$out/$i" | sort -u)
}

declare -A test_of
i=0
for t in "$@"; do
	i=$((i + 1))
	if [ "$jobs" -le 1 ]; then
		"$t" >"$out/$i" 2>&1
		finish "$i" "$t" $?
		continue
	fi
	while [ ${#test_of[@]} -ge "$jobs" ]; do
		wait -n -p done_pid "${!test_of[@]}"
		rc=$?
		read -r n d <<<"${test_of[$done_pid]}"
		unset "test_of[$done_pid]"
		finish "$n" "$d" "$rc"
	done
	"$t" >"$out/$i" 2>&1 &
	test_of[$!]="$i $t"
done
while [ ${#test_of[@]} -gt 0 ]; do
	wait -n -p done_pid "${!test_of[@]}"
	rc=$?
	read -r n d <<<"${test_of[$done_pid]}"
	unset "test_of[$done_pid]"
	finish "$n" "$d" "$rc"
done

[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
[ ${#skips[@]} -gt 0 ] && printf 'SKIPPED: %s\n' "${skips[@]}"
if [ ${#skips[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
	echo "unit: ${#skips[@]} test(s) skipped as root, where none should: a missing dependency (make deps)?"
	failed=$((failed + 1))
fi
echo "unit: $passed passed, $failed failed, ${#skips[@]} tests skipped"
[ "$failed" -eq 0 ]
