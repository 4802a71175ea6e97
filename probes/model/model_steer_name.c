/*
 * The steering model's names (model_steer_int.h): each [name] a client
 * asks, read from the topology as authd reads it (docs/authd.md,
 * "Policies"), its target as the steering table takes it, and what authd
 * answers a querier of it when every site is healthy.
 */
#include "model_steer_int.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_topo_int.h"

#define NS 1e9

int steer_site(const struct model_steer_input *in, const char *name)
{
	for (int s = 0; s < in->nsites; s++)
		if (strcmp(in->sites[s], name) == 0)
			return s;
	return -1;
}

/* steer_prefix: "A.B.C.D/LEN" into net and len; -1 if not IPv4 */
static int steer_prefix(const char *v, uint32_t *net, int *len)
{
	char buf[64], *slash;
	struct in_addr a;

	snprintf(buf, sizeof(buf), "%s", v);
	if ((slash = strchr(buf, '/')) == NULL)
		return -1;
	*slash = '\0';
	*len = atoi(slash + 1);
	if (inet_pton(AF_INET, buf, &a) != 1 || *len < 0 || *len > 32)
		return -1;
	*net = ntohl(a.s_addr);
	return 0;
}

static int steer_in(uint32_t addr, uint32_t net, int len)
{
	uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);

	return (addr & mask) == (net & mask);
}

/* steer_why: the name not modelled, the first reason kept */
void steer_why(struct model_steer_name *nm, const char *why)
{
	if (!nm->why[0])
		snprintf(nm->why, sizeof(nm->why), "%s", why);
}

/* steer_words: the sites named in v (words) onto nm's order; -1 if one is
 * no [site] */
static int steer_words(struct steer_build *b, struct model_steer_name *nm, const char *v)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", v);
	for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		int s = steer_site(b->in, w);

		if (s < 0)
			return -1;
		if (nm->norder < MODEL_STEER_SITES)
			nm->order[nm->norder++] = s;
	}
	return 0;
}

/* steer_name_read: [name] section sec into name n: its policy, sites,
 * weights, pattern, geolocation and vantage prefixes, TTL, server, target */
