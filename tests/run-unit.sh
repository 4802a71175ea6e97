#!/usr/bin/env bash
# Run every unit-test program given (cmocka suites, or shell scripts); the
# last line sums them up for CI. A cmocka test that skips itself says why
# (the few that need root); the skipped ones are named and counted, and as
# root, where nothing has a reason to skip, a skip fails the run.
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp /tmp/steerlab-unit.XXXXXX)
trap 'rm -f "$out"' EXIT
passed=0 failed=0 failures=() skips=()
for t in "$@"; do
	if "$t" 2>&1 | tee "$out"; [ "${PIPESTATUS[0]}" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$t")
	fi
	while read -r name; do
		skips+=("$(basename "$t") $name")
	done < <(sed -n 's/^\[  SKIPPED \] \(test_[A-Za-z0-9_]*\)$/\1/p' "$out" | sort -u)
done
[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
[ ${#skips[@]} -gt 0 ] && printf 'SKIPPED: %s\n' "${skips[@]}"
if [ ${#skips[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
	echo "unit: ${#skips[@]} test(s) skipped as root, where none should: a missing dependency (make deps)?"
	failed=$((failed + 1))
fi
echo "unit: $passed passed, $failed failed, ${#skips[@]} tests skipped"
[ "$failed" -eq 0 ]
