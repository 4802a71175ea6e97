/* What each name hands out, and its changes; see handout.h. */
#include "handout.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static void authd_prefix_label(const struct addr_prefix *p, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(p->family, p->addr, addr, sizeof(addr));
	snprintf(buf, len, "%s/%u", addr, p->len);
}

int authd_handouts_init(struct authd_handouts *hs, const struct authd_db *db)
{
	hs->nnames = db->nnames;
	hs->h = calloc((size_t)db->nnames + 1, sizeof(*hs->h));
	if (hs->h == NULL)
		return -1;
	for (int i = 0; i < db->nnames; i++) {
		const struct authd_name *nm = db->names[i];
		struct authd_handout *h = &hs->h[i];
		int n = 1;

		if (nm->policy == AUTHD_GEOLOCATION)
			n += nm->ngeo;
		else if (nm->policy == AUTHD_LATENCY)
			n += nm->nvantage;
		else if (nm->policy == AUTHD_PROXIMITY)
			n += AUTHD_PROX_MAX; /* each querier measured, once it is */
		h->nclasses = n;
		h->label = calloc((size_t)n, sizeof(*h->label));
		h->mask = calloc((size_t)n, sizeof(*h->mask));
		if (h->label == NULL || h->mask == NULL)
			return -1;
		for (int k = 0; k + 1 < n && nm->policy != AUTHD_PROXIMITY; k++)
			authd_prefix_label(nm->policy == AUTHD_GEOLOCATION ? &nm->geo[k].net
									   : &nm->vantage[k].net,
					   h->label[k], sizeof(h->label[k]));
		snprintf(h->label[n - 1], sizeof(h->label[n - 1]), "*");
	}
	return 0;
}

void authd_handouts_free(struct authd_handouts *hs)
{
	for (int i = 0; hs->h && i < hs->nnames; i++) {
		free(hs->h[i].label);
		free(hs->h[i].mask);
	}
	free(hs->h);
	hs->h = NULL;
}

/* authd_class_client: a querier standing for class k: inside the k-th
 * network (with exactly its bits known), or unknown for the last class;
 * for proximity the k-th querier measured. 0, or -1 if class k has no
 * querier yet. */
static int authd_class_client(const struct authd_name *nm, int k, int nclasses,
			      const struct authd_health *health, struct authd_client *c)
{
	const struct addr_prefix *p = NULL;

	memset(c, 0, sizeof(*c));
	if (k == nclasses - 1)
		return 0;
	if (nm->policy == AUTHD_PROXIMITY) {
		if (health == NULL || k >= health->nprox)
			return -1;
		c->family = AF_INET;
		memcpy(c->addr, health->prox[k].addr, 4);
		c->source_len = 32;
		return 0;
	}
	p = nm->policy == AUTHD_GEOLOCATION ? &nm->geo[k].net : &nm->vantage[k].net;
	c->family = p->family;
	memcpy(c->addr, p->addr, sizeof(c->addr));
	c->source_len = p->len;
	return 0;
}

int authd_handout_update(struct authd_handouts *hs, const struct authd_db *db,
			 const struct authd_health *health, int i, uint64_t before[2],
			 uint64_t after[2])
{
	const struct authd_name *nm = db->names[i];
	struct authd_handout *h = &hs->h[i];
	int changed = !h->valid;

	before[0] = before[1] = after[0] = after[1] = 0;
	for (int k = 0; k < h->nclasses; k++) {
		struct authd_client c;

		if (authd_class_client(nm, k, h->nclasses, health, &c) == -1)
			continue;
		if (nm->policy == AUTHD_PROXIMITY && k + 1 < h->nclasses)
			inet_ntop(AF_INET, c.addr, h->label[k], sizeof(h->label[k]));
		for (int fam = 0; fam < 2; fam++) {
			struct authd_pick p;
			uint64_t mask = 0;

			authd_policy_select(nm, fam, &c, health, db->sites, db->server.all_dead,
					    &p);
			for (int j = 0; j < p.n; j++)
				mask |= 1ULL << nm->sites[p.slot[j]];
			if (h->valid)
				before[fam] |= h->mask[k][fam];
			changed |= h->mask[k][fam] != mask;
			h->mask[k][fam] = mask;
			after[fam] |= mask;
		}
	}
	h->valid = 1;
	return changed;
}

json_t *authd_handout_addresses(const struct authd_db *db, const uint64_t mask[2])
{
	json_t *a = json_array();
	char buf[INET6_ADDRSTRLEN];

	if (a == NULL)
		return NULL;
	for (int fam = 0; fam < 2; fam++)
		for (int s = 0; s < db->nsites; s++) {
			if (!(mask[fam] & (1ULL << s)))
				continue;
			for (int k = 0; k < db->sites[s].naddr[fam]; k++) {
				inet_ntop(fam == AUTHD_V4 ? AF_INET : AF_INET6,
					  db->sites[s].addr[fam][k], buf, sizeof(buf));
				json_array_append_new(a, json_string(buf));
			}
		}
	return a;
}

json_t *authd_handout_networks(const struct authd_handouts *hs, const struct authd_db *db, int i)
{
	const struct authd_handout *h = &hs->h[i];
	json_t *o;

	if (db->names[i]->policy != AUTHD_GEOLOCATION && db->names[i]->policy != AUTHD_LATENCY &&
	    db->names[i]->policy != AUTHD_PROXIMITY)
		return NULL;
	if ((o = json_object()) == NULL)
		return NULL;
	for (int k = 0; k < h->nclasses; k++)
		if (h->label[k][0])
			json_object_set_new(o, h->label[k],
					    authd_handout_addresses(db, h->mask[k]));
	return o;
}
