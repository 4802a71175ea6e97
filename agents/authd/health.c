/* Site health from prober reports; see health.h. */
#include "health.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void authd_health_init(struct authd_health *h, const struct authd_db *db)
{
	memset(h, 0, sizeof(*h));
	h->quorum = db->server.quorum;
	h->nsites = db->nsites;
	h->sites = db->sites;
	memset(h->state, -1, sizeof(h->state));
	memset(h->rtt, 0xff, sizeof(h->rtt)); /* AUTHD_RTT_NONE */
	for (int s = 0; s < AUTHD_MAX_SITES; s++)
		h->healthy[s] = 1;
	for (int i = 0; i < db->nprobers && i < AUTHD_MAX_PROBERS; i++)
		authd_health_prober(h, db->probers[i], 1);
}

int authd_health_prober(struct authd_health *h, const char *id, int create)
{
	for (int i = 0; i < h->nprobers; i++)
		if (strcmp(h->prober[i], id) == 0)
			return i;
	if (!create || h->nprobers == AUTHD_MAX_PROBERS || strlen(id) > AUTHD_PROBER_LEN)
		return -1;
	strcpy(h->prober[h->nprobers], id);
	return h->nprobers++;
}

int authd_health_site(const struct authd_health *h, const char *site)
{
	for (int i = 0; i < h->nsites; i++)
		if (strcmp(h->sites[i].name, site) == 0)
			return i;
	return -1;
}

int authd_health_apply(struct authd_health *h, const struct health_report *r,
		       struct authd_health_change *c)
{
	int s = authd_health_site(h, r->site), p, was, healthy;
	uint32_t rtt;

	if (s == -1 || (p = authd_health_prober(h, r->prober, 1)) == -1)
		return -1;
	memset(c, 0, sizeof(*c));
	c->site = s;
	c->prober = p;
	was = h->state[p][s];
	if (was == -1)
		h->reports[s]++;
	if (was == 1)
		h->up[s]--;
	if (r->up)
		h->up[s]++;
	h->state[p][s] = (int8_t)(r->up ? 1 : 0);
	c->state_changed = was != h->state[p][s];
	rtt = r->up ? r->rtt_us : AUTHD_RTT_NONE;
	c->rtt_changed = h->rtt[p][s] != rtt;
	h->rtt[p][s] = rtt;
	healthy = h->reports[s] == 0 || (double)h->up[s] > h->quorum * h->reports[s];
	c->health_changed = healthy != h->healthy[s];
	h->healthy[s] = (uint8_t)healthy;
	return 0;
}

uint32_t authd_health_rtt(const struct authd_health *h, int prober, int site)
{
	if (prober < 0 || prober >= h->nprobers || site < 0 || site >= h->nsites ||
	    h->state[prober][site] != 1)
		return AUTHD_RTT_NONE;
	return h->rtt[prober][site];
}
