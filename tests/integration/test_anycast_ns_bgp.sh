#!/usr/bin/env bash
# Anycast name servers on FRR: test_anycast_ns.sh with routing = bgp
# (each instance's bgpd announces the address while its prober keeps it on
# lo), and what check refuses of it.
# about 18 s
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUTING=bgp exec bash tests/integration/test_anycast_ns.sh
