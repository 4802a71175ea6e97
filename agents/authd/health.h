/*
 * Site health as the probers report it (docs/authd.md, "Health").
 *
 * Probers send one-line datagrams to authd's control socket:
 *
 *   HEALTH <prober-id> <site> up|down <rtt_us>
 *
 * authd keeps the last report of each (prober, site) pair: it stands until
 * that prober reports on that site again. A site is healthy while MORE than
 * `quorum` of the probers that report on it say up; a site no prober has
 * reported on is healthy (there is no evidence against it). The RTTs of up
 * reports feed the latency policy.
 *
 * Probers standing at the sites (prober -Y) measure the other way: the
 * round trip from their site to each querier of authd's (a resolver, or a
 * client asking authd itself), in PROXIMITY lines (health_report.h). authd
 * keeps the last of each (querier, site) pair with when it came: the
 * proximity policy's table (docs/authd.md, "Proximity"). A measurement
 * older than [server] proximity_stale stands for nothing, as if the
 * measuring side were gone: authd_health_expire() forgets them.
 */
#ifndef STEERLAB_AUTHD_HEALTH_H
#define STEERLAB_AUTHD_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "health_report.h"

#define AUTHD_MAX_PROBERS 64
#define AUTHD_PROBER_LEN HEALTH_ID_LEN
#define AUTHD_REPORT_MAX HEALTH_REPORT_MAX
#define AUTHD_RTT_NONE UINT32_MAX
#define AUTHD_PROX_MAX 64 /* queriers measured */

/* the RTTs from each site to one querier */
struct authd_prox {
	uint8_t addr[4];	       /* the querier's IPv4 address */
	uint32_t rtt[AUTHD_MAX_SITES]; /* µs, AUTHD_RTT_NONE: none (or unanswered) */
	int64_t at[AUTHD_MAX_SITES];   /* CLOCK_MONOTONIC ns of the last report, 0 none */
};

struct authd_health {
	double quorum;
	int nsites;
	const struct authd_site *sites;
	int nprobers;
	char prober[AUTHD_MAX_PROBERS][AUTHD_PROBER_LEN + 1];
	int8_t state[AUTHD_MAX_PROBERS][AUTHD_MAX_SITES]; /* -1 none, 0 down, 1 up */
	uint32_t rtt[AUTHD_MAX_PROBERS][AUTHD_MAX_SITES];
	uint8_t healthy[AUTHD_MAX_SITES];
	int up[AUTHD_MAX_SITES], reports[AUTHD_MAX_SITES];
	int nprox;
	struct authd_prox prox[AUTHD_PROX_MAX];
};

/* what one report changed */
struct authd_health_change {
	int site;	    /* its index */
	int prober;	    /* its index */
	int state_changed;  /* the pair's up/down */
	int rtt_changed;    /* the pair's RTT (up reports only) */
	int health_changed; /* the site's verdict */
};

/* authd_health_init: every site healthy, no reports; the probers named in
 * vantage lines (db->probers) get the first indexes. */
void authd_health_init(struct authd_health *h, const struct authd_db *db);

/* authd_health_prober: the index of a prober id, registered if create and
 * there is room. -1 otherwise. */
int authd_health_prober(struct authd_health *h, const char *id, int create);

/* authd_health_site: the index of a site name, or -1. */
int authd_health_site(const struct authd_health *h, const char *site);

/* authd_health_apply: records one report. 0, or -1 for an unknown site or
 * a full prober table (c is then untouched). */
int authd_health_apply(struct authd_health *h, const struct health_report *r,
		       struct authd_health_change *c);

/* authd_health_apply_prox: records one PROXIMITY report (r->proximity)
 * received at now. c->rtt_changed says whether the pair's RTT changed (from
 * none, to none, or its value); c->prober is the querier's index in the
 * table. 0, or -1 for an unknown site or a full table. */
int authd_health_apply_prox(struct authd_health *h, const struct health_report *r, int64_t now,
			    struct authd_health_change *c);

/* authd_health_expire: forgets every proximity measurement reported
 * before now - stale_ns. The number forgotten; the first one's querier
 * and site into *querier and *site (if not NULL). */
int authd_health_expire(struct authd_health *h, int64_t now, int64_t stale_ns, int *querier,
			int *site);

/* authd_health_prox_of: the table entry standing for a querier of
 * family/addr/source_len: its own address for a /32, else the first
 * measured address inside the prefix. -1 if none. */
int authd_health_prox_of(const struct authd_health *h, int family, const uint8_t *addr,
			 unsigned source_len);

/* authd_health_rtt: the RTT prober last reported for site with an up
 * report, or AUTHD_RTT_NONE. */
uint32_t authd_health_rtt(const struct authd_health *h, int prober, int site);

#endif
