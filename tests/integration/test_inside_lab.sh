#!/usr/bin/env bash
# Inside a running lab (issue 10, item 2; docs/inside.md): in a lab up with
# --traffic from topology/anycast.ini, `steerlab nodes` (text and --json)
# lists every node and agent, alive; `exec` runs in the node's namespace
# (its address, its /sys) and passes the exit status through; `fail a`
# kills a's sited: status and nodes name it dead, lab.events.jsonl has
# site_failed by hand, traffic moves to b; the refusals; `down`; and
# `steerlab report` of that run directory analyses the failure: a valid run.
# Then a second lab: fail, `recover a`: a's sited is alive again and
# requests reach a again; down leaves no namespace and no process.
# about 8 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=${IT_PREFIX:-it}-inside
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)

# expect_fail STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN
expect_fail() {
	local want=$1 pattern=$2 rc=0
	shift 2
	"$@" >"$out/refusal.log" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit status $rc, expected $want: $(cat "$out/refusal.log")"
	grep -q -- "$pattern" "$out/refusal.log" || fail "$*: expected '$pattern', got: $(cat "$out/refusal.log")"
	echo "ok: $* refused ($want): $(head -1 "$out/refusal.log")"
}
up() { # RUNDIR
	# 200 requests/s, here and in the second lab: enough to follow the
	# traffic, light enough that a gate running three other labs beside it
	# keeps the client on schedule (at 1000/s two fresh-checks' reports of
	# the second lab said client_behind, 976.2 requests/s both times)
	$STEERLAB up topology/anycast.ini --out "$1" --set name=$lab --set probe_interval=100ms \
		--set probe_timeout=50ms --set rate=200 --traffic >"$out/up.log" 2>&1 || { cat "$out/up.log"; fail "steerlab up failed"; }
}
# replies NODE: replies from site NODE in c1's latest client_progress
replies() {
	jq -R --arg s "$1" 'fromjson? | select(.event == "client_progress") | .sites[$s] // 0' \
		"$rundir/c1.client.events.jsonl" 2>/dev/null | tail -1
}
replies_from() { # NODE MIN: at least MIN replies from NODE so far
	local n
	n=$(replies "$1")
	[ -n "$n" ] && [ "$n" -ge "$2" ]
}

# --- first lab: nodes, exec, fail, refusals, down, report
rundir=$out/run1
up "$rundir"
$STEERLAB nodes $lab | tee "$out/nodes.txt"
for n in core a b c1; do
	grep -q "^$n ([a-z]*), namespace $lab-$n\$" "$out/nodes.txt" || fail "nodes does not list $n"
done
awk '{ if (length($0) > 80) exit 1 }' "$out/nodes.txt" || fail "nodes: a line is longer than 80 columns"
$STEERLAB nodes $lab --json >"$out/nodes.json"
assert_eq "$(jq '.nodes | length' "$out/nodes.json")" 4 "nodes --json: nodes"
[ "$(jq -r '[.nodes[].name] | join(" ")' "$out/nodes.json")" = "core a b c1" ] || fail "nodes --json: names"
assert_eq "$(jq '[.nodes[].agents[]] | length' "$out/nodes.json")" 7 "nodes --json: agents"
assert_eq "$(jq '[.nodes[].agents[] | select(.alive)] | length' "$out/nodes.json")" 7 "nodes --json: agents alive"
# every agent of agents.tsv is listed under its node, with its pid
while read -r pid _ node agent; do
	jq -e --arg n "$node" --arg a "$agent" --argjson p "$pid" \
		'.nodes[] | select(.name == $n) | .agents[] | select(.agent == $a and .pid == $p and .alive)' \
		"$out/nodes.json" >/dev/null || fail "nodes --json lacks $agent of $node (pid $pid)"
done <"/run/steerlab/$lab/agents.tsv"
echo "ok: every agent of agents.tsv listed alive"

# exec: the address nodes printed is the node's; the exit status passes through
addr=$(jq -r '.nodes[] | select(.name == "a") | .addresses[] | select(.role == "link") | "\(.address)/\(.prefixlen)"' "$out/nodes.json")
grep -q "  iface eth0 *$addr *link to core (a)" "$out/nodes.txt" || fail "nodes text lacks $addr"
$STEERLAB exec $lab a -- ip -o -4 addr show dev eth0 | grep "inet $addr " >/dev/null || fail "exec: a's eth0 has not $addr"
echo "ok: exec $lab a: eth0 has $addr"
[ "$($STEERLAB exec $lab a -- ls /sys/class/net | sort | tr '\n' ' ')" = "eth0 lo " ] ||
	fail "exec: /sys/class/net is not a's: $($STEERLAB exec $lab a -- ls /sys/class/net | tr '\n' ' ')"
echo "ok: exec $lab a: /sys/class/net is the namespace's"
rc=0
$STEERLAB exec $lab c1 sh -c 'exit 7' || rc=$?
assert_eq "$rc" 7 "exec: the command's exit status"
expect_fail 127 "nosuchcommand" $STEERLAB exec $lab c1 -- nosuchcommand
expect_fail 1 "has no node 'zz' (its nodes: core, a, b, c1)" $STEERLAB exec $lab zz -- true
expect_fail 2 "which node of lab $lab? its nodes: core, a, b, c1" $STEERLAB exec $lab

