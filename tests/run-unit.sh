#!/usr/bin/env bash
# Run every cmocka unit-test binary given; the last line sums them up.
cd "$(dirname "$0")/.." || exit 1
passed=0 failed=0 failures=()
for t in "$@"; do
	if "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$t")
	fi
done
[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
