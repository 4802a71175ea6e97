/*
 * Impairments measured, not assumed (docs/clocks.md, "Impairments"): each
 * client's path to each site as the lab configured its links, against the
 * RTT of the client's requests that site answered before t0; and the
 * losses a configured loss may explain. See clocks.h.
 */
#include "clocks_impair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

/* clocks_impair_node: the client node whose flow sent client id (its
 * agent's client_started), or NULL */
static const char *clocks_impair_node(const struct clocks_input *in, uint32_t client)
{
	uint32_t agent = wire_agent_of(client);

	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == agent && in->clients[i].node[0])
			return in->clients[i].node;
	return NULL;
}

static int clocks_impair_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* A path's RTTs before t0, gathered in one pass over the records. */
struct clocks_impair_rtts {
	int64_t *v;
	size_t n, cap;
};

/* clocks_impair_until: when entry p stopped being in force: the next
 * entry's of its client and site, else INT64_MAX */
static int64_t clocks_impair_until(const struct clocks_input *in, size_t p)
{
	int64_t until = INT64_MAX;

	for (size_t k = 0; k < in->nimpair; k++)
		if (in->impair[k].from_ns > in->impair[p].from_ns &&
		    in->impair[k].from_ns < until &&
		    strcmp(in->impair[k].client, in->impair[p].client) == 0 &&
		    strcmp(in->impair[k].site, in->impair[p].site) == 0)
			until = in->impair[k].from_ns;
	return until;
}

/* clocks_impair_cut: the requests sent from then on are not measured: t0
 * (the failure changes paths), or for a gray failure (an impair, which
 * changes none) the timeline's next step after it that is no impair */
static int64_t clocks_impair_cut(const struct clocks_input *in)
{
	const struct clocks_failure *f = &in->failure;
	int64_t cut = INT64_MAX;

	if (strcmp(f->how, "impair") != 0)
		return f->t0_ns;
	for (size_t i = 0; i < in->nhits; i++)
		if (in->hits[i].t_ns > f->t0_ns && in->hits[i].t_ns < cut &&
		    strcmp(in->hits[i].action, "impair") != 0)
			cut = in->hits[i].t_ns;
	return cut;
}

int clocks_impair_measure(const struct clocks_input *in, struct clocks_impair_path *out)
{
	struct clocks_impair_rtts *r = calloc(in->nimpair ? in->nimpair : 1, sizeof(*r));
	int64_t *until = calloc(in->nimpair ? in->nimpair : 1, sizeof(*until));
	int64_t cut = clocks_impair_cut(in);
	uint32_t last = 0;
	const char *node = NULL;
	int rc = -1;

	if (r == NULL || until == NULL) {
		free(r);
		free(until);
		return -1;
	}
	for (size_t p = 0; p < in->nimpair; p++)
		until[p] = clocks_impair_until(in, p);
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];

		if (q->status != CLOCKS_OK || q->sent_ns >= cut || q->rtt_ns < 0)
			continue;
		/* a file's records are one flow's: one look-up a flow */
		if (node == NULL || q->client != last) {
			last = q->client;
			if ((node = clocks_impair_node(in, q->client)) == NULL)
				continue;
		}
		for (size_t p = 0; p < in->nimpair; p++) {
			struct clocks_impair_rtts *x = &r[p];

			if (strcmp(in->impair[p].site, q->site) != 0 ||
			    strcmp(in->impair[p].client, node) != 0 ||
			    q->sent_ns < in->impair[p].from_ns || q->sent_ns >= until[p])
				continue;
			/* on its way when the impairment changed: neither's */
			if (q->sent_ns + q->rtt_ns > until[p] ||
			    (in->impair[p].from_ns > 0 && q->sent_ns < in->impair[p].from_ns))
				break;
			if (x->n == x->cap) {
				size_t ncap = x->cap ? 2 * x->cap : 1024;
				int64_t *nv = realloc(x->v, ncap * sizeof(*nv));

				if (nv == NULL)
					goto out;
				x->v = nv;
				x->cap = ncap;
			}
			x->v[x->n++] = q->rtt_ns;
			break;
		}
	}
	for (size_t p = 0; p < in->nimpair; p++) {
		struct clocks_impair_path *ip = &out[p];

		*ip = in->impair[p];
		ip->until_ns = until[p];
		ip->n = (int64_t)r[p].n;
		ip->p50_ns = CLOCKS_NONE;
		ip->mismatch = 0;
		if (r[p].n == 0)
			continue;
		qsort(r[p].v, r[p].n, sizeof(*r[p].v), clocks_impair_cmp);
		ip->p50_ns = r[p].v[(r[p].n - 1) / 2];
		if (ip->rtt_ns > 0) {
			int64_t tol = (int64_t)((double)ip->rtt_ns * CLOCKS_IMPAIR_TOL_SHARE);

			if (tol < CLOCKS_IMPAIR_TOL_NS)
				tol = CLOCKS_IMPAIR_TOL_NS;
			ip->mismatch = llabs(ip->p50_ns - ip->rtt_ns) > tol;
		}
	}
	rc = 0;
