#!/usr/bin/env bash
# Every agent's command-line errors, its -h and its exit status, compared as
# exact text with tests/unit/data/agentopts/AGENT.golden: each flag's bad
# argument, a missing argument, an unknown flag, an operand, and the checks
# between flags. No root, and no agent starts: every case stops in the
# parse. The collector's time stamps are stripped. With UPDATE_GOLDEN=1 a
# transcript that differs is written beside its golden file as FILE.new.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${OUTBIN:-bin}
golden=tests/unit/data/agentopts
tmp=$(mktemp -d /tmp/steerlab-agentopts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

# case AGENT ARGS...: the command, what it wrote (stdout, if anything,
# then stderr) and its exit status, appended to $tmp/AGENT
case_() {
	local agent=$1 rc=0
	shift
	timeout 10 "$bin/$agent" "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
	{
		printf '$ %s' "$agent"
		[ $# -eq 0 ] || printf ' %q' "$@"
		printf '\n'
		if [ -s "$tmp/out" ]; then
			echo "[stdout]"
			cat "$tmp/out"
			echo "[stderr]"
		fi
		sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} //' "$tmp/err"
		echo "[exit $rc]"
	} >>"$tmp/$agent"
}

# many FLAG ARG N: FLAG ARG given N times
many() {
	local i
	for ((i = 0; i < $3; i++)); do
		printf '%s\n%s\n' "$1" "$2"
	done
}

# compare AGENT: the transcript against its golden file
compare() {
	if ! diff -u "$golden/$1.golden" "$tmp/$1" >"$tmp/diff"; then
		echo "FAIL: $1's command line: the transcript differs from $golden/$1.golden:" >&2
		cat "$tmp/diff" >&2
		[ -z "${UPDATE_GOLDEN:-}" ] || cp "$tmp/$1" "$golden/$1.golden.new"
		failed=1
	fi
}

for a in prober authd resolverd routed sited client collector linkd; do
	[ -x "$bin/$a" ] || { echo "FAIL: no $bin/$a (make)" >&2; exit 1; }
	: >"$tmp/$a"
done

mapfile -t r257 < <(many -R 198.18.0.1 257)
mapfile -t a17 < <(many -A 198.18.0.1 17)
mapfile -t t64 < <(many -T a=198.18.0.1 64)
case_ prober
case_ prober -h
case_ prober -x
case_ prober -v -i
case_ prober -L extra
case_ prober -s ''
case_ prober -s a/b
case_ prober -s abcdefghijklmnopq
case_ prober -t 198.18.0.1:0
case_ prober -t 198.18.0
case_ prober -P 198.19.0.1/33
case_ prober -m -1
case_ prober -m 4294967296
case_ prober -R 198.18.0.1:x
# an IPv6 prefix goes to IPv6 routers only, and never on lo (-L's is IPv4)
case_ prober -s a -t 127.0.0.1:9 -P 2001:2:0:ff00::1/128 -m 1 -R '[2001:2:0:3::1]:7179' -R 198.18.0.1
case_ prober -s a -t 127.0.0.1:9 -P 2001:2:0:ff00::1/128 -L
case_ prober -R '[2001:2:0:3::1]:x'
case_ prober "${r257[@]}"
case_ prober -i 0
case_ prober -i soon
case_ prober -w 0
case_ prober -k 1x
case_ prober -d 0
case_ prober -u 1000001
case_ prober -C icmp
case_ prober -C TCP
case_ prober -I ''
case_ prober -I 'bad id'
case_ prober -I abcdefghijklmnopqrstuvwxyz1234567
case_ prober -A 198.18.0.1:70000
case_ prober "${a17[@]}"
case_ prober -T a
case_ prober -T a/b=198.18.0.1
case_ prober "${t64[@]}"
case_ prober -s a -t 198.18.0.1 -P 198.19.0.1 -L -m 1
case_ prober -s a -t 198.18.0.1 -P 198.19.0.1 -R 198.18.0.2 -L
case_ prober -s a -t 198.18.0.1 -P 198.19.0.1
case_ prober -s a -t 198.18.0.1 -P 198.19.0.1 -m 1
case_ prober -s a -t 198.18.0.1 -P 198.19.0.1 -L -I p
case_ prober -T a=198.18.0.1
case_ prober -T a=198.18.0.1 -I p
case_ prober -T a=198.18.0.1 -A 198.18.0.2
case_ prober -I p -A 198.18.0.2 -T a=198.18.0.1 -U /health
case_ prober -I p -A 198.18.0.2 -T a=198.18.0.1 -C http -X 204
case_ prober -I p -A 198.18.0.2 -T a=198.18.0.1 -C http -U health
case_ prober -I p -A 198.18.0.2 -T a=198.18.0.1 -C http -U /h -X 600
compare prober

mapfile -t l9 < <(many -l 198.18.0.1 9)
case_ authd
case_ authd -h
case_ authd -x
case_ authd -c
case_ authd -c a.ini extra
case_ authd -l 198.18.0
case_ authd -l '[2001:2::1'
case_ authd "${l9[@]}"
case_ authd -C nobody
case_ authd -S 0
case_ authd -S -1
case_ authd -S 0x
case_ authd -S 18446744073709551616
case_ authd -a 'bad id=198.18.0.1'
case_ authd -a 198.18.0
case_ authd -A localhost
case_ authd -A 127.0.0.1 -A 127.0.0.2 -A 127.0.0.3 -A 127.0.0.4 -A 127.0.0.5 -A 127.0.0.6 -A 127.0.0.7 -A 127.0.0.8 -A 127.0.0.9
case_ authd -t -v
compare authd

case_ resolverd
case_ resolverd -h
case_ resolverd -x
case_ resolverd -c
case_ resolverd -o x.csv -t -p
case_ resolverd -c r.ini extra
compare resolverd

case_ routed -h
case_ routed -x
case_ routed -l
case_ routed -v extra
case_ routed -l 198.18.0.1:0
case_ routed -l '[2001:2::1]:0'
case_ routed -a a=2001:2:0:3::2,via=198.18.0.1
case_ routed -P 2001:2:0:ff00::1/64
case_ routed -T 0
case_ routed -T 253
case_ routed -T 255
case_ routed -T 4294967296
case_ routed -T mainly
case_ routed -H 25h
case_ routed -H soon
case_ routed -a 198.18.0
case_ routed -a a=198.18.0.1,hops=256
case_ routed -P 198.19.0.1/33
case_ routed -E ecmp
compare routed

case_ sited
case_ sited -h
case_ sited -x
case_ sited -s
case_ sited -s a extra
case_ sited -s ''
case_ sited -s 'a b'
case_ sited -s abcdefghijklmnopq
case_ sited -s a -p 0
case_ sited -s a -p 65536
case_ sited -s a -a 198.18.0.1:7000
case_ sited -s a -a x
case_ sited -s a -a '[::1]'
case_ sited -p 7000
compare sited

mapfile -t r251 < <(many -R 198.18.0.1 251)
case_ client
case_ client -h
case_ client -x
case_ client -i
case_ client -i 1 -t 198.18.0.1 extra
case_ client -i x
case_ client -i 4294967296
case_ client -t 198.18.0.1:x
case_ client -R 198.18.0
case_ client "${r251[@]}"
case_ client -q
case_ client -p 0
case_ client -S soon
case_ client -P 0
case_ client -P 131073
case_ client -k zipf:11
case_ client -a bursty
case_ client -Q 1.5
case_ client -Q nan
case_ client -s -1
case_ client -A 198.18.0.1/24
case_ client -A 198.18.0.0/33
case_ client -W 1,0
case_ client -W 1,x
case_ client -r 0
case_ client -r 1e8
case_ client -r inf
case_ client -w 0
case_ client -d 0
case_ client -d 1y
case_ client -t 198.18.0.1
case_ client -i 1 -t 198.18.0.1 -R 198.18.0.2 -q n
case_ client -i 1 -R 198.18.0.2
case_ client -i 1 -t 198.18.0.1 -q n
case_ client -i 1 -t 198.18.0.1 -p 7000
case_ client -i 1 -t 198.18.0.1 -S 60s
case_ client -i 1 -t 198.18.0.1 -k harmonic
case_ client -i 1 -t 198.18.0.1 -a poisson
case_ client -i 1 -t 198.18.0.1 -s 5
case_ client -i 1 -R 198.18.0.2 -R 198.18.0.3 -q n
case_ client -i 1 -R 2001:2:0:8000::1 -R 198.18.0.3 -q n -P 2
case_ client -i 1 -R [2001:2:0:8000::1]:53 -R 198.18.0.3 -q n
case_ client -i 1 -R [2001:2:0:8000::1 -q n
case_ client -i 1 -R 2001:2:0:8000::1 -R 2001:2:0:8000::2 -q n -P 2 -F 6 -T
case_ client -i 1 -t [2001:2:0:ff00::1]:7000 -F 6 -P 2 -A 198.18.64.0/24
case_ client -i 1 -R 198.18.0.2 -q n -P 2 -Q 0.5
case_ client -i 1 -R 198.18.0.2 -R 198.18.0.3 -q n -P 2 -W 1
case_ client -i 1 -R 198.18.0.2 -q n -P 2 -W 1,2
case_ client -i 4294967295 -t 198.18.0.1 -P 2
case_ client -i 4294967294 -t 198.18.0.1 -P 3
case_ client -m last
case_ client -c 0
case_ client -i 1 -t 198.18.0.1 -m next
case_ client -i 1 -R 198.18.0.2 -q n -P 2 -m random
case_ client -i 1 -t 198.18.0.1 -c 1s
case_ client -i 1 -t 198.18.0.1 -T -H
case_ client -i 1 -t 198.18.0.1 -H -L 60s
case_ client -i 1 -R 198.18.0.2:5353 -q n -H -L 60s
case_ client -i 1 -R [2001:2:0:8000::1]:5353 -q n -H -L 60s -F 6
compare client

case_ collector
case_ collector -h
case_ collector -x
case_ collector -o
case_ collector -o runs/x extra
case_ collector -o runs/x
case_ collector -B 64X
case_ collector -s 0
case_ collector -s 262145
case_ collector -c lo
case_ collector -b 'lo=a b'
case_ collector -c lo=a:1X
case_ collector -o runs/x -P 198.19.0.1/33
case_ collector -P 198.19.0.1/33
compare collector

# linkd: every case stops in the parse (no -M, which needs root)
case_ linkd
case_ linkd -h
case_ linkd -x
case_ linkd -i
case_ linkd -i veth0 extra
case_ linkd -d 15ms
case_ linkd -i abcdefghijklmnop
case_ linkd -i 'a b'
case_ linkd -i veth0 -i veth0
case_ linkd -i veth0 -d x
case_ linkd -i veth0 -d -1ms
case_ linkd -i veth0 -j '2ms gaussian'
case_ linkd -i veth0 -l 1
case_ linkd -i veth0 -l '1% 2% 3%'
case_ linkd -i veth0 -r 100
case_ linkd -i veth0 -R 5%
case_ linkd -i veth0 -q 65535 -i veth1
case_ linkd -i veth0 -p 0
case_ linkd -i veth0 -Q 0
case_ linkd -i veth0 -t 'a b'
case_ linkd -M -i veth0
compare linkd

[ "$failed" -eq 0 ] || exit 1
echo "test_agent_opts: ok"
