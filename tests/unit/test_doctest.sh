#!/usr/bin/env bash
# tests/tools/doctest on small Markdown files: it passes a good one, and
# fails when a command fails, when the output shown changes shape, and when
# a block of commands is not marked. No root: the commands are echo and
# printf.
set -uo pipefail
cd "$(dirname "$0")/../.."
doctest=tests/tools/doctest
tmp=$(mktemp -d /tmp/steerlab-doctest-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# expect STATUS WANT FILE: doctest FILE exits STATUS and says WANT (a
# fixed string) on stdout or stderr
expect() {
	local status=$1 want=$2 file=$3 rc=0
	"$doctest" "$file" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$status" ]; then
		fail "doctest $(basename "$file"): exit status $rc, expected $status; it said:"
		sed 's/^/  | /' "$tmp/out" >&2
	elif ! grep -qF -- "$want" "$tmp/out"; then
		fail "doctest $(basename "$file"): expected '$want' in:"
		sed 's/^/  | /' "$tmp/out" >&2
	else
		echo "ok: $(basename "$file"): exit $rc, '$want'"
	fi
}

cat >"$tmp/good.md" <<'EOF'
# A page

Prose with `inline code`, and a configuration, which is not run:

```ini
[lab]
duration = 10s
```

A synopsis, not run:

    sited -n NODE -e FILE -s SITE

<!-- doctest -->
```sh
echo "lab x: 3 clients sending, window 2.01 s, 34% to a, pid $$"   # a comment
printf 'run directory runs/x-20261130-232352\nt0 = 2026-11-30 01:52:08.984424506 UTC\n'
printf 'header\n'\
'one\ntwo\nthree\nlast\n'
```

<!-- doctest output -->
```
header
...
last
```

<!-- doctest -->
```sh
echo "overrides: [$STEERLAB_SET]"
```

<!-- doctest output -->
```
overrides: [duration=9s fail_at=1s]
```

<!-- doctest full -->
```sh
echo "overrides: [${STEERLAB_SET:-none}]"
```

<!-- doctest output -->
```
overrides: [none]
```

<!-- doctest skip: takes an hour -->
```sh
sleep 3600
```
EOF
expect 0 "doctest: 5 commands run, 3 outputs checked, 1 blocks skipped, 0 failed" "$tmp/good.md"
"$doctest" --list "$tmp/good.md" >"$tmp/list" 2>&1 || fail "doctest --list good.md failed"
grep -qF "doctest: 5 commands, 3 outputs checked, 1 blocks skipped" "$tmp/list" ||
	fail "doctest --list: not the count expected: $(cat "$tmp/list")"
grep -qF "run: printf 'header\n''one\ntwo\nthree\nlast\n'" "$tmp/list" ||
	fail "doctest --list: the continued line is not one command: $(cat "$tmp/list")"

# numbers, dates, times and run directories are shapes: other values match
sed -e 's/2\.01 s/17.5 s/' -e 's/34%/0%/' "$tmp/good.md" >"$tmp/numbers.md"
cat >>"$tmp/numbers.md" <<'EOF'

<!-- doctest -->
```sh
echo "window 2.010212 s at 2026-12-01 10:00:00 in runs/compare-20261201-100000/clocks.json"
```

<!-- doctest output -->
```
window 0.29 s at 2026-11-30 01:52:08 in runs/LAB-YYYYmmdd-HHMMSS/clocks.json
```
EOF
expect 0 "4 outputs checked" "$tmp/numbers.md"

# a command that fails
sed 's/^printf .header/false \&\& &/' "$tmp/good.md" >"$tmp/fails.md"
expect 1 "exit status 1" "$tmp/fails.md"

# ... is one failure: the output block after it is not compared
expect 1 "5 commands run, 2 outputs checked, 1 blocks skipped, 1 failed" "$tmp/fails.md"
expect 1 "not compared: " "$tmp/fails.md"

# an invalid run (exit status 3) is run once more: once is a pass, its
# reasons said; twice is a failure naming them
cat >"$tmp/invalid.md" <<EOF
<!-- doctest -->
\`\`\`sh
if [ -e $tmp/once ]; then echo valid run; else touch $tmp/once; echo '*** INVALID RUN (loss_mismatch): see' && exit 3; fi
\`\`\`
EOF
expect 0 "doctest: 1 commands run, 0 outputs checked, 0 blocks skipped, 0 failed" "$tmp/invalid.md"
rm -f "$tmp/once"
expect 0 "  | *** INVALID RUN (loss_mismatch): see" "$tmp/invalid.md"
printf '<!-- doctest -->\n```sh\necho "*** INVALID RUN (agent_exited): see"; exit 3\n```\n' >"$tmp/invalid2.md"
expect 1 "an invalid run twice (exit status 3); the second's reasons:" "$tmp/invalid2.md"
expect 1 "  | *** INVALID RUN (agent_exited): see" "$tmp/invalid2.md"

# short: a sweep's values cut to the first and the last, --repeat to 2
cat >"$tmp/short.md" <<'EOF'
<!-- doctest -->
```sh
echo steerlab sweep t.ini --set ttl=30,60,300,900 --set b.metric=1,2 --set duration=60s
echo steerlab run t.ini --repeat 5 | sed 's/repeat 2$/repeat two/'
```

<!-- doctest output -->
```
steerlab run t.ini --repeat two
```
EOF
expect 0 "(as run: echo steerlab sweep t.ini --set ttl=30,900 --set b.metric=1,2 --set duration=60s)" "$tmp/short.md"
DOCTEST_SHORT=0 expect 1 "expected 'steerlab run t.ini --repeat two'" "$tmp/short.md"

# check: a sweep run with --check, whole (bin/steerlab: make unit-sh
# builds it); any other command refused
cat >"$tmp/check.md" <<'EOF'
<!-- doctest check -->
```sh
sudo steerlab sweep topology/anycast.ini --set probe_down=1,2,3
```

<!-- doctest output -->
```
steerlab: sweep: the 3 points of probe_down load and check (1, 2, 3): nothing run (--check)
```
EOF
expect 0 "(as run: steerlab sweep topology/anycast.ini --set probe_down=1,2,3 --check)" "$tmp/check.md"
printf '<!-- doctest check -->\n```sh\nsudo steerlab run t.ini\n```\n' >"$tmp/check2.md"
expect 2 "<!-- doctest check --> is for steerlab sweep commands only" "$tmp/check2.md"

# the output changes shape: a unit, a word, a line too many
sed 's/^header$/heading/' "$tmp/good.md" >"$tmp/shape.md"
expect 1 "shown line 1: expected 'heading'" "$tmp/shape.md"
sed 's/^last$/last line/' "$tmp/good.md" >"$tmp/shape2.md"
expect 1 "('last line') is not in the output" "$tmp/shape2.md"
sed 's/^\.\.\.$/one/' "$tmp/good.md" >"$tmp/shape3.md"
expect 1 "shown line 3: expected 'last'" "$tmp/shape3.md"
sed 's/^last$/three/' "$tmp/good.md" >"$tmp/shape4.md"
expect 1 "the output goes on after the shown lines: 'last'" "$tmp/shape4.md"
sed 's/duration=9s/duration=9ms/' "$tmp/good.md" >"$tmp/shape5.md"
DOCTEST_SET="duration=9s fail_at=1s" expect 1 "expected 'overrides: [duration=Nms fail_at=Ns]'" "$tmp/shape5.md"

# blocks of commands that dodge the test
printf '\n```sh\nmake bench\n```\n' | cat "$tmp/good.md" - >"$tmp/unmarked.md"
expect 2 "block without a mark" "$tmp/unmarked.md"
printf '\nRun:\n\n    sudo steerlab run topology/compare.ini\n' | cat "$tmp/good.md" - >"$tmp/indented.md"
expect 2 "an indented block of commands" "$tmp/indented.md"
printf '\n```\n$ dig @127.0.0.1 www.lab.example\n```\n' | cat "$tmp/good.md" - >"$tmp/console.md"
expect 2 "a block of commands without a mark" "$tmp/console.md"
printf '\n<!-- doctest skip: -->\n```sh\nmake bench\n```\n' | cat "$tmp/good.md" - >"$tmp/noreason.md"
expect 2 "give the reason" "$tmp/noreason.md"
printf '<!-- doctest output -->\n```\nx\n```\n' >"$tmp/orphan.md"
expect 2 "not after a <!-- doctest --> block" "$tmp/orphan.md"
printf '<!-- doctest -->\n```ini\n[lab]\n```\n' >"$tmp/wronglang.md"
expect 2 "expected \`\`\`sh" "$tmp/wronglang.md"
printf '<!-- doctest -->\n```sh\n$ echo hi\n```\n' >"$tmp/prompt.md"
expect 2 "commands without a prompt" "$tmp/prompt.md"

[ "$failed" -eq 0 ] && echo "test_doctest: ok"
exit "$failed"
