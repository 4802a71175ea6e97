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