wait_until 10 replies_from a 500 || fail "no traffic reached a: $(replies a)"
$STEERLAB fail $lab a
$STEERLAB status $lab | tee "$out/status.txt"
grep -q "^$lab .* 6/7 " "$out/status.txt" || fail "status: not 6/7 agents alive"
grep -q "dead: sited of node a (pid [0-9]*)" "$out/status.txt" || fail "status does not name a's sited dead"
$STEERLAB status --json >"$out/status.json"
[ "$(jq -c --arg l $lab '.labs[] | select(.lab == $l) | [.dead[] | [.node, .agent]]' "$out/status.json")" = '[["a","sited"]]' ] ||
	fail "status --json: dead is not [a sited]: $(cat "$out/status.json")"
$STEERLAB nodes $lab --json >"$out/nodes2.json"
[ "$(jq '.nodes[] | select(.name == "a") | .agents[] | select(.agent == "sited") | .alive' "$out/nodes2.json")" = false ] ||
	fail "nodes --json: a's sited not dead"
assert_eq "$(jq -R 'fromjson? | select(.event == "site_failed" and .by == "hand" and .site == "a")' "$rundir/lab.events.jsonl" | jq -s length)" 1 \
	"site_failed by hand in lab.events.jsonl"
b0=$(replies b)
wait_until 10 replies_from b $((b0 + 500)) || fail "traffic did not move to b: $(replies b)"
echo "ok: traffic moved to b"

expect_fail 1 "site a of lab $lab has already failed" $STEERLAB fail $lab a
expect_fail 1 "is a router, not a site (its sites: a, b)" $STEERLAB fail $lab core
expect_fail 1 "has no node 'zz'" $STEERLAB fail $lab zz
expect_fail 1 "site b of lab $lab has not failed" $STEERLAB recover $lab b
expect_fail 1 "no lab named 'nolab' is up" $STEERLAB fail nolab a
expect_fail 2 "which site of lab $lab? its sites: a, b" $STEERLAB recover $lab
expect_fail 2 "nodes takes the lab's name, not its file: steerlab nodes anycast" $STEERLAB nodes topology/anycast.ini

$STEERLAB down $lab
for e in traffic_stopped lab_stopping lab_down; do
	has_event "$rundir/lab.events.jsonl" $e || fail "down did not write $e"
done
rc=0
$STEERLAB report "$rundir" >"$out/report.txt" 2>&1 || rc=$?
sed -n 1,12p "$out/report.txt"
assert_eq "$rc" 0 "report of the lab failed by hand: exit status"
[ "$(jq .valid "$rundir/clocks.json")" = true ] || fail "report: not a valid run: $(grep -i invalid "$out/report.txt")"
assert_gt "$(jq '.schemes.anycast.window_s' "$rundir/clocks.json")" 0 "anycast window (s)"
assert_lt "$(jq '.schemes.anycast.window_s' "$rundir/clocks.json")" 2 "anycast window (s)"
assert_no_leftovers $lab "$rundir"

# --- second lab: fail, then recover; brought up from another directory
# without --out (its run directory, runs/LAB-..., is relative to it), taken
# down from here: down still closes its events, and report finds a valid run
mkdir "$out/work"
steerlab_abs=$(realpath "$STEERLAB") topo_abs=$(realpath topology/anycast.ini)
(cd "$out/work" && "$steerlab_abs" up "$topo_abs" --set name=$lab \
	--set probe_interval=100ms --set probe_timeout=50ms --set rate=200 --traffic >"$out/up.log" 2>&1) ||
	{ cat "$out/up.log"; fail "steerlab up (default run directory) failed"; }
rundir=$(ls -d "$out/work/runs/$lab-"*)
[ -d "$rundir" ] || fail "up made no runs/$lab-... in its directory"
wait_until 10 replies_from a 300 || fail "no traffic reached a"
$STEERLAB fail $lab a >/dev/null
b0=$(replies b)
wait_until 10 replies_from b $((b0 + 300)) || fail "traffic did not move to b"
$STEERLAB recover $lab a
$STEERLAB status $lab | tee "$out/status3.txt"
grep -q "^$lab .* 7/7 " "$out/status3.txt" || fail "status after recover: not 7/7 agents alive"
grep -q "dead:" "$out/status3.txt" && fail "status after recover still names a dead agent"
[ "$($STEERLAB nodes $lab --json | jq '.nodes[] | select(.name == "a") | .agents[] | select(.agent == "sited") | .alive')" = true ] ||
	fail "nodes --json: a's sited not alive after recover"
has_event "$rundir/lab.events.jsonl" site_recovered || fail "no site_recovered event"
assert_eq "$(jq -R 'fromjson? | select(.event == "sited_ready")' "$rundir/a.sited.events.jsonl" | jq -s length)" 2 "a's sited ready twice"
a0=$(replies a)
wait_until 10 replies_from a $((a0 + 300)) || fail "requests do not reach a again: $(replies a) replies from a"
echo "ok: requests reach a again ($(replies a) replies from a)"
$STEERLAB down $lab
for e in traffic_stopped lab_stopping lab_down; do
	has_event "$rundir/lab.events.jsonl" $e || fail "down from another directory did not write $e"
done
rc=0
$STEERLAB report "$rundir" >"$out/report2.txt" 2>&1 || rc=$?
assert_eq "$rc" 0 "report of runs/$lab-... (failed and recovered by hand): exit status"
grep -q "healthy_route_withdrawn" "$out/report2.txt" && fail "report: healthy_route_withdrawn: $(grep healthy "$out/report2.txt")"
echo "ok: the run directory of an up without --out is analysed: a valid run"
assert_no_leftovers $lab "$rundir"
rm -rf "$out"
echo "PASS: inside a running lab"
