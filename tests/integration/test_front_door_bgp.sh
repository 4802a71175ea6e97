#!/usr/bin/env bash
# test_front_door.sh on FRR (routing = bgp): each site's bgpd announces its
# region's front door while its prober keeps it on lo
# about 20 s
ROUTING=bgp exec "$(dirname "$0")/test_front_door.sh"
