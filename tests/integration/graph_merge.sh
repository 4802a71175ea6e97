# Sourced by tests/integration/test_bgp_internet.sh, on the run of
# topology/bgp.ini it makes (no lab of its own, to keep the gate short):
# steerlab graph (dot through Graphviz, mermaid, json, --run on the run)
# and steerlab merge (run.pcapng read back by tshark: every packet of the
# captures, the lab's events as comments in causal order).
# graph_merge_check RUN: fails (lib.sh's fail) on the first wrong thing
graph_merge_check() {
	local r=$1 n want got comments order what f
	command -v dot >/dev/null || fail "no Graphviz dot (make deps)"
	# graph: dot valid for Graphviz, mermaid, json with the nodes and sessions
	$STEERLAB graph topology/bgp.ini --format dot | dot -Tsvg >"$r/graph.svg" ||
		fail "steerlab graph --format dot | dot -Tsvg failed"
	grep -q '<svg' "$r/graph.svg" || fail "dot -Tsvg wrote no SVG"
	$STEERLAB graph topology/bgp.ini --format svg >"$r/graph2.svg" || fail "graph --format svg failed"
	grep -q '<svg' "$r/graph2.svg" || fail "graph --format svg: no SVG"
	$STEERLAB graph topology/bgp.ini --format mermaid >"$r/graph.mmd"
	[ "$(head -1 "$r/graph.mmd")" = "graph LR" ] || fail "mermaid: no 'graph LR' first"
	n=$(grep -c ' ===|"eBGP ' "$r/graph.mmd") || true
	[ "$n" = 6 ] || fail "mermaid: expected 6 eBGP sessions, got $n"
	$STEERLAB graph topology/bgp.ini --format json >"$r/graph.json"
	got=$(jq -r '[(.nodes | length), (.sessions | length),
		(.sessions[] | select(.a == "t1" and .b == "a") | "\(.a_asn)-\(.b_asn)")] | join(" ")' "$r/graph.json")
	[ "$got" = "9 6 65001-65101" ] || fail "graph json: nodes, sessions, t1-a's ASNs: expected '9 6 65001-65101', got '$got'"
	# --run: c1's catchment moved from a to b, t1's route from a to b
	$STEERLAB graph "$r/topology.ini" --run "$r" --format json >"$r/graph-run.json"
	got=$(jq -r '[(.nodes[] | select(.name == "c1") | .catchment | "\(.before)>\(.after) \(.moved)"),
		(.nodes[] | select(.name == "t1") | .fib | "\(.before)>\(.after)")] | join(" ")' "$r/graph-run.json")
	[ "$got" = "a>b true a>b" ] || fail "graph --run: c1's catchment and t1's route: expected 'a>b true a>b', got '$got'"
	$STEERLAB graph "$r/topology.ini" --run "$r" --format dot | dot -Tsvg >/dev/null ||
		fail "graph --run --format dot: not valid for Graphviz"
	if $STEERLAB graph "$r/topology.ini" --run "$r/.." >/dev/null 2>"$r/graph.err"; then
		fail "graph --run on a directory that is no run: exit status 0"
	fi
	grep -q "not a run directory" "$r/graph.err" || fail "graph --run DIR: $(cat "$r/graph.err")"
	echo "ok: steerlab graph: dot through Graphviz, mermaid, json (9 nodes, 6 sessions), --run (c1 a>b, t1 a>b)"

	# merge: every packet of the captures, in one file
	$STEERLAB merge "$r" >"$r/merge.txt" || fail "steerlab merge: $(cat "$r/merge.txt")"
	# the captures' packets by capinfos, all at once; run.pcapng read once by
	# tshark (each start of it costs a second): per packet its interface
	# and its comments
	want=$(capinfos -M -c -T -r "$r"/capture-*.pcap | awk -F'\t' '{ n += $2 } END { print n }')
	tshark -r "$r/run.pcapng" -T fields -E separator=/t -E aggregator=@ \
		-e frame.interface_name -e frame.comment >"$r/merged.tsv" 2>/dev/null ||
		fail "tshark cannot read run.pcapng"
	got=$(wc -l <"$r/merged.tsv")
	assert_ge "$want" 1000 "packets in the captures"
	[ "$got" = "$want" ] || fail "run.pcapng holds $got packets, the captures $want"
	n=$(cut -f1 "$r/merged.tsv" | sort -u | paste -sd, -)
	[[ $n == *a,b,c,*link-t1-a* ]] || fail "run.pcapng's interfaces: $n"
	# the comments, in the order tshark lists them: times that never go back,
	# t0 first, a's prober before t1's FIB change before c1's first request at b
	comments=$(cut -f2 "$r/merged.tsv" | grep -v '^$' | tr '@' '\n')
	echo "$comments" >"$r/comments.txt"
	echo "$comments" | awk '{ if ($1 != "t0" || $2 != "+") { print "no time: " $0; exit 1 }
		if (NR > 1 && $3 + 0 < last) { print "out of order: " $0; exit 1 } last = $3 + 0 }' ||
		fail "run.pcapng's comments: $(cat "$r/comments.txt")"
	sed -n 1p "$r/comments.txt" | grep '^t0 + 0.000000 s: t0, timeline: kill a' >/dev/null ||
		fail "the first comment is not t0: $(head -1 "$r/comments.txt")"
	order=""
	for what in "a's prober declares a dead" "t1's FIB: first change" \
		"the first request of c1 (anycast, client 1) at its new site b" "the last anycast request to the dead site a"; do
		n=$(grep -m1 -nF "$what" "$r/comments.txt" | cut -d: -f1)
		[ -n "$n" ] || fail "no comment '$what' in run.pcapng: $(cat "$r/comments.txt")"
		order="$order $n"
	done
	set -- $order
	# the FIB change is stamped by the route monitor when netlink tells it,
	# after the kernel already forwards by it: c1's first packet at b may
	# come a fraction of a ms before that stamp (a loaded gate: 0.2 ms), so
	# both come after the declaration, in either order
	[ "$1" -lt "$2" ] && [ "$1" -lt "$3" ] ||
		fail "run.pcapng: expected a's declaration before t1's FIB change and c1's first request at b: $(cat "$r/comments.txt")"
	echo "ok: steerlab merge: $got packets of $(ls "$r"/capture-*.pcap | wc -l) captures," \
		"$(wc -l <"$r/comments.txt") comments in order"
}
