#!/usr/bin/env bash
# about 10 s
# The delay line (linkd) delays what it is told to, and leaves nothing
# behind: two namespaces joined by a veth, a ping's median RTT measured
# without linkd, then with linkd delaying one direction by 15 ms: the
# median must be 15 ms (+-5 %) above the first. While it runs, its
# nftables table is in the sending namespace; after SIGTERM the process is
# gone, the table too, its summary counts every packet released and none
# dropped, and the RTT is back to the first. DL_DELAY gives linkd another
# delay than the 15 ms the test expects (DL_DELAY=16ms must fail). First,
# `linkd -M` names the mechanism this kernel needs, and why.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

nsa=itdline-a nsb=itdline-b
LINKD=${LINKD:-bin/linkd}
WANT_MS=15
DL_DELAY=${DL_DELAY:-${WANT_MS}ms}
[ -x "$LINKD" ] || fail "no $LINKD (make all)"
for ns in $nsa $nsb; do
	[ ! -e "/run/netns/$ns" ] || fail "namespace $ns exists: another run of this test? (ip netns del $ns)"
done
out=$(mktemp -d /tmp/steerlab-it-dline.XXXXXX)
lpid=
cleanup() {
	[ -n "$lpid" ] && kill -TERM "$lpid" 2>/dev/null && wait "$lpid" 2>/dev/null
	for ns in $nsa $nsb; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	[ -n "${KEEP_OUT:-}" ] || rm -rf "$out"
	return 0
}
trap cleanup EXIT

# the mechanism this kernel needs, said with the kernel's reason
mech=$("$LINKD" -M 2>"$out/mech.log") || { cat "$out/mech.log" >&2; fail "linkd -M failed"; }
case $mech in
netem) echo "ok: linkd -M: netem (this kernel has sch_netem)" ;;
delayline)
	grep -q 'the kernel has no sch_netem' "$out/mech.log" || fail "linkd -M: delayline without the reason: $(cat "$out/mech.log")"
	echo "ok: linkd -M: delayline ($(sed 's/^[0-9:.]* linkd: //' "$out/mech.log"))" ;;
*) fail "linkd -M: expected netem or delayline, got '$mech'" ;;
esac

ip netns add $nsa
ip netns add $nsb
ip -n $nsa link set lo up
ip -n $nsb link set lo up
ip -n $nsa link add dla type veth peer name dlb netns $nsb
ip -n $nsa addr add 198.18.33.1/30 dev dla
ip -n $nsb addr add 198.18.33.2/30 dev dlb
ip -n $nsa link set dla up
ip -n $nsb link set dlb up

# rtt_median: the median RTT in ms of 60 pings from a to b
rtt_median() {
	ip netns exec $nsa ping -n -c 60 -i 0.02 -W 1 198.18.33.2 |
		sed -n 's/.* time=\([0-9.]*\) ms/\1/p' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR < 50) exit 1; print v[int((NR + 1) / 2)] }'
}

base=$(rtt_median) || fail "ping without linkd: fewer than 50 of 60 answered"
echo "RTT without linkd: median $base ms"

ip netns exec $nsa "$LINKD" -p 10 -n $nsa -e "$out/linkd.events" -i dla -d "$DL_DELAY" 2>"$out/linkd.log" &
lpid=$!
for _ in $(seq 50); do
	grep -q 'delay line on' "$out/linkd.log" && break
	kill -0 "$lpid" 2>/dev/null || { cat "$out/linkd.log" >&2; fail "linkd exited at start"; }
	sleep 0.1
done
grep -q 'delay line on' "$out/linkd.log" || fail "linkd not ready after 5 s"
ip netns exec $nsa nft list tables | grep -x 'table inet linkd' >/dev/null ||
	fail "linkd runs but its table inet linkd is not in $nsa"

with=$(rtt_median) || fail "ping through linkd: fewer than 50 of 60 answered"
added=$(awk -v a="$with" -v b="$base" 'BEGIN { printf "%.3f", a - b }')
echo "RTT through linkd ($DL_DELAY one way): median $with ms, $added ms above"
assert_ge "$added" "$(awk -v w=$WANT_MS 'BEGIN { print w * 0.95 }')" "added RTT >= ${WANT_MS} ms - 5 %"
assert_le "$added" "$(awk -v w=$WANT_MS 'BEGIN { print w * 1.05 }')" "added RTT <= ${WANT_MS} ms + 5 %"

kill -TERM "$lpid"
rc=0
wait "$lpid" || rc=$?
lpid_was=$lpid
lpid=
cat "$out/linkd.log"
[ "$rc" = 0 ] || fail "linkd exited $rc after SIGTERM"
kill -0 "$lpid_was" 2>/dev/null && fail "linkd (pid $lpid_was) still runs"
[ -z "$(ip netns exec $nsa nft list tables)" ] ||
	fail "tables left in $nsa: $(ip netns exec $nsa nft list tables | tr '\n' ' ')"
echo "ok: linkd gone, no nftables table left in $nsa"
sum=$(grep 'summary:' "$out/linkd.log") || fail "no summary line in linkd's log"
read -r queued released dropped overflow < <(echo "$sum" |
	sed -E 's/.*queued ([0-9]+) released ([0-9]+) dropped ([0-9]+) overflow ([0-9]+).*/\1 \2 \3 \4/')
assert_ge "$queued" 60 "linkd queued the 60 echo requests at least"
assert_eq "$released" "$queued" "linkd released every packet it queued"
assert_eq "$dropped" 0 "linkd dropped none (no loss configured)"
assert_eq "$overflow" 0 "no queue overflow"
ev=$(jq -c 'select(.event == "linkd_summary")' "$out/linkd.events")
[ "$(echo "$ev" | jq -r .interface)" = dla ] || fail "no linkd_summary event for dla: $ev"
assert_eq "$(echo "$ev" | jq -r .released)" "$released" "linkd_summary's released as the log's"
has_event "$out/linkd.events" linkd_ready || fail "no linkd_ready event"

after=$(rtt_median) || fail "ping after linkd: fewer than 50 of 60 answered"
echo "RTT after linkd: median $after ms"
assert_lt "$after" "$(awk -v b="$base" 'BEGIN { print b + 1 }')" "RTT back to within 1 ms of $base ms"
echo "PASS: test_delayline"
