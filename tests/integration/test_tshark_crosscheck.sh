#!/usr/bin/env bash
# The clocks' reading of the captures, cross-checked against tshark on the
# same files (docs/clocks.md, "Two schemes in one run"): a short real run of
# tests/integration/data/compare.ini (both schemes, 4 s of traffic, site a
# failing at 1 s), then for every site capture tshark counts, with display
# filters written from the definitions and not from our code, the requests
# after t0 of each scheme, and for the dead site its requests to the dead
# site; and over the query captures every UDP DNS query. Each count must equal
# clocks.json's: captured_after_t0 per site and scheme, lost_capture,
# upstream_queries. None may be 0 (a vacuous pass).
#
# t0 goes into the filter as seconds with all nine digits: tshark compares
# frame.time_epoch with it to the nanosecond (checked below on a captured
# timestamp), so no packet within a microsecond of t0 is misplaced.
# about 9 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
lab=it-tsk
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
rundir=$out/run

run_valid "$out/run.log" tests/integration/data/compare.ini --set name=$lab --set duration=4s --set fail_at=1s \
	--out "$rundir" --quiet || { cat "$out/run.log"; fail "steerlab run failed"; }
clocks=$rundir/clocks.json
[ -s "$clocks" ] || fail "no $clocks"

t0_ns=$(json "$clocks" .t0_ns)
port=$(json "$clocks" .port)
site=$(json "$clocks" .failed.site)
prefix=$(json "$clocks" .failed.prefix)
address=$(json "$clocks" .failed.address)
[ "$address" != null ] || fail "site_failed has no address"
t0="${t0_ns:0:${#t0_ns}-9}.${t0_ns: -9}"
echo "t0 = $t0 ($t0_ns ns), site $site ($address), service $prefix, port $port"

# tshark_counts FILE FILTER...: how many frames of FILE match each filter,
# in one pass (io,stat over the whole file, one column per filter).
tshark_counts() {
	local f=$1 args="" x
	shift
	for x in "$@"; do args="$args,$x"; done
	tshark -r "$f" -q -z "io,stat,0$args" 2>/dev/null |
		awk -F'|' '/<>/ { for (i = 3; i <= NF; i += 2) if ($i ~ /[0-9]/) printf "%s%d", n++ ? " " : "", $i }
			END { print "" }'
}

# tshark's time comparison is exact to the nanosecond: the first request of
# the dead site's capture, at t, is after t - 1 ns and not after t. (A double
# holds such a time to about 240 ns: t - 1 ns and t would be the same.)
first=$(tshark -r "$rundir/capture-$site.pcap" -Y "udp.dstport == $port" -T fields -e frame.time_epoch 2>/dev/null |
	awk 'NR == 1')
