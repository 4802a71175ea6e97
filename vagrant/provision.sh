#!/bin/sh
# The VM's provisioning (vagrant/Vagrantfile runs it as root once the
# checkout is at /steerlab): Debian 12's packages steerlab needs, steerlab
# built, and whether the VM's kernel has sch_netem (Debian's has; a lab's
# links use it when it is there: docs/topology.md, "Impairments").
# tests/integration/test_vagrant_provision.sh runs this very script in a
# copy-on-write chroot of the test machine (docs/scale.md, "A VM").
set -eu
export DEBIAN_FRONTEND=noninteractive
dir=${STEERLAB_DIR:-/steerlab}
apt-get -o Acquire::Retries=3 update -qq
apt-get -o Acquire::Retries=3 install -y -qq make gcc
cd "$dir"
make deps
make
if modprobe sch_netem 2>/dev/null || [ -d /sys/module/sch_netem ]; then
	echo "provision: sch_netem is loaded: the lab's links get netem's delay and loss"
else
	echo "provision: this kernel has no sch_netem: links fall back to the lab's delay line (docs/topology.md)"
fi
echo "provision: steerlab is built in $dir; try: vagrant ssh -c 'cd /steerlab && sudo make demo'"
