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

/* authd_health_rtt: the RTT prober last reported for site with an up
 * report, or AUTHD_RTT_NONE. */
uint32_t authd_health_rtt(const struct authd_health *h, int prober, int site);

#endif
