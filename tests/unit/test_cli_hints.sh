#!/usr/bin/env bash
# The guesses a newcomer makes get an error that suggests the fix, and exit
# status 2 (lab/cli/hint.c; the wording is tests/unit/test_hint.c's). No root:
# none of these reaches a lab.
set -euo pipefail
cd "$(dirname "$0")/../.."
steerlab=bin/steerlab
tmp=$(mktemp -d /tmp/steerlab-hints.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

# expect WANT ARGS...: steerlab ARGS exits 2 and its stderr holds the line WANT
expect() {
	local want=$1 rc=0
	shift
	"$steerlab" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: steerlab $*: exit status $rc, expected 2" >&2
		failed=1
	elif ! grep -qxF -- "$want" "$tmp/err"; then
		echo "FAIL: steerlab $*: expected '$want', got:" >&2
		cat "$tmp/err" >&2
		failed=1
	elif [ -s "$tmp/out" ]; then
		echo "FAIL: steerlab $*: wrote to stdout" >&2
		failed=1
	fi
}

expect "steerlab: --duration is not an option; durations and other topology keys are set with --set: --set duration=3s" \
	run topology/anycast.ini --duration 3s
expect "steerlab: --duration is not an option; durations and other topology keys are set with --set: --set duration=3s" \
	check --duration=3s topology/anycast.ini
expect "steerlab: --frob is not an option; if frob is a topology key, set it with --set: --set frob=1" \
	check topology/anycast.ini --frob 1
expect "steerlab: unknown option '--frob' (steerlab --help lists them)" \
	check topology/anycast.ini --frob
expect "steerlab: --check is an option of sweep, not of run" \
	run topology/anycast.ini --check
expect "steerlab: down takes the lab's name, not its file: steerlab down anycast" \
	down topology/anycast.ini
expect "steerlab: down takes a lab's name, not a file ('$tmp/none.ini'; steerlab status lists the labs that are up)" \
	down "$tmp/none.ini"
expect "steerlab: options go after the command: steerlab run FILE --quiet" \
	--quiet run FILE
expect "steerlab: options go after the command: steerlab run topology/anycast.ini -q" \
	-q run topology/anycast.ini
expect "steerlab: topology/: is a directory; expected a topology file such as topology/anycast.ini" \
	check topology/
mkdir "$tmp/t" && touch "$tmp/t/b.ini" "$tmp/t/a.ini" "$tmp/t/notes.txt"
expect "steerlab: $tmp/t/: is a directory; expected a topology file such as $tmp/t/a.ini" \
	up "$tmp/t/"
expect "  topology files in $tmp/t/: a.ini b.ini" \
	sweep "$tmp/t/" --set ttl=1,2
expect "steerlab: $tmp: is a directory; expected a topology file such as topology/anycast.ini ($tmp holds no .ini file)" \
	run "$tmp"

[ "$failed" -eq 0 ] || exit 1
echo "test_cli_hints: ok"
