#!/usr/bin/env bash
# README.md's commands run and its outputs compared in shape (docs.sh): the
# quick start's `make demo` at its full length, the lab driven by hand, the
# captures read by tshark and tcpdump, the sweeps (the TTL sweep of 2 to
# 10 s plotted on a linear axis), --repeat, FRR's vtysh.
# about 110 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/docs.sh

docs_run README.md
docs_sweep_axis 10 linear
docs_no_lab_left compare anycast bgpsimple bgp
