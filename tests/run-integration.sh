#!/usr/bin/env bash
# Run tests/integration/test_*.sh as root. Without root they are skipped,
# visibly: they need network namespaces.
cd "$(dirname "$0")/.." || exit 1
tests=(tests/integration/test_*.sh)
if [ "$(id -u)" != 0 ]; then
	echo "SKIPPED: ${#tests[@]} integration tests need root (network namespaces); run: sudo make check"
	echo "integration: 0 passed, 0 failed, ${#tests[@]} skipped"
	exit 0
fi
passed=0 failed=0
for t in "${tests[@]}"; do
	echo "== $t"
	start=$(date +%s)
	if bash "$t"; then
		echo "PASS $t ($(($(date +%s) - start)) s)"
		passed=$((passed + 1))
	else
		echo "FAIL $t ($(($(date +%s) - start)) s)"
		failed=$((failed + 1))
	fi
done
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