out:
	for (size_t p = 0; p < in->nimpair; p++)
		free(r[p].v);
	free(r);
	free(until);
	return rc;
}

void clocks_impair_verdict(const struct clocks_input *in, struct clocks_notes *v)
{
	struct clocks_impair_path *ip;

	if (in->nimpair == 0)
		return;
	if ((ip = calloc(in->nimpair, sizeof(*ip))) == NULL ||
	    clocks_impair_measure(in, ip) == -1) {
		clocks_warn(v, "limit", "impairments: out of memory, not measured");
		free(ip);
		return;
	}
	for (size_t p = 0; p < in->nimpair; p++) {
		int64_t tol = (int64_t)((double)ip[p].rtt_ns * CLOCKS_IMPAIR_TOL_SHARE);

		if (!ip[p].mismatch)
			continue;
		if (tol < CLOCKS_IMPAIR_TOL_NS)
			tol = CLOCKS_IMPAIR_TOL_NS;
		clocks_invalid(v, "impairment_mismatch",
			       "client %s to site %s: the RTT of its %lld requests answered %s "
			       "was %.3f ms (p50), the links were configured for %.3f ms (%s): "
			       "they differ by %.3f ms, more than %.3f ms (max(0.5 ms, 5 %%))",
			       ip[p].client, ip[p].site, (long long)ip[p].n,
			       ip[p].from_ns > 0 ? "after the impairment changed" : "before t0",
			       (double)ip[p].p50_ns / 1e6, (double)ip[p].rtt_ns / 1e6,
			       in->impair_mech, (double)llabs(ip[p].p50_ns - ip[p].rtt_ns) / 1e6,
			       (double)tol / 1e6);
	}
	free(ip);
}

/* clocks_impair_loss_at: the highest loss (a share) of the paths in
 * idx[0..n) (one client node's) in force at t: each site's latest entry
 * from before t */
static double clocks_impair_loss_at(const struct clocks_input *in, const size_t *idx, size_t n,
				    int64_t t)
{
	double p = 0;

	for (size_t a = 0; a < n; a++) {
		const struct clocks_impair_path *x = &in->impair[idx[a]];
		int superseded = x->from_ns > t;

		for (size_t b = 0; b < n && !superseded; b++) {
			const struct clocks_impair_path *y = &in->impair[idx[b]];

			superseded = strcmp(y->site, x->site) == 0 && y->from_ns > x->from_ns &&
				     y->from_ns <= t;
		}
		if (!superseded && x->loss_pct / 100 > p)
			p = x->loss_pct / 100;
	}
	return p;
}

int64_t clocks_impair_loss(const struct clocks_input *in, enum clocks_scheme scheme)
{
	double mean = 0, var = 0, p = 0;
	size_t *idx, n = 0;
	uint32_t last = 0;
	int known = 0;

	for (size_t i = 0; i < in->nimpair && in->nrequests; i++)
		p += in->impair[i].loss_pct;
	if (p == 0)
		return 0;
	if ((idx = calloc(in->nimpair, sizeof(*idx))) == NULL)
		return INT64_MAX; /* not known: nothing is called unexplained */
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];
		const char *node;

		if (clocks_scheme_of(q->client) != scheme)
			continue;
		if (!known || q->client != last) {
			last = q->client;
			known = 1;
			n = 0;
			if ((node = clocks_impair_node(in, q->client)) != NULL)
				for (size_t k = 0; k < in->nimpair; k++)
					if (strcmp(in->impair[k].client, node) == 0)
						idx[n++] = k;
		}
		/* the loss in force when it was sent: an impair may have
		 * changed it during the run */
		p = clocks_impair_loss_at(in, idx, n, q->sent_ns);
		mean += p;
		var += p * (1 - p);
	}
	free(idx);
	if (mean == 0)
		return 0;
	/* the normal approximation's 99 % one-sided bound, and one for the
	 * count's discreteness */
	return (int64_t)ceil(mean + 2.326 * sqrt(var)) + 1;
}
