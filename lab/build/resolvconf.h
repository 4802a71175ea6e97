/*
 * resolverd's configuration for a lab's [resolver] node, made from the
 * topology, as dnsconf.h makes authd's.
 *
 * The node's header line becomes `[resolverd]` and its resolverd keys
 * (min_ttl, phase, timeout, ...) stay at their own lines, blank lines
 * between, so that resolverd's parser -- which the lab runs on it before
 * anything is built -- reports an error as "topology.ini:LINE: ...". After
 * them come the keys the lab generates: for a node in mode forward,
 * `upstream`, the address of every [dns] node that answers (all but the
 * root's and those [lab] dns_tree adds: topo_rsv_upstream); in mode
 * iterate, `mode = iterate` and `root`, the root zone's servers
 * (topo_dns_roots); then a `[resolvers NAME]` group of `count` caches from
 * the node's first address (docs/man/steerlab.ini.5, ADDRESSES), and in a
 * lab of ip = dual `first_address6`. A lab of ip = 6 has IPv6 alone: no
 * `first_address`, `first_address6`, the servers' IPv6 link addresses as
 * upstream or root (topo_dns_roots6), and in mode iterate `transport = 6`.
 */
#ifndef STEERLAB_RESOLVCONF_H
#define STEERLAB_RESOLVCONF_H

#include <stdio.h>

#include "topology.h"

/* resolvconf_write: the configuration of [resolver] node `node` to out.
 * 0 or -1. */
int resolvconf_write(const struct topology *t, int node, FILE *out);

/* resolvconf_check: run resolverd's parser on the configuration of every
 * [resolver] node; problems go to err, named by the topology file's lines.
 * 0 if all are valid (or there is no [resolver] node), else -1. */
int resolvconf_check(const struct topology *t, FILE *err);

#endif
