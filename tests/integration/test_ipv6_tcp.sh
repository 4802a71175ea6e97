#!/usr/bin/env bash
# test_ipv6_conns.sh over the lab's own TCP client (proto = tcp): cd races
# its reconnection, IPv4 250 ms after IPv6
# about 14 s
PROTO=tcp exec "$(dirname "$0")/test_ipv6_conns.sh"
