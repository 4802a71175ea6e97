/*
 * What authd hands out for each name, and when that changes
 * (docs/authd.md, "Events").
 *
 * A name's handout is the set of sites authd_policy_select() chooses, for
 * each class of querier the policy tells apart: one class for simple,
 * multivalue, failover and weighted (a weighted name hands out every
 * eligible site, in shares); one per geo network plus the rest for
 * geolocation; one per vantage network plus the rest for latency. It is
 * recomputed after every health report; an `answer_changed` event is
 * written when any class's set differs from before.
 */
#ifndef STEERLAB_AUTHD_HANDOUT_H
#define STEERLAB_AUTHD_HANDOUT_H

#include <jansson.h>
#include <stdint.h>

#include "db.h"
#include "health.h"

#define AUTHD_CLASS_LABEL 64

struct authd_handout {
	int nclasses;
	char (*label)[AUTHD_CLASS_LABEL]; /* "198.18.0.0/24", or "*" for the rest */
	uint64_t (*mask)[2];		  /* per family: the sites handed out, by db index */
	int valid;			  /* mask holds a computed value */
};

struct authd_handouts {
	int nnames;
	struct authd_handout *h;
};

/* authd_handouts_init: the classes of every name. 0, or -1 out of memory. */
int authd_handouts_init(struct authd_handouts *hs, const struct authd_db *db);
void authd_handouts_free(struct authd_handouts *hs);

/* authd_handout_update: recomputes name i; returns 1 if it changed (or was
 * never computed), with the unions of all classes before and after, per
 * family (AUTHD_V4, AUTHD_V6). */
int authd_handout_update(struct authd_handouts *hs, const struct authd_db *db,
			 const struct authd_health *health, int i, uint64_t before[2],
			 uint64_t after[2]);

/* authd_handout_addresses: the A addresses of the sites in mask[AUTHD_V4]
 * then the AAAA addresses of those in mask[AUTHD_V6], in site order, as a
 * JSON array of strings. */
json_t *authd_handout_addresses(const struct authd_db *db, const uint64_t mask[2]);

/* authd_handout_networks: for geolocation and latency names, an object
 * {class label: [addresses]} of the current handout; NULL otherwise. */
json_t *authd_handout_networks(const struct authd_handouts *hs, const struct authd_db *db, int i);

#endif
