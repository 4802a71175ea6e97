/* Site health from prober reports; see health.h. */
#include "health.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

int authd_health_apply_prox(struct authd_health *h, const struct health_report *r, int64_t now,
			    struct authd_health_change *c)
{
	int s = authd_health_site(h, r->site), q;
	uint32_t rtt = r->up ? r->rtt_us : AUTHD_RTT_NONE;
	struct authd_prox *e;

	if (s == -1)
		return -1;
	for (q = 0; q < h->nprox; q++)
		if (memcmp(h->prox[q].addr, &r->querier, 4) == 0)
			break;
	if (q == h->nprox) {
		if (h->nprox == AUTHD_PROX_MAX)
			return -1;
		e = &h->prox[h->nprox++];
		memcpy(e->addr, &r->querier, 4);
		memset(e->rtt, 0xff, sizeof(e->rtt)); /* AUTHD_RTT_NONE */
		memset(e->at, 0, sizeof(e->at));
	}
	e = &h->prox[q];
	memset(c, 0, sizeof(*c));
	c->site = s;
	c->prober = q;
	c->rtt_changed = e->rtt[s] != rtt;
	e->rtt[s] = rtt;
	e->at[s] = now;
	return 0;
}

int authd_health_expire(struct authd_health *h, int64_t now, int64_t stale_ns, int *querier,
			int *site)
{
	int n = 0;

	for (int q = 0; q < h->nprox; q++)
		for (int s = 0; s < h->nsites; s++) {
			struct authd_prox *e = &h->prox[q];

			if (e->at[s] == 0 || e->at[s] >= now - stale_ns)
				continue;
			if (e->rtt[s] != AUTHD_RTT_NONE && n++ == 0) {
				if (querier)
					*querier = q;
				if (site)
					*site = s;
			}
			e->rtt[s] = AUTHD_RTT_NONE;
			e->at[s] = 0;
		}
	return n;
}

int authd_health_prox_of(const struct authd_health *h, int family, const uint8_t *addr,
			 unsigned source_len)
{
	struct addr_prefix net = {.family = AF_INET,
				  .len = (uint8_t)(source_len > 32 ? 32 : source_len)};

	if (h == NULL || family != AF_INET)
		return -1;
	memcpy(net.addr, addr, 4);
	for (int q = 0; q < h->nprox; q++)
		if (authd_prefix_match(&net, AF_INET, h->prox[q].addr))
			return q;
	return -1;
}
