#!/usr/bin/env bash
# The Wireshark dissector (probes/wireshark/steerlab.lua), run by tshark on
# the captures of a recorded run (tests/unit/data/report/run), must read
# what steerlab reads there:
#   - every frame is a steerlab request, and its client id and sequence
#     number are those steerlab's own analysis reads, frame by frame
#     (tests/tools/capdump: clocks_load, as `steerlab report`);
#   - each client request's send time is the one its client recorded
#     (requests-*.csv), the probes' client id is 0, the scheme follows the id;
# and on a reply made here byte by byte (lib/wire.h), every field, on port
# 7000 (over IPv4 and IPv6) and, through the steerlab.port preference, on
# another port.
# No root needed: tshark reads files. Nothing passes on zero counts.
set -euo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build/release}
lua=probes/wireshark/steerlab.lua
run=tests/unit/data/report/run
capdump=$BUILD/tools/capdump

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
command -v text2pcap >/dev/null || fail "no text2pcap (tshark's package, wireshark-common: sudo make deps)"
[ -x "$capdump" ] || fail "no $capdump (make $capdump)"
tmp=$(mktemp -d /tmp/steerlab-dissector.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# dissect ARGS...: tshark with the dissector; a Lua error fails the test
# (tshark reports it on standard error and goes on without the dissector)
dissect() {
	tshark -X "lua_script:$lua" "$@" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "tshark $*"; }
	if grep -qi 'lua' "$tmp/err"; then
		cat "$tmp/err" >&2
		fail "tshark could not load $lua"
	fi
}

