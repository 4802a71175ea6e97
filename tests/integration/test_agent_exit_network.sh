#!/usr/bin/env bash
# An agent of the network side that ends mid-run makes the run invalid: a
# client stopped early (SIGTERM: it exits 0, before its duration), the
# healthy site's sited, its prober, the router's routed (routing = static)
# and its bgpd (compare.ini's routing = bgp) (SIGKILL). Each:
# exit status 3, agent_exited in lab.events.jsonl, the agent named on the
# terminal (and in clocks.json's warnings once the verdict is in). The
# client, sited and prober cases route statically: how the lab routes is
# not what they test, and FRR's bring-up would double their cost.
# about 28 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/agent_exit.sh

lab=it-exit-net
agent_exit_setup $lab
agent_exit_case $lab "$out" c1 client TERM routing=static
agent_exit_case $lab "$out" b sited KILL routing=static
agent_exit_case $lab "$out" b prober KILL routing=static
agent_exit_case $lab "$out" core routed KILL routing=static
agent_exit_case $lab "$out" core bgpd KILL
