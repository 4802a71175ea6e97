#!/usr/bin/env bash
# ipbatch.sh up|down N: the same star as star.sh N, built and removed by
# iproute2: one `ip -batch` in the root namespace for the namespaces and the
# veth pairs, then one `ip -n NS -batch` per namespace for its addresses and
# routes (ip cannot change another namespace's addresses from a batch line).
# Addresses follow steerlab's plan (steerlab.ini(5), ADDRESSES): link i is
# 198.18.0.0/30 + 4 i, router end .1, node end .2.
set -euo pipefail
cmd=$1 n=${2:-50} p=bip
addr() { # addr LINK HOST -> dotted quad of 198.18.0.0 + 4*LINK + HOST
	local v=$((4 * $1 + $2))
	echo "198.18.$((v / 256)).$((v % 256))"
}
name() { [ "$1" = 1 ] && echo s1 || echo "n$1"; }
if [ "$cmd" = down ]; then
	{
		echo "netns del $p-hub"
		for i in $(seq 1 "$n"); do echo "netns del $p-$(name "$i")"; done
	} | ip -batch -
	exit 0
fi
{
	echo "netns add $p-hub"
	for i in $(seq 1 "$n"); do echo "netns add $p-$(name "$i")"; done
	for i in $(seq 1 "$n"); do
		echo "link add $(name "$i") netns $p-hub type veth peer name eth0 netns $p-$(name "$i")"
	done
} | ip -batch -
{
	echo "link set lo up"
	for i in $(seq 1 "$n"); do
		echo "link set $(name "$i") up"
		echo "addr add $(addr $((i - 1)) 1)/30 dev $(name "$i")"
	done
} | ip -n $p-hub -batch -
ip netns exec $p-hub sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
for i in $(seq 1 "$n"); do
	{
		echo "link set lo up"
		echo "link set eth0 up"
		echo "addr add $(addr $((i - 1)) 2)/30 dev eth0"
		echo "route add default via $(addr $((i - 1)) 1)"
		if [ "$i" = 1 ]; then echo "addr add 198.19.0.1/32 dev lo"; fi
	} | ip -n $p-$(name "$i") -batch -
done
