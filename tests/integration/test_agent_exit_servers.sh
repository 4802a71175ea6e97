#!/usr/bin/env bash
# The measuring and DNS side: the collector, authd and resolverd, each
# killed (SIGKILL) just after t0. Each: exit status 3, agent_exited in
# lab.events.jsonl, the agent named on the terminal (and in clocks.json's
# warnings once the verdict is in).
# about 23 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/agent_exit.sh

lab=it-exit-srv
agent_exit_setup $lab
agent_exit_case $lab "$out" core collector KILL
agent_exit_case $lab "$out" ns authd KILL
agent_exit_case $lab "$out" r resolverd KILL
