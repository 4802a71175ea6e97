#!/usr/bin/env bash
# The measuring and DNS side: the collector, authd and resolverd, each
# killed (SIGKILL) just after t0. Each: exit status 3, agent_exited in
# lab.events.jsonl, the agent named on the terminal (and in clocks.json's
# warnings once the verdict is in). Routed statically: how the lab routes
# is not what they test.
# about 18 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/agent_exit.sh

lab=it-exit-srv
agent_exit_setup $lab
agent_exit_case $lab "$out" core collector KILL routing=static
agent_exit_case $lab "$out" ns authd KILL routing=static
agent_exit_case $lab "$out" r resolverd KILL routing=static
