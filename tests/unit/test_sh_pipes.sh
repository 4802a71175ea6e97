#!/usr/bin/env bash
# The test and bench scripts that run under `set -o pipefail` must not pipe
# into a reader that stops early (grep -q, head): the writer then dies of
# SIGPIPE when it writes after the reader left, the pipeline fails, and a
# check passes or fails by the scheduler's whim (tests/unit/test_install.sh
# failed so: `steerlab --help | grep -q` when --help wrote its second
# buffer after grep had matched). Read it all instead: grep PATTERN
# >/dev/null, sed -n 1p. A file of its own is read directly (grep -q FILE).
set -euo pipefail
cd "$(dirname "$0")/../.."

bad=0
for f in $(grep -rl --include='*.sh' 'pipefail' tests bench); do
	# a pipe, then (maybe on the next line) grep -q or head
	if out=$(perl -0ne 'while (/\|\s*(grep\s+-[a-zA-Z]*q[a-zA-Z]*\b|head\b)/g) {
		my $n = 1 + (substr($_, 0, pos($_)) =~ tr/\n//); print "$ARGV:$n: | $1\n" }' "$f") &&
		[ -n "$out" ]; then
		[ "$f" = tests/unit/test_sh_pipes.sh ] && continue
		echo "$out" >&2
		bad=1
	fi
done
if [ "$bad" = 1 ]; then
	echo "FAIL: a pipe into a reader that stops early under pipefail (above): use grep >/dev/null or sed -n" >&2
	exit 1
fi
echo "ok: no pipe into grep -q or head in a pipefail script"
