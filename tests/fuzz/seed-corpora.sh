#!/bin/bash
# The fuzz targets' seed corpora (tests/fuzz/corpus/NAME/) refreshed from
# real inputs: what run directories hold. From each RUNDIR:
#
#   authd, resolverd-query   the DNS queries of its captures (capture-*.pcap)
#   resolverd-answer         the DNS responses of its captures
#   resolverd-walk           per resolver, the root's, the TLD's and the
#                            zone's responses to it in the order they came
#                            (capture-dns-*.pcap), in the target's framing
#   pcap                     the first packets of each capture
#   events                   the first lines of each *.events.jsonl
#   requests                 lines of each requests-*.csv: the first, the
#                            failed ones, the last
#   topology                 its topology.ini, and the checkout's topology/*.ini
#
# A message that differs from another only by its ID is kept once; every
# seed is small (a few KiB), and a corpus gets at most a few tens of them.
# Each seed is named run-KIND-HASH (the start of its content's SHA-1): the
# run-* seeds of a corpus are replaced, the others (written by hand, crashes
# found once) stay.
#
#   sudo bin/steerlab run topology/compare.ini --set name=seed --set duration=3s --set fail_at=1s --out /tmp/seed-run
#   tests/fuzz/seed-corpora.sh /tmp/seed-run
#
# Needs tshark and editcap (Debian's tshark package, in make deps).
set -euo pipefail

usage() {
	echo "usage: tests/fuzz/seed-corpora.sh RUNDIR..." >&2
	exit 2
}

[ $# -ge 1 ] || usage
for d in "$@"; do
	[ -d "$d" ] || { echo "seed-corpora: $d: not a directory" >&2; exit 1; }
done
command -v tshark >/dev/null && command -v editcap >/dev/null ||
	{ echo "seed-corpora: tshark and editcap are needed (sudo make deps)" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$ROOT/tests/fuzz/corpus
MAX_DNS=24    # messages per DNS corpus
MAX_FILES=40  # events or topology files
MAX_BYTES=4096

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seed CORPUS KIND FILE: FILE into CORPUS as run-KIND-HASH
seed() {
	local h
	h=$(sha1sum "$3" | cut -c1-12)
	cp "$3" "$tmp/out/$1/run-$2-$h"
}

# unhex: the bytes of a hex string on stdin
unhex() {
	local hex
	read -r hex
	printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")"
}

# dns CAPTURE...: "TIME SRCPORT DSTPORT DST HEX" for every UDP datagram to or
# from port 53
dns() {
	local f
	for f in "$@"; do
		tshark -r "$f" -Y 'udp.port == 53 && udp.payload' -T fields -E separator=' ' \
			-e frame.time_epoch -e udp.srcport -e udp.dstport -e ip.dst \
			-e udp.payload 2>/dev/null
	done
}

for c in authd resolverd-query resolverd-answer resolverd-walk pcap events requests topology; do
	mkdir -p "$tmp/out/$c"
done

# DNS messages: queries and responses, each kept once whatever its ID
declare -A seen
nq=0
na=0
for d in "$@"; do
	caps=("$d"/capture-*.pcap)
	[ -e "${caps[0]}" ] || continue
	while read -r _ sport dport _ hex; do
		key=${hex:4}
		[ -z "${seen[$key]:-}" ] || continue
		seen[$key]=1
		unhex <<<"$hex" >"$tmp/msg"
		if [ "$dport" = 53 ] && [ $nq -lt $MAX_DNS ]; then
			seed authd query "$tmp/msg"
			seed resolverd-query query "$tmp/msg"
			nq=$((nq + 1))
		elif [ "$sport" = 53 ] && [ $na -lt $MAX_DNS ]; then
			seed resolverd-answer answer "$tmp/msg"
			na=$((na + 1))
		fi
	done < <(dns "${caps[@]}")
done

# resolverd-walk: the flags byte (qname minimisation, ECS), then each
# response as a 2-byte length and the message: the first resolver's walk
# with every flag, the others' plain
nw=0
for d in "$@"; do
	caps=("$d"/capture-dns-*.pcap)
	[ -e "${caps[0]}" ] || continue
	dns "${caps[@]}" | awk '$2 == 53' | sort -n >"$tmp/walk"
	for r in $(awk '{ print $4 }' "$tmp/walk" | sort -u); do
		if [ $nw -eq 0 ]; then flags="0 1 2 3"; else flags=0; fi
		for f in $flags; do
			if [ $nw -ge 12 ]; then break 2; fi
			{
				printf '%b' "\\x0$f"
				awk -v r="$r" '$4 == r { print $5 }' "$tmp/walk" | sed -n 1,8p |
					while read -r hex; do
						printf '%04x%s\n' $((${#hex} / 2)) "$hex" | unhex
					done
			} >"$tmp/msg"
			seed resolverd-walk walk "$tmp/msg"
			nw=$((nw + 1))
		done
	done
done

# pcap: the first packets of each capture, in its own format
for d in "$@"; do
	for f in "$d"/capture-*.pcap; do
		[ -e "$f" ] || continue
		editcap -r "$f" "$tmp/cap" 1-12 2>/dev/null || continue
		if [ "$(stat -c %s "$tmp/cap")" -le $MAX_BYTES ]; then
			seed pcap capture "$tmp/cap"
		fi
	done
done

# events: the first lines of each file, whole lines, at most MAX_BYTES
for d in "$@"; do
	for f in "$d"/*.events.jsonl; do
		[ -e "$f" ] || continue
		agent=$(basename "$f" .events.jsonl)
		agent=${agent#*.}
		awk -v max=$MAX_BYTES 'NR > 30 { exit } { n += length($0) + 1; if (n > max) exit; print }' \
			"$f" >"$tmp/ev"
		if [ -s "$tmp/ev" ]; then
			seed events "$agent" "$tmp/ev"
		fi
	done
done

# requests: the header and first lines, the failed ones, the last
for d in "$@"; do
	for f in "$d"/requests-*.csv; do
		[ -e "$f" ] || continue
		{
			head -n 9 "$f"
			tail -n +10 "$f" | grep -v ',ok,' | sed -n 1,8p || true
			tail -n +10 "$f" | tail -n 4
		} | awk '!seen[$0]++' >"$tmp/req"
		seed requests csv "$tmp/req"
	done
done

# topology: the run's, and the checkout's example files
for f in "$@" "$ROOT"/topology/*.ini; do
	if [ -d "$f" ]; then f=$f/topology.ini; fi
	if [ -e "$f" ] && [ "$(stat -c %s "$f")" -le $MAX_BYTES ]; then
		seed topology ini "$f"
	fi
done

for c in "$tmp"/out/*; do
	name=$(basename "$c")
	files=("$c"/run-*)
	[ -e "${files[0]}" ] || continue
	if [ ${#files[@]} -gt $MAX_FILES ]; then
		files=("${files[@]:0:$MAX_FILES}")
	fi
	rm -f "$CORPUS/$name"/run-*
	mkdir -p "$CORPUS/$name"
	cp "${files[@]}" "$CORPUS/$name/"
	echo "seed-corpora: $name: ${#files[@]} seeds from the run, $(find "$CORPUS/$name" -type f | wc -l) in all"
done