sec=${first%.*} nsec=$((10#${first#*.}))
if [ "$nsec" = 0 ]; then before="$((sec - 1)).999999999"; else before=$(printf '%s.%09d' "$sec" $((nsec - 1))); fi
read -r after_before after_first < <(tshark_counts "$rundir/capture-$site.pcap" \
	"frame.time_epoch > $before" "frame.time_epoch > $first")
[ $((after_before - after_first)) -ge 1 ] ||
	fail "tshark does not tell frame.time_epoch > $before from > $first ($after_before and $after_first frames)"
echo "ok: tshark compares frame.time_epoch to the nanosecond ($before and $first)"

# A request (lib/wire.h, as the clocks decode it): an IPv4 UDP datagram to
# the request port, not a fragment, whose payload holds at least the 48 bytes
# of a message with magic "SLRQ", version 1 and type 1 (request). Its client
# id (payload bytes 8-11) gives the scheme: 0 is a probe (neither), 1-99999
# anycast, 100000 (0x000186a0) and up dns. Anycast's requests also go to the
# service prefix.
req="ip && udp.dstport == $port && ip.frag_offset == 0 && ip.flags.mf == 0 && len(udp.payload) >= 48"
req="$req && udp.payload[0:6] == 53:4c:52:51:01:01 && frame.time_epoch > $t0"
anycast="$req && udp.payload[8:4] > 00:00:00:00 && udp.payload[8:4] < 00:01:86:a0 && ip.dst == $prefix"
dns="$req && udp.payload[8:4] >= 00:01:86:a0"

checked=0
for f in "$rundir"/capture-*.pcap; do
	label=$(basename "$f" .pcap)
	label=${label#capture-}
	case $label in dns-* | resolver-* | link-*) continue ;; esac
	read -r n_any n_dns n_dead < <(tshark_counts "$f" "$anycast" "$dns" "$dns && ip.dst == $address")
	for s in anycast dns; do
		want=$(json "$clocks" ".schemes.$s.captured_after_t0[\"$label\"]")
		got=$([ $s = anycast ] && echo "$n_any" || echo "$n_dns")
		[ "$got" = "$want" ] || fail "$label, $s: tshark counts $got requests after t0, the clocks $want"
		[ "$got" -gt 0 ] || fail "$label, $s: no request after t0 (nothing cross-checked)"
		echo "ok: capture-$label.pcap, $s: $got requests after t0 (tshark = clocks)"
		checked=$((checked + 1))
	done
	if [ "$label" = "$site" ]; then
		want=$(json "$clocks" .schemes.anycast.lost_capture)
		[ "$n_any" = "$want" ] || fail "anycast: tshark counts $n_any requests to the dead site, lost_capture is $want"
		want=$(json "$clocks" .schemes.dns.lost_capture)
		[ "$n_dead" = "$want" ] || fail "dns: tshark counts $n_dead requests to $address, lost_capture is $want"
		[ "$n_dead" -gt 0 ] || fail "dns: no request to $address after t0 (nothing cross-checked)"
		echo "ok: lost_capture: anycast $n_any, dns $n_dead (tshark = clocks)"
	fi
done
[ "$checked" -ge 4 ] || fail "only $checked site captures' counts were checked (expected sites a and b)"

# The queries that reached authd: UDP to port 53, not a fragment, at least a
# DNS header (12 bytes), QR = 0.
queries=0
for f in "$rundir"/capture-dns-*.pcap; do
	read -r n < <(tshark_counts "$f" "ip && udp.dstport == 53 && ip.frag_offset == 0 && ip.flags.mf == 0 && len(udp.payload) >= 12 && !(udp.payload[2] & 80)")
	queries=$((queries + n))
done
want=$(json "$clocks" .schemes.dns.upstream_queries)
[ "$queries" = "$want" ] || fail "tshark counts $queries DNS queries on the authd links, upstream_queries is $want"
[ "$queries" -gt 0 ] || fail "no DNS query captured (nothing cross-checked)"
echo "ok: upstream_queries: $queries (tshark = clocks)"

# The client queries that reached resolver node r (the first [resolver]:
# 198.18.128.0/24) on its link: UDP to port 53 of an address in its block
# from one outside it, a DNS header, QR = 0 (docs/clocks.md, "Resolvers").
blk=198.18.128.0/24
read -r n < <(tshark_counts "$rundir/capture-resolver-r.pcap" "ip && udp.dstport == 53 && ip.dst == $blk && !(ip.src == $blk) && ip.frag_offset == 0 && ip.flags.mf == 0 && len(udp.payload) >= 12 && !(udp.payload[2] & 80)")
want=$(json "$clocks" .resolvers.nodes.r.cache.queries)
[ "$n" = "$want" ] || fail "tshark counts $n client queries to resolver r, the clocks $want"
[ "$n" -gt 0 ] || fail "no client query to resolver r captured (nothing cross-checked)"
echo "ok: resolver r's client queries: $n (tshark = clocks)"

assert_no_leftovers $lab "$rundir"
rm -rf "$out"