static void steer_name_read(struct steer_build *b, int n, int sec)
{
	const struct topology *t = b->t;
	struct model_steer_name *nm = &b->in->names[n];
	struct steer_spec *sp = &b->spec[n];
	const char *v = topo_raw(t, sec, "policy");
	int z = topo_name_zone(t, nm->name);
	char site[64];
	double w;

	sp->deflt = sp->primary = sp->dns = -1;
	for (int p = 0; p < 7; p++)
		if (v && strcmp(v, model_policy_name[p]) == 0)
			nm->policy = p;
	if ((v = topo_raw(t, sec, "weighted_mode")) && strcmp(v, "random") == 0)
		nm->random = 1;
	if (topo_raw(t, sec, "tier")) {
		steer_why(nm, "a tiered proximity name: a CNAME to a level-2 zone's name, whose "
			      "servers choose the site");
		snprintf(nm->upstream_why, sizeof(nm->upstream_why),
			 "a tiered name's caches ask its level-2 zones' names too");
	}
	for (int i = 0; i < t->nraw_pairs; i++) {
		const struct topo_raw_pair *rp = &t->raw_pairs[i];
		int s = -1, len = 0;
		uint32_t net = 0;

		if (rp->section != sec)
			continue;
		site[0] = '\0';
		if (strcmp(rp->key, "weight") == 0 &&
		    sscanf(rp->value, "%63s %lf", site, &w) == 2 &&
		    (s = steer_site(b->in, site)) >= 0 && nm->norder < MODEL_STEER_SITES) {
			nm->weight[s] = w;
			nm->order[nm->norder++] = s;
		} else if (strcmp(rp->key, "pattern") == 0) {
			char buf[512], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", rp->value);
			for (char *x = strtok_r(buf, " \t", &save);
			     x && nm->npattern < MODEL_STEER_PATTERN;
			     x = strtok_r(NULL, " \t", &save))
				if ((s = steer_site(b->in, x)) >= 0)
					nm->pattern[nm->npattern++] = s;
		} else if ((strcmp(rp->key, "sites") == 0 || strcmp(rp->key, "secondary") == 0) &&
			   steer_words(b, nm, rp->value) == -1) {
			steer_why(nm, "a site it names is no [site] of the lab");
		} else if (strcmp(rp->key, "primary") == 0) {
			sp->primary = steer_site(b->in, rp->value);
		} else if (strcmp(rp->key, "default") == 0) {
			sp->deflt = steer_site(b->in, rp->value);
		} else if (strcmp(rp->key, "geo") == 0 && sp->ngeo < STEER_GEO_MAX &&
			   sscanf(rp->value, "%*s %63s", site) == 1 &&
			   steer_prefix(rp->value, &net, &len) == 0) {
			sp->geo_net[sp->ngeo] = net;
			sp->geo_len[sp->ngeo] = len;
			sp->geo_site[sp->ngeo++] = steer_site(b->in, site);
		} else if (strcmp(rp->key, "vantage") == 0 && sp->nvan < STEER_GEO_MAX &&
			   sscanf(rp->value, "%*s %63s", site) == 1 &&
			   steer_prefix(rp->value, &net, &len) == 0) {
			sp->van_net[sp->nvan] = net;
			sp->van_len[sp->nvan] = len;
			sp->van_prober[sp->nvan++] = topo_find(t, site);
		}
	}
	if (nm->policy == MODEL_P_FAILOVER && sp->primary >= 0) {
		/* the primary first: a healthy primary is the answer */
		memmove(nm->order + 1, nm->order, (size_t)(MODEL_STEER_SITES - 1) * sizeof(int));
		nm->order[0] = sp->primary;
		nm->norder += nm->norder < MODEL_STEER_SITES;
	}
	if ((v = topo_raw(t, sec, "ttl")) == NULL && z >= 0)
		v = topo_raw(t, z, "ttl");
	sp->ttl_s = v && model_topo_seconds(v) >= 0 ? model_topo_seconds(v) : 30;
	for (int d = 0; d < t->nnodes; d++)
		if (t->nodes[d].kind == TOPO_DNS && z >= 0 && topo_dns_serves(t, d, z)) {
			if (sp->dns >= 0 && nm->policy == MODEL_P_WEIGHTED)
				steer_why(nm,
					  "several [dns] nodes serve it, each rotating on its own");
			if (sp->dns < 0)
				sp->dns = d;
		}
	if (sp->dns < 0)
		steer_why(nm, "no [dns] node of the lab serves it");
	if (nm->policy == MODEL_P_WEIGHTED && nm->norder == 0)
		steer_why(nm, "a weighted name without weights");
	/* the target, as the steering table takes it (docs/clocks.md) */
	if (nm->policy == MODEL_P_WEIGHTED) {
		double total = 0;

		for (int i = 0; i < nm->norder; i++)
			total += nm->weight[nm->order[i]];
		for (int i = 0; i < nm->norder && total > 0; i++)
			nm->target[nm->order[i]] = nm->weight[nm->order[i]] / total;
		nm->has_target = total > 0;
		snprintf(nm->target_from, sizeof(nm->target_from), "weighted: its weights");
	} else if (nm->policy == MODEL_P_FAILOVER && sp->primary >= 0) {
		nm->target[sp->primary] = 1;
		nm->has_target = 1;
		snprintf(nm->target_from, sizeof(nm->target_from), "failover: primary %s 100 %%",
			 b->in->sites[sp->primary]);
	} else if (t->target_share[0]) {
		char buf[TOPO_TARGET_SHARE_LEN], *save = NULL;
		double total = 0;

		snprintf(buf, sizeof(buf), "%s", t->target_share);
		for (char *x = strtok_r(buf, " ", &save); x; x = strtok_r(NULL, " ", &save)) {
			char *colon = strchr(x, ':');
			int s;

			if (colon == NULL)
				continue;
			*colon = '\0';
			if ((s = steer_site(b->in, x)) >= 0) {
				nm->target[s] = strtod(colon + 1, NULL);
				total += nm->target[s];
			}
		}
		for (int s = 0; s < b->in->nsites && total > 0; s++)
			nm->target[s] /= total;
		nm->has_target = total > 0;
		snprintf(nm->target_from, sizeof(nm->target_from),
			 "[lab] target_share (policy %s defines no shares)",
			 model_policy_name[nm->policy]);
	}
}

/* steer_name_of: the index of the [name] a client asks, read the first
 * time; -1 if it is no [name] of the topology */
