# Shared by test_agent_exit_*.sh (sourced after lib.sh): runs of
# topology/compare.ini in which one agent is killed just after t0. Each must
# be noticed at once (agent_exited in lab.events.jsonl, a line on the
# terminal), make `steerlab run` exit 3, and leave nothing behind.

# agent_exit_case LAB OUT NODE AGENT SIGNAL [SET...]: SETs are more --set
# (routing=static for routed: compare.ini routes by BGP, where zebra and
# bgpd take routed's place)
agent_exit_case() {
	local lab=$1 out=$2 node=$3 agent=$4 sig=$5
	local rundir=$out/$node-$agent log=$out/$node-$agent.out rc=0 pid ev set sets=() try late
	shift 5
	for set in "$@"; do sets+=(--set "$set"); done
	echo "-- $agent of node $node, SIG$sig just after t0${*:+ ($*)}"
	# the signal must reach the agent while the traffic runs (2 s after
	# t0): on a machine too busy for that, the case is run once more
	for try in 1 2; do
		$STEERLAB run topology/compare.ini --out "$rundir" --set name="$lab" --set duration=3s \
			--set fail_at=1s "${sets[@]}" -q >"$log" 2>&1 &
		run_pid=$!
		wait_until 30 has_event "$rundir/lab.events.jsonl" site_failed ||
			{ cat "$log" >&2; fail "no site_failed within 30 s"; }
		pid=$(awk -v n="$node" -v a="$agent" '$3 == n && $4 == a { print $1 }' "$rundir/agents.tsv")
		[ -n "$pid" ] || fail "no $agent of node $node in $rundir/agents.tsv"
		late=0
		kill -"$sig" "$pid" 2>/dev/null || late=1
		has_event "$rundir/lab.events.jsonl" traffic_stopped && late=1
		rc=0
		wait "$run_pid" || rc=$?
		run_pid=
		[ "$late" = 1 ] && [ "$try" = 1 ] || break
		echo "note: the signal came after the traffic had ended (a busy machine): once more"
		rm -rf "$rundir"
	done
	[ "$rc" -eq 3 ] || { cat "$log" >&2; fail "$agent killed: steerlab run exited $rc, expected 3"; }
	echo "ok: exit status 3"
	grep -q "^steerlab: agent $agent of node $node \(died\|exited\) .* at [0-9.]* s: this run is invalid" "$log" ||
		{ cat "$log" >&2; fail "no terminal line about $agent of node $node"; }
	grep "^steerlab: agent $agent of node $node" "$log"
	ev=$(jq -cR --arg n "$node" --arg a "$agent" \
		'fromjson? | select(.event == "agent_exited" and .node == $n and .agent == $a)' \
		"$rundir/lab.events.jsonl")
	[ -n "$ev" ] || fail "no agent_exited for $agent of node $node"
	[ "$(jq -r .expected <<<"$ev")" = false ] || fail "agent_exited says expected: $ev"
	[ "$(jq -r .pid <<<"$ev")" = "$pid" ] || fail "agent_exited names another pid: $ev"
	case $sig in
	KILL) [ "$(jq -r .signal <<<"$ev")" = 9 ] || fail "agent_exited: expected signal 9: $ev" ;;
	TERM) [ "$(jq -r .exit_code <<<"$ev")" = 0 ] || fail "agent_exited: expected exit_code 0: $ev" ;;
	esac
	echo "ok: $ev"
	# the one expected exit: the failing site's sited, killed at t0
	[ "$(jq -cR 'fromjson? | select(.event == "agent_exited" and .expected == true and .agent == "sited") | .node' \
		"$rundir/lab.events.jsonl")" = '"a"' ] || fail "the failure's kill of a's sited is not the expected exit"
	[ "$(json "$rundir/clocks.json" .valid)" = false ] || fail "clocks.json: valid is not false"
	json "$rundir/clocks.json" '.warnings[] | select(.code == "agent_exited") | .message' |
		grep -q "$agent" || fail "clocks.json: no agent_exited warning naming $agent"
	echo "ok: clocks.json: valid false, a warning names $agent"
	assert_no_leftovers "$lab" "$rundir"
}

# agent_exit_setup LAB: the guard, the output directory ($out) and the
# cleanup of a run left in the background by a failure.
agent_exit_setup() {
	lab_guard "$1"
	out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
	run_pid=
	# set +e: the run's own exit status must not end the cleanup
	trap 'set +e; if [ -n "$run_pid" ]; then kill -INT "$run_pid" 2>/dev/null; wait "$run_pid"; fi
		lab_cleanup '"$1"'; rm -rf "$out"' EXIT
}
