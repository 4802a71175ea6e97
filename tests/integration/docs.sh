# Shared by test_docs_*.sh (sourced after lib.sh): the documentation's
# commands run and their outputs compared (tests/tools/doctest; the marks:
# docs/style.md, "Documentation that runs"), short: STEERLAB_SET
# "duration=3s fail_at=1s", a sweep's first and last values, --repeat 2.
# Each test takes a part of the docs, so that the parts run side by side
# (tests/run-integration.sh gives each its own /run/netns: the labs the
# docs bring up have the same names in every part).

# docs_run FILE...: run the commands of FILEs; the run directories stay in
# $docs_tmp/runs for the checks that follow, and are removed at exit (kept
# when the test failed: they say why a run was invalid)
docs_run() {
	local start
	docs_tmp=$(mktemp -d /tmp/steerlab-docs.XXXXXX)
	trap 'if [ -n "${docs_passed:-}" ]; then rm -rf "$docs_tmp"; else echo "kept $docs_tmp" >&2; fi' EXIT
	start=$(date +%s)
	DOCTEST_RUNS=$docs_tmp/runs tests/tools/doctest "$@" || fail "the docs' commands (above)"
	echo "ok: the commands of $* ran in $(($(date +%s) - start)) s"
}

# docs_no_lab_left LAB...: the docs' commands took their labs down
docs_no_lab_left() {
	local l
	for l in "$@"; do
		[ -e "/run/steerlab/$l" ] && fail "lab $l was left up"
	done
	echo "ok: no lab left up"
	docs_passed=1
}

# docs_sweep_axis TTL: the sweep of ttl that reached TTL (its last value)
# was plotted on a log axis (log) or a linear one (linear), as
# docs/sweeps.md says: 30 s to 15 min on a log axis, 2 to 10 s linear
docs_sweep_axis() {
	local last=$1 axis=$2 d found=
	for d in "$docs_tmp"/runs/sweep-compare-ttl-*/; do
		[ -d "$d/ttl-$last" ] || continue
		found=1
		if [ "$axis" = log ]; then
			grep -qx 'set logscale x' "$d/sweep.gp" || fail "$d/sweep.gp: TTLs up to $last s, but no log axis"
		else
			grep -q 'logscale' "$d/sweep.gp" && fail "$d/sweep.gp: TTLs up to $last s on a log axis"
		fi
		echo "ok: the sweep of ttl up to $last s is plotted on a $axis axis"
	done
	[ -n "$found" ] || fail "no sweep of ttl up to $last s in $docs_tmp/runs"
}
