/* A design's points: what each costs, its targets checked, and the
 * ranking, cheapest first; see model_design.h. */
#include "model_design.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

void design_input(struct model_input *in, unsigned samples)
{
	if (in->duration_s < DESIGN_HORIZON_S)
		in->duration_s = DESIGN_HORIZON_S;
	in->samples = samples ? samples : MODEL_SAMPLES;
}

void design_probes(const struct topology *t, struct design_point *p)
{
	int sites = 0;

	for (int n = 0; n < t->nnodes; n++)
		sites += t->nodes[n].kind == TOPO_SITE;
	p->probes_per_s = p->probes_remote_per_s = 0;
	for (int n = 0; n < t->nnodes; n++) {
		const struct topo_node *x = &t->nodes[n];
		double every = (double)x->probe_interval_ns / 1e9;

		if (every <= 0)
			continue;
		/* a [prober] probes every site (lab/build/agents.c), a site's
		 * own prober its sited */
		if (x->kind == TOPO_PROBER) {
			p->probes_remote_per_s += sites / every;
			p->probes_per_s += sites / every;
		} else if (x->kind == TOPO_SITE) {
			p->probes_per_s += 1 / every;
		}
	}
}

void design_evaluate(const struct design_target *t, int nt, const struct model_input *in,
		     const struct model_result *r, struct design_point *p)
{
	const struct model_scheme_result *dns = &r->s[MODEL_DNS];
	double end = in->duration_s - in->fail_at_s - in->fail_jitter_s;

	p->status = 1;
	p->why[0] = '\0';
	p->samples = in->samples ? in->samples : MODEL_SAMPLES;
	for (int i = 0; i < nt; i++) {
		const char *why = NULL;
		int met = design_target_check(&t[i], r, &p->got[i], &why);
		const struct model_iv *w = &r->s[t[i].scheme].window;

		/* a last packet at the end of the traffic may have been later */
		if (met != -1 && w->known && w->max >= end - 1e-6) {
			met = -1;
			why = "a client's last packet reaches the end of the day of traffic the "
			      "design models: longer than it can say (a TTL or sticky of a day?)";
		}

		if (met == -1) {
			for (int j = 0; j < 5; j++)
				p->iv[i][j] = NAN;
			if (p->status != -1) {
				p->why_target = i;
				snprintf(p->why, sizeof(p->why), "%s", why);
			}
			p->status = -1;
			continue;
		} else {
			const struct model_iv *v = design_clock_iv(t[i].clock, &r->s[t[i].scheme]);

			p->iv[i][0] = v->p5;
			p->iv[i][1] = v->p50;
			p->iv[i][2] = v->p95;
			p->iv[i][3] = v->min;
			p->iv[i][4] = v->max;
		}
		if (!met && p->status == 1)
			p->status = 0;
	}
	p->dns = dns->present;
	p->upstream_known = dns->present && dns->upstream_per_s.known;
	p->upstream_per_s = p->upstream_known ? dns->upstream_per_s.p50 : NAN;
}

/* the ranking's context, for qsort_r's comparison */
struct rank_ctx {
	const struct design_point *p;
	const struct design_target *t;
};

/* rank_upstream: a point's upstream queries a second as ranked: 0 without
 * DNS clients, last when not modelled */
static double rank_upstream(const struct design_point *p)
{
	if (!p->dns)
		return 0;
	return p->upstream_known ? p->upstream_per_s : INFINITY;
}

static int rank_cmp_double(double a, double b)
{
	return (a > b) - (a < b);
}

static int rank_cmp(const void *a, const void *b, void *arg)
{
	const struct rank_ctx *ctx = arg;
	const struct design_point *x = &ctx->p[*(const int *)a];
	const struct design_point *y = &ctx->p[*(const int *)b];
	int c;

	if ((c = rank_cmp_double(rank_upstream(x), rank_upstream(y))) != 0)
		return c;
	if ((c = rank_cmp_double(x->probes_per_s, y->probes_per_s)) != 0)
		return c;
	if (ctx->t && (c = rank_cmp_double(x->got[0], y->got[0])) != 0)
		return ctx->t->op == DESIGN_LE || ctx->t->op == DESIGN_LT ? c : -c;
	return (x->index > y->index) - (x->index < y->index);
}

int design_rank(const struct design_point *p, int n, const struct design_target *t, int order[])
{
	struct rank_ctx ctx = {p, t};
	int m = 0;

	for (int i = 0; i < n; i++)
		if (p[i].status == 1)
			order[m++] = i;
	qsort_r(order, (size_t)m, sizeof(order[0]), rank_cmp, &ctx);
	return m;
}

int design_near(const struct design *d, const struct design_point *p)
{
	if (p->status == -1)
		return 0;
	for (int i = 0; i < d->ntargets; i++) {
		const struct design_target *t = &d->targets[i];
		double slack = DESIGN_NEAR * fabs(t->value);

		if (design_target_meets(t, p->got[i]))
			continue;
		if (fabs(p->got[i] - t->value) > slack)
			return 0;
	}
	return 1;
}
