#!/usr/bin/env bash
# make install into a temporary DESTDIR puts every file where the README and
# steerlab(8) say, with its mode, and nothing else; the installed steerlab
# answers --help and checks the installed topologies from another directory;
# make uninstall removes exactly what install put there and the directories
# it made, but keeps what was there before. No root needed: the lab itself is
# tests/integration/test_install.sh.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
top=$PWD

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# the make that runs this test must not pass its own variables on
unset MAKEFLAGS MFLAGS MAKELEVEL
tmp=$(mktemp -d /tmp/steerlab-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
D=$tmp/dest

mk() {
	make -s --no-print-directory -C "$top" "$@" >"$tmp/make.out" 2>&1 || {
		cat "$tmp/make.out" >&2
		fail "make $*"
	}
}

# tree DIR: every path under DIR, with its type and mode
tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %p\n' | sort)
}

# what install must put where (PREFIX /usr/local), and the mode
expected() {
	local f
	echo "755 usr/local/bin/steerlab"
	for f in authd client collector linkd prober resolverd routed sited; do
		echo "755 usr/local/libexec/steerlab/$f"
	done
	for f in topology/*.ini; do echo "644 usr/local/share/steerlab/topology/${f##*/}"; done
	for f in topology/presets/*.ini; do echo "644 usr/local/share/steerlab/topology/presets/${f##*/}"; done
	echo "644 usr/local/share/steerlab/wireshark/steerlab.lua"
	echo "644 usr/local/share/steerlab/install.manifest"
	echo "644 usr/local/share/doc/steerlab/README.md"
	for f in docs/*.md; do echo "644 usr/local/share/doc/steerlab/${f##*/}"; done
	for f in docs/man/*.5; do echo "644 usr/local/share/man/man5/${f##*/}"; done
	for f in docs/man/*.8; do echo "644 usr/local/share/man/man8/${f##*/}"; done
}

# 1. into an empty DESTDIR
mkdir "$D"
mk install DESTDIR="$D"
expected | sort -k2 >"$tmp/want"
(cd "$D" && find . -type f -printf '%m %P\n' | sort -k2) >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	diff "$tmp/want" "$tmp/got" >&2 || true
	fail "installed files differ from the expected ones (< expected, > installed)"
fi
man=(docs/man/*.[58])
[ ${#man[@]} -ge 2 ] || fail "no man pages in docs/man"
[ "$(grep -c '^f /usr/local/' "$D/usr/local/share/steerlab/install.manifest")" = "$(($(wc -l <"$tmp/want") - 1))" ] ||
	fail "the manifest does not list every installed file by its installed path (DESTDIR left out)"
echo "ok: make install DESTDIR: $(wc -l <"$tmp/want") files, where expected, with their modes, and nothing else"

# 2. the installed steerlab, from another directory
steerlab=$D/usr/local/bin/steerlab
# (the help read whole first: grep -q stops at its first line, and with
# pipefail the usage text's second write would fail on SIGPIPE)
help=$(cd / && "$steerlab" --help) || fail "installed steerlab --help: exit status $?"
grep -q '^usage: steerlab' <<<"$help" || fail "installed steerlab --help"
for t in "$D"/usr/local/share/steerlab/topology/*.ini "$D"/usr/local/share/steerlab/topology/presets/*.ini; do
	(cd / && "$steerlab" check "$t" --set name=i-install) >"$tmp/check.out" 2>&1 ||
		{ cat "$tmp/check.out" >&2; fail "installed steerlab check $t"; }
	tail -1 "$tmp/check.out" | grep 'configuration OK' >/dev/null || fail "check $t: no 'configuration OK'"
done
echo "ok: the installed steerlab answers --help and checks the installed topologies from /"
for p in "$D"/usr/local/share/man/man*/*; do
	mandoc -Tascii "$p" >/dev/null 2>&1 || man -l "$p" >/dev/null 2>&1 || fail "$p does not render"
done

# 3. installed twice, then uninstalled: nothing left
mk install DESTDIR="$D"
mk uninstall DESTDIR="$D"
[ -z "$(find "$D" -mindepth 1)" ] || { find "$D" -mindepth 1 >&2; fail "uninstall left the above"; }
echo "ok: installed twice, uninstalled once: the DESTDIR is empty"

# 4. what was there before stays: a directory install would otherwise make,
# with a file of someone else's, and an empty one
mkdir -p "$D/usr/local/bin" "$D/usr/local/share/man/man8"
echo other >"$D/usr/local/bin/other-tool"
tree "$D" >"$tmp/before"
mk install DESTDIR="$D"
mk uninstall DESTDIR="$D"
tree "$D" >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { diff "$tmp/before" "$tmp/after" >&2; fail "uninstall changed what was there before install"; }
echo "ok: uninstall keeps the directories and files that were there before install"
rm -rf "${D:?}"/*

# 5. the directories are overridable (LIBEXECDIR is compiled in: the
# integration test installs to a PREFIX of its own)
vars=(BINDIR=/opt/sl/bin DATADIR=/opt/sl/data DOCDIR=/opt/sl/doc MANDIR=/opt/sl/man)
mk install DESTDIR="$D" "${vars[@]}"
for f in opt/sl/bin/steerlab opt/sl/data/topology/anycast.ini opt/sl/data/wireshark/steerlab.lua \
	opt/sl/doc/README.md opt/sl/man/man8/steerlab.8 opt/sl/data/install.manifest; do
	[ -f "$D/$f" ] || fail "with ${vars[*]}: no $f"
done
mk uninstall DESTDIR="$D" "${vars[@]}"
[ -z "$(find "$D" -mindepth 1)" ] || { find "$D" -mindepth 1 >&2; fail "uninstall with ${vars[*]} left the above"; }
echo "ok: BINDIR, DATADIR, DOCDIR and MANDIR move what they name; uninstall with the same removes it all"
