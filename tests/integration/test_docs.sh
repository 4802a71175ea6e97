#!/usr/bin/env bash
# Docs that cannot drift (issue 10, item 8): every command README.md and
# docs/*.md mark as runnable is run, as root from the checkout, short
# (STEERLAB_SET="duration=3s fail_at=1s", except the blocks marked full),
# with the run directories in a temporary directory; each output they show
# must match the real one in shape; a block of commands without a mark
# fails (tests/tools/doctest; the marks: docs/style.md, "Documentation that
# runs"). Then the sweeps the docs ran are checked as docs/sweeps.md says:
# the TTLs of 30 s to 15 min on a logarithmic axis, 2 to 10 s on a linear
# one. About 3 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

# the labs the documented commands bring up, by their topologies' names
for lab in compare anycast ck2; do
	[ -e "/run/steerlab/$lab" ] && fail "lab $lab already exists (another test running the docs?): wait, or sudo $STEERLAB down $lab"
	if ip netns list | awk '{print $1}' | grep -q "^$lab-"; then
		fail "namespaces $lab-* already exist"
	fi
done
tmp=$(mktemp -d /tmp/steerlab-docs.XXXXXX)
# kept when the test fails: the run directories say why a run was invalid
trap 'if [ -n "${passed:-}" ]; then rm -rf "$tmp"; else echo "kept $tmp" >&2; fi' EXIT

start=$(date +%s)
DOCTEST_RUNS=$tmp/runs tests/tools/doctest README.md docs/*.md || fail "the docs' commands (above)"
echo "ok: the docs' commands ran in $(($(date +%s) - start)) s"

for d in "$tmp"/runs/sweep-compare-ttl-*/; do
	if [ -d "$d/ttl-900" ]; then
		grep -qx 'set logscale x' "$d/sweep.gp" || fail "$d/sweep.gp: TTLs 30 to 900 s, but no log axis"
		echo "ok: the sweep of ttl=30..900 is plotted on a log axis"
		log=1
	elif [ -d "$d/ttl-10" ]; then
		grep -q 'logscale' "$d/sweep.gp" && fail "$d/sweep.gp: TTLs 2 to 10 s on a log axis"
		echo "ok: the sweep of ttl=2,5,10 is plotted on a linear axis"
		lin=1
	fi
done
[ -n "${log:-}" ] && [ -n "${lin:-}" ] || fail "the docs' two TTL sweeps were not both found in $tmp/runs"
for l in compare anycast ck2; do
	[ -e "/run/steerlab/$l" ] && fail "lab $l was left up"
done
echo "ok: no lab left up"
passed=1
