/*
 * The steering model's own (not exported), see model_steer.h: its reading of
 * a topology, shared by model_steer_name.c (each [name] read as authd does,
 * and what authd answers a querier), model_steer_topo.c (the groups, the
 * events, the notes) and model_steer_units.c (the units and flows of the
 * clients that ask); and the state of one draw (model_steer_draw.c), which
 * model_steer.c turns into rows.
 */
#ifndef STEERLAB_MODEL_STEER_INT_H
#define STEERLAB_MODEL_STEER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model_steer.h"
#include "topology.h"

#define STEER_GEO_MAX 64

/* what a name's [name] section says that the answers depend on */
struct steer_spec {
	int ngeo, geo_len[STEER_GEO_MAX], geo_site[STEER_GEO_MAX];
	uint32_t geo_net[STEER_GEO_MAX];
	int nvan, van_len[STEER_GEO_MAX], van_prober[STEER_GEO_MAX];
	uint32_t van_net[STEER_GEO_MAX];
	int deflt, primary;
	double ttl_s; /* the TTL authd gives it */
	int dns;      /* the [dns] node serving it (-1: none) */
};

struct steer_build {
	const struct topology *t;
	struct model_steer_input *in;
	struct model_notes *notes;
	struct steer_spec spec[MODEL_STEER_NAMES];
	int site_node[MODEL_STEER_SITES]; /* each site's node */
	int tie_key[MODEL_STEER_UNITS];	  /* a tie class's name x TOPO_MAX_NODES + prober */
};

/* steer_site: the index of site name in in->sites, or -1 */
int steer_site(const struct model_steer_input *in, const char *name);

/* steer_why: name nm not modelled, for why (the first reason kept) */
void steer_why(struct model_steer_name *nm, const char *why);

/* steer_name_of: the index of the [name] name in b->in->names, read the
 * first time it is asked for; -1 if it is no [name] of the topology (or
 * there are MODEL_STEER_NAMES already) */
int steer_name_of(struct steer_build *b, const char *name);

/* steer_answer: what authd answers name n's querier at IPv4 address addr,
 * every site healthy, into u->site (authd's order), u->nsites and u->tie
 * (a latency tie's class, or -1). 0, or -1 if it answers nothing (a
 * geolocation querier matching no prefix, no default: NODATA). */
int steer_answer(struct steer_build *b, int n, uint32_t addr, struct model_steer_unit *u);

/* the units and flows of a client node g (model_steer_units.c): steer_flow
 * its requests at rate from node through unit u (-1: to site), from `from`
 * s; steer_user_rates each of its logical clients' rate (its skew; one
 * client: its rate) into r; steer_direct its DNS flow to name n asking
 * authd itself, steer_cached through the caches of its [resolver] node
 * (ukey: each unit's cache and name, -1 for none), steer_other_resolver
 * through a [resolver] that is not resolverd; steer_tcp: a TCP or HTTP
 * client's name not modelled when the answers it can get differ */
void steer_flow(struct steer_build *b, int g, int node, int u, int site, double rate, double from);
void steer_user_rates(const struct topo_node *c, double *r);
void steer_direct(struct steer_build *b, int g, int node, int n, const double *rate);
void steer_cached(struct steer_build *b, int g, int node, int n, const double *rate, int *ukey);
void steer_other_resolver(struct steer_build *b, int g, int node, int n, const double *rate);
void steer_tcp(struct steer_build *b, int g, int node, int n);

/*
 * The draws of the steering model (model_steer_draw.c), shared with its
 * rows (model_steer.c): the state of one draw.
 */
/* a fill of a unit: its query reaches authd at `at`, the answer the unit
 * at `bound`; the site authd answered (-1: the unit's answer split evenly) */
struct steer_fill {
	double at, bound, key;
	int unit, site;
};

/* what one draw accumulates per group */
struct steer_acc {
	double req[MODEL_STEER_SITES];
	double rtt; /* requests x their path's RTT */
};

struct steer_state {
	const struct model_steer_input *in;
	uint64_t rng;
	struct steer_fill *fill;
	size_t nfill, capfill;
	int *first;	  /* per unit: its first fill's index in fill[] (-1: none) */
	int *tiepick;	  /* per tie class: the site drawn */
	double *upstream; /* per name: queries in the period */
	double *edge;	  /* per name: fills within MODEL_STEER_EDGE_S of its end */
	double *late;	  /* per group: how late its clients started in this draw */
	/* this draw's chance that a request due just before an expiry comes
	 * after it */
	double late_p;
	double order;		    /* fills this close at authd come in either order */
	double period;		    /* this draw's: in->period_s, or the whole traffic's */
	struct steer_acc *acc;	    /* per group */
	int *flows_of, *flow_start; /* flows by unit: flow_start[u] .. flow_start[u + 1] */
};

/* steer_draw: one draw of every name's fills and answers into st->acc and
 * st->upstream, the anycast flows too. 0, or -1 (out of memory). */
int steer_draw(struct steer_state *st);

/* steer_index: st's flows grouped by unit. 0, or -1 (out of memory). */
int steer_index(struct steer_state *st);

#endif
