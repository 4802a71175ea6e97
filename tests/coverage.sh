#!/usr/bin/env bash
# The unit tests' line coverage per source file (make coverage): lcov reads
# the .gcda files the tests left in BUILD (built with --coverage), and one
# line per file of agents/, lab/, lib/ and probes/ is printed, the least
# covered first, with a mark on those below 50 %; then the total. The
# files docs/style.md holds to 50 % (COVERAGE_FLOOR there) fail the run
# when below.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/cov}
info=$build/coverage.info
command -v lcov >/dev/null || { echo "coverage: no lcov (make coverage installs it)" >&2; exit 1; }
lcov --quiet --capture --directory "$build/obj" --base-directory . --output-file "$info.all" \
	--rc lcov_branch_coverage=0 >/dev/null 2>"$build/lcov.log" ||
	{ cat "$build/lcov.log" >&2; exit 1; }
lcov --quiet --extract "$info.all" "$PWD/agents/*" "$PWD/lab/*" "$PWD/lib/*" "$PWD/probes/*" \
	--output-file "$info" >/dev/null
# every source file, also those no unit test links (0 %)
all=$(git ls-files 'agents/*.c' 'lab/*.c' 'lib/*.c' 'probes/*.c')
awk -v root="$PWD/" '
	/^SF:/ { f = substr($0, 4); sub("^" root, "", f) }
	/^LF:/ { lf[f] = substr($0, 4) }
	/^LH:/ { lh[f] = substr($0, 4) }
	END { for (f in lf) print f, lh[f] + 0, lf[f] + 0 }' "$info" | sort >"$build/covered.txt"
floor=$(sed -n 's/^<!-- COVERAGE_FLOOR: \(.*\) -->$/\1/p' docs/style.md)
bad=0
{
	for f in $all; do
		line=$(grep "^$f " "$build/covered.txt" || echo "$f 0 0")
		set -- $line
		lines=$(grep -c . "$f" || true)
		if [ "$3" -gt 0 ]; then pct=$(awk -v h="$2" -v n="$3" 'BEGIN { printf "%.1f", 100 * h / n }')
		else pct=0.0; fi
		echo "$pct $f $2 $3"
	done
} | sort -n | while read -r pct f hit total; do
	mark=""
	awk -v p="$pct" 'BEGIN { exit !(p < 50) }' && mark=" < 50 %"
	case " $floor " in *" $f "*) [ -n "$mark" ] && mark="$mark (held to 50 % in docs/style.md)" ;; esac
	printf '%6s %%  %5s / %-5s  %s%s\n' "$pct" "$hit" "$total" "$f" "$mark"
done | tee "$build/coverage.txt"
total=$(awk '{ h += $2; n += $3 } END { printf "%.1f %d %d", 100 * h / n, h, n }' "$build/covered.txt")
echo "coverage: $total (lines: percent, hit, of) by the unit tests"
for f in $floor; do
	line=$(grep " $f\$\| $f " "$build/coverage.txt" | sed -n 1p)
	# the table's lines start with spaces (the percentage right-aligned)
	pct=$(echo "$line" | awk '{ print $1 }')
	if awk -v p="${pct:-0}" 'BEGIN { exit !(p < 50) }'; then
		echo "coverage: $f is at ${pct:-0} %, below the 50 % docs/style.md holds it to" >&2
		bad=1
	fi
done
exit $bad
