/*
 * authd's configuration for a lab's [dns] node, made from the topology.
 *
 * The [zone] and [name] sections are authd's (docs/authd.md); the topology
 * parser keeps their pairs with their lines. A node gets the zones it
 * serves (topology.h, topo_dns_serves) and the [name]s in them. They are
 * written back at the same line numbers, blank lines between, so that
 * authd's own parser -- which the lab runs on them before anything is
 * built -- reports an error as "topology.ini:LINE: ...". The records the
 * lab generates in a zone (its servers, the delegations of the zones below
 * it: topo_zone_records) follow the zone's own, each numbered by a
 * "#line N" mark (lib/inifile.h) with the line it comes from: the child
 * zone's header, or [lab] dns_tree's for the zones that key adds, which
 * come last. After them come the sections the lab generates: [server]
 * (listen and control on the node's address, quorum, all_dead) and one
 * [site] per site with its unicast service address.
 */
#ifndef STEERLAB_DNSCONF_H
#define STEERLAB_DNSCONF_H

#include <stdio.h>

#include "topology.h"

#define DNSCONF_CONTROL_PORT 5353

/* dnsconf_write: the configuration of [dns] node `node` to out. 0 or -1. */
int dnsconf_write(const struct topology *t, int node, FILE *out);

/* dnsconf_check: run authd's parser on the configuration of every [dns]
 * node, and apply the timeline's DNS changes to it (set-ttl, set-weight,
 * add-record, remove-record) in time order as authd will; problems go to
 * err, named by the topology file's lines, each once however many nodes
 * share it. 0 if valid (or there is no [dns] node), else -1. */
int dnsconf_check(const struct topology *t, FILE *err);

#endif
