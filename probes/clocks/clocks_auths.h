/*
 * The steering authorities side by side (clocks_auths.c; docs/clocks.md,
 * "Authorities"): in a lab whose DNS clients ask names served by several
 * [dns] nodes (authd, PowerDNS, gdnsd: topology/authorities.ini), each
 * node's own clocks of the failure, where the scheme's are the first of
 * any: its detect (its verdict on the dead site: authd's health_changed,
 * PowerDNS's and gdnsd's checks read on the packets), its steer (its first
 * answer without the site), and its clients' window and requests to the
 * site. Pure computation on the loaded run.
 */
#ifndef STEERLAB_CLOCKS_AUTHS_H
#define STEERLAB_CLOCKS_AUTHS_H

#include <jansson.h>
#include <stdint.h>

#include "clocks_input.h"

#define CLOCKS_MAX_AUTHS 16

struct clocks_auth {
	int dns;	  /* its index in in->dnstopo.dns */
	const char *node; /* its [dns] node's name */
	const char *impl; /* authd, pdns, gdnsd */
	int clients;	  /* the client agents asking its names */
	int64_t users;	  /* the users behind them (a population's, else 1 each) */
	/* after t0, CLOCKS_NONE when none came: its verdict on the dead
	 * site, its first answer without it, its clients' last request to it */
	int64_t detect_ns, steer_ns, window_ns;
	/* its clients' requests to the dead site after t0 (the capture's),
	 * and their requests sent and lost (their summaries': CLOCKS_NONE if
	 * one has none) */
	int64_t to_dead, sent, lost;
};

struct clocks_auths {
	int n;
	struct clocks_auth a[CLOCKS_MAX_AUTHS];
};

/* clocks_auths: the authorities of in's DNS clients, each with its clocks,
 * into *out. 1 when there are two or more (the side by side applies), 0
 * when fewer or the run has no failure with a site address.
 * clocks_auths_prepare: the same once into in->auths (left NULL when it
 * does not apply, or out of memory), for the verdict, clocks.json and the
 * report; freed by clocks_input_free. */
int clocks_auths(const struct clocks_input *in, struct clocks_auths *out);
void clocks_auths_prepare(struct clocks_input *in);

/* clocks_auths_json: clocks.json's "authorities" from in->auths: an array
 * of an object per authority (node, impl, users, detect_s, steer_s,
 * window_s, to_dead_after_t0, sent, lost; null where none came) with the
 * model's detect and steer, or NULL when the side by side does not apply */
json_t *clocks_auths_json(const struct clocks_input *in);

#endif
