#!/usr/bin/env bash
# The Vagrant VM's provisioning script (vagrant/provision.sh, which
# vagrant/Vagrantfile runs) on Debian 12, without a VM: in a private mount
# namespace, an overlay whose lower layer is this machine's root filesystem
# and whose upper layer is a tmpfs, chrooted into, so that everything the
# script writes (apt's lists, packages, the build) lands in the tmpfs and
# vanishes with it. The script runs as Vagrant runs it (root, sh, the
# checkout's directory given), and must: update apt's lists from Debian's
# mirror, install make and gcc, pass `make deps` and `make`, and say
# whether the kernel has sch_netem. This machine's root filesystem is
# left as it was.
#
# Not tested here (docs/scale.md, "A VM"): the box (debian/bookworm64), the
# provider, Vagrant's rsync of the checkout, and a cold build: the chroot
# sees this checkout's own build, which make check has just made (Vagrant
# excludes build/ and builds it all; the same build, from scratch, is make
# check's first stage).
# about 15 s (apt's lists)
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

repo=$(pwd -P)
case $(findmnt -n -o TARGET --target "$repo") in
/) ;;
*) echo "skip: the checkout is not on the root filesystem, which the overlay shows"; exit 0 ;;
esac
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'rm -rf "$out"' EXIT
mark=/usr/share/steerlab-provision-test.$$
[ -e $mark ] && fail "$mark exists"

# the script in the chroot; its output and status kept
unshare -m --propagation private sh -c '
	set -e
	t=$1 repo=$2 mark=$3
	mount -t tmpfs -o size=2g tmpfs "$t"
	mkdir "$t/upper" "$t/work" "$t/root"
	mount -t overlay overlay -o lowerdir=/,upperdir="$t/upper",workdir="$t/work" "$t/root"
	for d in proc sys dev dev/pts; do mount --bind /$d "$t/root/$d"; done
	chroot "$t/root" /bin/sh -c "touch $mark && STEERLAB_DIR=$repo sh $repo/vagrant/provision.sh"
	echo "upper: $(du -sm "$t/upper" | cut -f1) MiB"
' provision "$out" "$repo" "$mark" >"$out/provision.log" 2>&1 || {
	cat "$out/provision.log"
	fail "vagrant/provision.sh failed in the chroot"
}
grep -q '^deps: all Debian packages present$' "$out/provision.log" ||
	{ cat "$out/provision.log"; fail "make deps did not find every package"; }
grep -Eq '^provision: (sch_netem is loaded|this kernel has no sch_netem)' "$out/provision.log" ||
	{ cat "$out/provision.log"; fail "the script said nothing of sch_netem"; }
grep -q '^provision: steerlab is built in ' "$out/provision.log" ||
	{ cat "$out/provision.log"; fail "the script did not end"; }
[ -e $mark ] && fail "the chroot wrote $mark on this machine's root filesystem"
echo "ok: vagrant/provision.sh ran in a copy-on-write chroot of Debian 12: apt, make deps, make, netem said ($(grep -o 'upper: .*' "$out/provision.log") written, all gone)"
