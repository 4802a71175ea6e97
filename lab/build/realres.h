/*
 * Real resolver software on a lab's [resolver] node (`impl = unbound |
 * knot-resolver | bind9`, docs/resolvers.md): each one's configuration,
 * written from the node's knobs, and the implementation's own check of it.
 *
 * The knobs are resolverd's (min_ttl, serve_stale, prefetch, ...), read by
 * resolverd's own parser (resolverd_knobs_stream) so that a value means
 * the same whatever runs it. Each knob either maps to the implementation's
 * option -- and is then always written, the resolverd default when the node
 * does not set it, so the implementations behave alike where they can -- or
 * the implementation cannot express it: a knob the node writes with a value
 * the implementation cannot honour is an error at the knob's line
 * ("topology/x.ini:31: phase: unbound cannot express this (...)"). The
 * mapping table is docs/resolvers.md's.
 *
 * Every configuration listens on the node's one cache address, port 53,
 * sends its upstream queries from it (the captures count the upstream load
 * by source address), answers the lab's /15 only, validates nothing (the
 * lab's zones are unsigned) and queries nothing on localhost. It either
 * forwards every query to the given servers (the [dns] nodes) or iterates
 * from root hints naming the given servers; in both modes its root hints
 * are the given servers, so no configuration names the real root.
 *
 * Nothing here runs a resolver; realres_check runs each implementation's
 * checker (unbound-checkconf, named-checkconf, kresd on the configuration
 * with its listening functions replaced) before anything is built.
 */
#ifndef STEERLAB_REALRES_H
#define STEERLAB_REALRES_H

#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>

#include "topology.h"

#define REALRES_SERVERS_MAX 16
#define REALRES_DIR "resolvers" /* under the state directory: NODE/, each one's files */

/* What a configuration is made from besides the node's knobs. */
struct realres_in {
	int iterate; /* 1: iterate from root hints at servers; 0: forward to them */
	struct in_addr servers[REALRES_SERVERS_MAX];
	int nservers;
	struct in_addr addr; /* the cache's address */
	int has6;	     /* ip = dual: it answers on addr6 too */
	struct in6_addr addr6;
	/* ip = 6: it has addr6 alone, and asks servers6 (the servers' IPv6
	 * link addresses) over IPv6 */
	int v6only;
	struct in6_addr servers6[REALRES_SERVERS_MAX];
	char dir[PATH_MAX]; /* its files: pid, control socket, cache, root hints */
};

/* realres_prog: the program of impl (/usr/sbin/unbound, ...), NULL for
 * resolverd. realres_label: its agent label (unbound, kresd, named).
 * realres_user: the user it drops to. realres_prog_of_label: the program
 * of an agent label, or NULL if it is none of theirs. */
const char *realres_prog(int impl);
const char *realres_label(int impl);
const char *realres_user(int impl);
const char *realres_prog_of_label(const char *label);

/* realres_inputs: in for [resolver] node `node`, its files in dir: forward
 * to every [dns] node (the lab's mode until it has a DNS tree). 0, or -1 if
 * there is no server or dir is too long. */
int realres_inputs(const struct topology *t, int node, const char *dir, struct realres_in *in);

/* realres_write: node's configuration in its implementation's syntax to
 * out. -1 with every knob it cannot express on err as "FILE:LINE: KNOB:
 * IMPL cannot express this (why)" (and resolverd's own errors on its
 * knobs, if any), or if out fails; else 0. */
int realres_write(const struct topology *t, int node, const struct realres_in *in, FILE *out,
		  FILE *err);

/* realres_write_hints: the root hints file of in (its servers as the
 * root's name servers) to out. 0 or -1. */
int realres_write_hints(const struct realres_in *in, FILE *out);

/* realres_check: for every [resolver] node with a real impl, its
 * configuration written (knob errors on err) and checked by the
 * implementation's own tool in a temporary directory: "steerlab: node r:
 * unbound rejected its configuration (...)". 0 if all pass (or there are
 * none), else -1. Leaves no file. */
int realres_check(const struct topology *t, FILE *err);

#endif
