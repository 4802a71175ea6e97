#!/usr/bin/env bash
# Captures sized to their link (docs/topology.md, "Capture rings"): a lab of
# 40 [resolver] nodes (written below), one capture a resolver's link. Each capture's ring is what `steerlab
# check` prints for its link (1 MiB for a resolver of a few requests/s, a
# site's by its clients' rates); the last capture is ready within 1 s of
# the last agent's start (with 64 MiB rings allocated one after the other
# it took 7 s); `steerlab run` is ready within the default settle and its
# report.md says what the captures took. Then capture_buffer set: every
# ring that.
# about 30 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=pf-rings
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
ini=$out/rings.ini
# two sites, authd, 40 resolvers, four clients of 100 requests/s, each
# asking one of the first four
{
	printf '[lab]\nname = %s\nduration = 3s\nfail_at = 1s\n\n[router core]\n\n' $lab
	printf '[site a]\nlink = core\nfail = yes\n\n[site b]\nlink = core\n\n'
	printf '[dns ns]\nlink = core\n\n[prober p1]\nlink = core\n\n'
	for k in $(seq 1 40); do printf '[resolver r%d]\nlink = core\n\n' "$k"; done
	for k in 1 2 3 4; do
		printf '[client u%d]\nlink = core\nmode = dns\nresolver = r%d\nrate = 100\n\n' "$k" "$k"
	done
	printf '[zone lab.example]\nsoa = ns.lab.example. hostmaster.lab.example. 1 3600 600 86400 5\n'
	printf 'ttl = 60\nrecord = @ NS ns.lab.example.\nrecord = ns A 198.18.0.10\n\n'
	printf '[name www.lab.example]\npolicy = failover\nprimary = a\nsecondary = b\nttl = 2\n'
} >"$ini"

# what check says each capture takes: "label MiB" per line
$STEERLAB check "$ini" >"$out/check.txt"
grep -q "^capture_buffer = auto$" "$out/check.txt" || fail "check: capture_buffer is not auto"
grep -q "^# The captures' rings: 43 links, " "$out/check.txt" || fail "check: no total of 43 links"
sed -n 's/^#\( captures:\|  \) //p' "$out/check.txt" | sed 's/: [0-9.]* MiB of kernel memory$//' |
	tr ',' '\n' | awk 'NF == 3 { print $1, $2 }' | sort >"$out/want.txt"
[ "$(wc -l <"$out/want.txt")" = 43 ] || fail "check lists $(wc -l <"$out/want.txt") captures, not 43"

# ready_after RUNDIR: seconds from the last agent's start (agents.tsv's
# start times, in clock ticks since boot) to the last capture_ready
ready_after() {
	local boot last ready
	boot=$(awk -v now="$(date +%s.%N)" '{ printf "%.3f", now - $1 }' /proc/uptime)
	last=$(awk -F'\t' -v hz="$(getconf CLK_TCK)" -v b="$boot" '$2 / hz + b > m { m = $2 / hz + b }
		END { printf "%.3f", m }' "$1/agents.tsv")
	ready=$(cat "$1"/*.collector*.events.jsonl | jq -s '[.[] | select(.event == "capture_ready") | .t] | max / 1e9')
	awk -v r="$ready" -v l="$last" 'BEGIN { printf "%.3f", r - l }'
}

# rings RUNDIR: "label MiB" of every capture_ready
rings() {
	cat "$1"/*.collector*.events.jsonl | jq -r 'select(.event == "capture_ready") |
		"\(.label) \(.buffer / 1048576)"' | sort
}

$STEERLAB up "$ini" --out "$out/up" >"$out/up.log" 2>&1 || { cat "$out/up.log"; fail "steerlab up failed"; }
rings "$out/up" >"$out/got.txt"
diff "$out/want.txt" "$out/got.txt" >&2 || fail "the collectors' rings are not what check printed"
echo "ok: 43 captures, each with the ring check printed"
assert_eq "$(awk '$1 ~ /^resolver-/ && $2 != 1' "$out/got.txt" | wc -l)" 0 "resolver links with a ring other than 1 MiB"
assert_le "$(ready_after "$out/up")" 1 "s from the last agent's start to the last capture ready"
$STEERLAB down $lab >/dev/null

# a run: ready within the default settle (5 s), the rings in report.md
$STEERLAB run "$ini" --out "$out/run" --quiet >"$out/run.log" 2>&1 ||
	{ tail -20 "$out/run.log"; fail "steerlab run failed"; }
total=$(awk '{ s += $2 } END { print s }' "$out/want.txt")
grep -q "^- the captures: 43 links, $total MiB of kernel memory in their rings" "$out/run/report.md" ||
	fail "report.md does not say 43 links, $total MiB: $(grep '^- the captures' "$out/run/report.md")"
echo "ok: report.md: 43 links, $total MiB"

# set: every ring that
$STEERLAB up "$ini" --out "$out/set" --set capture_buffer=2M >"$out/set.log" 2>&1 ||
	{ cat "$out/set.log"; fail "steerlab up --set capture_buffer=2M failed"; }
assert_eq "$(rings "$out/set" | awk '$2 != 2' | wc -l)" 0 "captures with a ring other than 2 MiB"
$STEERLAB down $lab >/dev/null
assert_no_leftovers $lab "$out/set"
rm -rf "$out"
echo "PASS: test_capture_rings"