"$capdump" "$run" >"$tmp/ours" || fail "capdump $run"
for label in a b; do
	pcap=$run/capture-$label.pcap
	frames=$(tshark -r "$pcap" 2>/dev/null | wc -l)
	dissect -r "$pcap" -Y steerlab -T fields -E separator=, \
		-e steerlab.client -e steerlab.seq -e steerlab.sent_ns -e steerlab.type \
		-e steerlab.site -e steerlab.flags -e steerlab.scheme >"$tmp/$label.csv"
	n=$(wc -l <"$tmp/$label.csv")
	[ "$n" -gt 0 ] || fail "capture-$label.pcap: the dissector decoded no frame"
	[ "$n" = "$frames" ] || fail "capture-$label.pcap: $n of $frames frames decoded as steerlab"

	# client ids and sequence numbers, frame by frame, against the analysis
	awk -v l="$label" '$1 == l { print $2 "," $3 }' "$tmp/ours" >"$tmp/$label.ours"
	cut -d, -f1,2 "$tmp/$label.csv" >"$tmp/$label.theirs"
	[ -s "$tmp/$label.ours" ] || fail "capture-$label.pcap: the analysis read no request"
	if ! cmp -s "$tmp/$label.ours" "$tmp/$label.theirs"; then
		diff "$tmp/$label.ours" "$tmp/$label.theirs" | sed -n 1,10p >&2
		fail "capture-$label.pcap: client ids and sequence numbers differ from the analysis's (< ours, > the dissector's)"
	fi
	echo "ok: capture-$label.pcap: $n requests, client id and sequence number as the analysis reads them"

	# send times against the clients' records; the other fields of a request
	read -r probes clients matched bad < <(awk -F, '
		FILENAME ~ /requests-/ { if (FNR > 1) sent[$1 "," $2] = $3; next }
		$4 != 1 || $5 != "" || $6 != "0x0000" { bad++ }
		$1 == 0 { probes++; if ($7 != "probe") bad++; next }
		{ clients++; if (sent[$1 "," $2] == $3) matched++ }
		$1 < 100000 && $7 != "anycast" { bad++ }
		$1 >= 100000 && $7 != "dns" { bad++ }
		END { print probes + 0, clients + 0, matched + 0, bad + 0 }' \
		"$run"/requests-*.csv "$tmp/$label.csv")
	[ "$bad" = 0 ] || fail "capture-$label.pcap: $bad requests with a wrong type, site, flags or scheme"
	[ "$probes" -gt 0 ] && [ "$clients" -gt 0 ] || fail "capture-$label.pcap: $probes probes, $clients client requests: expected both"
	[ "$matched" = "$clients" ] ||
		fail "capture-$label.pcap: $((clients - matched)) of $clients client requests have a send time the client did not record"
	echo "ok: capture-$label.pcap: $clients client requests' send times as recorded, $probes probes (client 0)"
done
awk -F, '$1 >= 100000 { dns++ } $1 > 0 && $1 < 100000 { any++ } END { exit !(dns && any) }' "$tmp/a.csv" ||
	fail "capture-a.pcap: expected requests of both schemes (client ids 1-99999 and 100000 up)"

# Over TCP (proto = tcp): a request made here byte by byte (client 1,
# sequence 7), twice in one segment to port 7000, is two requests; cut in
# two segments (30 bytes, then 18), it is one, decoded once reassembled
printf 'SLRQ\001\001\000\000\000\000\000\001\000\000\000\000\000\000\000\000\000\000\000\007' >"$tmp/req.bin"
printf '\030\354\000\000\000\000\000\007\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >>"$tmp/req.bin"
[ "$(wc -c <"$tmp/req.bin")" = 48 ] || fail "the request made here is not 48 bytes"
hexdump_of() { od -An -tx1 -v "$1" | awk '{ printf "%06x %s\n", (NR - 1) * 16, $0 }'; }
cat "$tmp/req.bin" "$tmp/req.bin" >"$tmp/two.bin"
hexdump_of "$tmp/two.bin" >"$tmp/two.txt"
head -c 30 "$tmp/req.bin" >"$tmp/cut1.bin"
tail -c 18 "$tmp/req.bin" >"$tmp/cut2.bin"
{ hexdump_of "$tmp/cut1.bin"; hexdump_of "$tmp/cut2.bin"; } >"$tmp/cut.txt"
for f in two cut; do
	text2pcap -q -4 198.18.0.10,198.19.0.1 -T 40000,7000 "$tmp/$f.txt" "$tmp/$f.pcap" \
		>"$tmp/text2pcap.out" 2>&1 || { cat "$tmp/text2pcap.out" >&2; fail "text2pcap -T"; }
done
got=$(dissect -r "$tmp/two.pcap" -Y steerlab -T fields -E "separator=;" -e frame.number \
	-e steerlab.type -e steerlab.client -e steerlab.seq -e steerlab.scheme)
[ "$got" = "1;1,1;1,1;7,7;anycast,anycast" ] ||
	fail "two requests in one TCP segment: got '$got', expected frame 1 with two requests"
got=$(dissect -r "$tmp/cut.pcap" -Y steerlab -T fields -E "separator=;" -e frame.number \
	-e steerlab.client -e steerlab.seq)
[ "$got" = "2;1;7" ] || fail "a request cut in two TCP segments: got '$got', expected it in frame 2"
echo "ok: over TCP, two requests in a segment, and one cut across two, reassembled"

# A reply, byte by byte as lib/wire.c writes it: type 2, flags 0x0005,
# client 100003, sequence 2^32 + 42, send time 0x18ec000000000007, site
# "site-b"; from port 7000, and from port 7100.
{
	printf 'SLRQ\001\002\000\005\000\001\206\243\000\000\000\000'
	printf '\000\000\000\001\000\000\000\052\030\354\000\000\000\000\000\007'
	printf 'site-b\000\000\000\000\000\000\000\000\000\000'
} >"$tmp/reply.bin"
[ "$(wc -c <"$tmp/reply.bin")" = 48 ] || fail "the reply made here is not 48 bytes"
od -An -tx1 -v "$tmp/reply.bin" | awk '{ printf "%06x %s\n", (NR - 1) * 16, $0 }' >"$tmp/reply.txt"
for port in 7000 7100; do
	text2pcap -q -4 198.19.1.2,198.18.0.10 -u "$port,40000" "$tmp/reply.txt" "$tmp/reply-$port.pcap" \
		>"$tmp/text2pcap.out" 2>&1 || { cat "$tmp/text2pcap.out" >&2; fail "text2pcap"; }
done
fields="-Y steerlab -T fields -E separator=, -e steerlab.type -e steerlab.client -e steerlab.seq -e steerlab.sent_ns -e steerlab.site -e steerlab.flags -e steerlab.scheme -e steerlab.version -e steerlab.magic"
want="2,100003,4294967338,1795810351413985287,site-b,0x0005,dns,1,SLRQ"
# shellcheck disable=SC2086
got=$(dissect -r "$tmp/reply-7000.pcap" $fields)
[ "$got" = "$want" ] || fail "a reply on port 7000: got '$got', expected '$want'"
echo "ok: a reply on port 7000: $got"
# the same reply over IPv6 (a dual lab's, to a site's 2001:2:0:ff01::N)
text2pcap -q -6 2001:2:0:ff01::2,2001:2:0:6::2 -u 7000,40000 "$tmp/reply.txt" "$tmp/reply6.pcap" \
	>"$tmp/text2pcap.out" 2>&1 || { cat "$tmp/text2pcap.out" >&2; fail "text2pcap -6"; }
# shellcheck disable=SC2086
got=$(dissect -r "$tmp/reply6.pcap" $fields)
[ "$got" = "$want" ] || fail "a reply over IPv6: got '$got', expected '$want'"
echo "ok: a reply over IPv6: $got"
# on port 7100, with the heuristic (magic and version) off, only the preference decodes it
# shellcheck disable=SC2086
got=$(dissect --disable-heuristic steerlab_udp -r "$tmp/reply-7100.pcap" $fields)
[ -z "$got" ] || fail "port 7100 without the preference: decoded as steerlab ('$got')"
# shellcheck disable=SC2086
got=$(dissect --disable-heuristic steerlab_udp -o steerlab.port:7100 -r "$tmp/reply-7100.pcap" $fields)
[ "$got" = "$want" ] || fail "a reply on port 7100 with -o steerlab.port:7100: got '$got', expected '$want'"
# shellcheck disable=SC2086
got=$(dissect --disable-heuristic steerlab_udp -o steerlab.port:7100 -r "$tmp/reply-7000.pcap" $fields)
[ -z "$got" ] || fail "port 7000 after the preference moved steerlab to 7100: still decoded as steerlab"
echo "ok: -o steerlab.port:7100 moves the dissector from port 7000 to 7100"
# and the heuristic finds it on any port
# shellcheck disable=SC2086
got=$(dissect -r "$tmp/reply-7100.pcap" $fields)
[ "$got" = "$want" ] || fail "a reply on port 7100 by the heuristic: got '$got', expected '$want'"
echo "ok: on another port, recognised by its magic and version"