int steer_name_of(struct steer_build *b, const char *name)
{
	struct model_steer_input *in = b->in;
	int sec = model_topo_name_section(b->t, name);

	if (sec < 0)
		return -1;
	for (int n = 0; n < in->nnames; n++)
		if (model_topo_same_name(in->names[n].name, name))
			return n;
	if (in->nnames == MODEL_STEER_NAMES)
		return -1;
	snprintf(in->names[in->nnames].name, MODEL_STEER_DNAME, "%s", b->t->raw_sections[sec].name);
	steer_name_read(b, in->nnames, sec);
	return in->nnames++;
}

/* steer_querier: the node of querier addr, as the sites measure them
 * (topo_proximity_queriers: a [resolver]'s cache, or a client asking a
 * [dns] node itself); -1 if no site measures it */
static int steer_querier(const struct topology *t, uint32_t addr)
{
	struct in_addr q[63];
	int node[63];
	int n = topo_proximity_queriers(t, q, NULL, node, 63, NULL);

	for (int i = 0; i < n; i++)
		if (ntohl(q[i].s_addr) == addr)
			return node[i];
	return -1;
}

/* steer_answer: what authd answers name n's querier at addr (every site
 * healthy) into u: the site of the longest geo prefix, the lowest RTT from
 * the vantage prober (a tie within the lab's own time: each of them, a tie
 * class), the primary, every candidate in order; -1 if nothing (NODATA) */
int steer_answer(struct steer_build *b, int n, uint32_t addr, struct model_steer_unit *u)
{
	const struct model_steer_name *nm = &b->in->names[n];
	const struct steer_spec *sp = &b->spec[n];
	int best = -1, prober = -1;

	u->tie = -1;
	u->nsites = 0;
	switch (nm->policy) {
	case MODEL_P_GEOLOCATION:
		for (int i = 0; i < sp->ngeo; i++)
			if (steer_in(addr, sp->geo_net[i], sp->geo_len[i]) &&
			    (best < 0 || sp->geo_len[i] > sp->geo_len[best]))
				best = i;
		u->site[0] = best >= 0 ? sp->geo_site[best] : sp->deflt;
		u->nsites = u->site[0] >= 0;
		return u->nsites ? 0 : -1;
	case MODEL_P_LATENCY:
	case MODEL_P_PROXIMITY: {
		double rtt[MODEL_STEER_SITES], low = INFINITY;

		/* latency: the vantage prober's RTT to each site; proximity:
		 * each site's to the querier itself */
		for (int i = 0; nm->policy == MODEL_P_LATENCY && i < sp->nvan; i++)
			if (steer_in(addr, sp->van_net[i], sp->van_len[i]) &&
			    (best < 0 || sp->van_len[i] > sp->van_len[best]))
				best = i;
		prober = best >= 0 ? sp->van_prober[best] : -1;
		if (nm->policy == MODEL_P_PROXIMITY && (prober = steer_querier(b->t, addr)) < 0)
			return -1;
		for (int i = 0; i < nm->norder; i++) {
			int64_t ns = prober >= 0 && (b->t->nodes[prober].kind == TOPO_PROBER ||
						     nm->policy == MODEL_P_PROXIMITY)
					 ? topo_rtt_ns(b->t, prober, b->site_node[nm->order[i]])
					 : -1;

			rtt[i] = ns >= 0 ? (double)ns / NS : INFINITY;
			low = fmin(low, rtt[i]);
		}
		for (int i = 0; i < nm->norder; i++)
			if (rtt[i] <= low + fmax(MODEL_STEER_TIE_S, MODEL_STEER_TIE_SHARE * low) ||
			    (isinf(low) && i == 0))
				u->site[u->nsites++] = nm->order[i];
		if (u->nsites > 1) {
			int key = n * TOPO_MAX_NODES + prober, c;

			for (c = 0; c < b->in->ntie && b->tie_key[c] != key; c++)
				;
			if (c == b->in->ntie)
				b->tie_key[b->in->ntie++] = key;
			u->tie = c;
		}
		return u->nsites ? 0 : -1;
	}
	case MODEL_P_FAILOVER:
		u->site[0] = nm->order[0];
		u->nsites = nm->norder > 0;
		return u->nsites ? 0 : -1;
	default:
		for (int i = 0; i < nm->norder; i++)
			u->site[u->nsites++] = nm->order[i];
		return u->nsites ? 0 : -1;
	}
}
