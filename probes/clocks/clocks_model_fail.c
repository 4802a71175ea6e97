/*
 * The model beside every failure of the timeline after the first
 * (clocks_model.h; docs/clocks.md, "Every failure"): each one modelled from
 * the run's topology.ini as `steerlab model` does (the failures before it
 * settled, their sites out), at the run's own t0 of it; its row under the
 * measured one in the table "every failure of the timeline", and in
 * clocks.json's failures.
 */
#include "clocks_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "clocks_multi.h"
#include "model.h"
#include "topology.h"

#define NS 1e9

static const char *const fail_keys[CLOCKS_MF_CLOCKS] = {
    "detect_s", "steer_s", "window_s", "last_packet_max_s", "lost_client", "lost_capture"};
/* each as the first failure's clock it is */
static const enum clocks_model_clock fail_as[CLOCKS_MF_CLOCKS] = {
    CLOCKS_MODEL_DETECT,   CLOCKS_MODEL_STEER,	     CLOCKS_MODEL_WINDOW,
    CLOCKS_MODEL_LAST_MAX, CLOCKS_MODEL_LOST_CLIENT, CLOCKS_MODEL_LOST_CAPTURE};
static const char *const fail_names[CLOCKS_MF_CLOCKS] = {"detect",   "steer",	 "window",
							 "last pkt", "lost cli", "lost cap"};

/* fail_pick: the topology's failure (k >= 1) of site at t0_s (from the
 * traffic's start) nearest in time, its input into mi; -1 if none */
static int fail_pick(const struct topology *t, const char *site, double t0_s,
		     struct model_input *mi, struct model_notes *notes)
{
	int n = model_failures(t), best = -1;
	double gap = INFINITY;
	char err[256];

	for (int k = 1; k < n; k++) {
		double at;

		if (model_from_topology_failure(t, k, mi, notes, err, sizeof(err)) == -1 ||
		    strcmp(mi->site, site) != 0)
			continue;
		at = fabs(mi->fail_at_s - t0_s);
		if (at < gap) {
			gap = at;
			best = k;
		}
	}
	if (best < 0 || model_from_topology_failure(t, best, mi, notes, err, sizeof(err)) == -1)
		return -1;
	return 0;
}

void clocks_model_failures_prepare(const struct topology *t, const struct clocks_input *in,
				   struct clocks_model *m)
{
	struct model_input *mi = calloc(1, sizeof(*mi));
	struct model_result *mr = calloc(1, sizeof(*mr));
	struct model_notes *notes = calloc(1, sizeof(*notes));
	int64_t traffic = clocks_traffic_ns(in);

	if (mi == NULL || mr == NULL || notes == NULL || in->traffic_start_ns == CLOCKS_NONE)
		goto out;
	for (size_t i = 1; i < in->nfailures && i < CLOCKS_MODEL_FAILURES; i++) {
		const struct clocks_failure *f = &in->failures[i];
		struct clocks_model_failure *mf = &m->failure[i];
		double t0 = (double)(f->t0_ns - in->traffic_start_ns) / NS;

		m->nfailures = (int)i + 1;
		mf->t0_s = t0;
		if (fail_pick(t, f->site, t0, mi, notes) == -1) {
			snprintf(mf->why, sizeof(mf->why),
				 "the topology has no later failure of site %s", f->site);
			continue;
		}
		/* the run's own instant and traffic time, as for the first */
		mi->fail_at_s = t0;
		mi->fail_jitter_s = 0;
		if (traffic != CLOCKS_NONE && traffic > 0)
			mi->duration_s = (double)traffic / NS;
		mi->samples = MODEL_POP_SAMPLES;
		if (model_lab(mi, mr) == -1)
			goto out;
		mf->known = 1;
		for (int s = 0; s < CLOCKS_NSCHEMES; s++) {
			const struct model_scheme_result *sr = &mr->s[s];
			const struct model_iv *from[CLOCKS_MF_CLOCKS] = {
			    &sr->detect,   &sr->steer, &sr->window,
			    &sr->last_max, &sr->lost,  &sr->lost_site};

			mf->present[s] = sr->present;
			mf->rate_per_s[s] = sr->rate_per_s;
			for (int c = 0; c < CLOCKS_MF_CLOCKS; c++)
				clocks_model_iv_copy(&mf->clock[s][c], from[c]);
		}
	}
out:
	free(mi);
	free(mr);
	free(notes);
}

/* fail_outside: whether failure row r's clock c lies outside the model's
 * bounds widened by the tolerance, as clocks_model_judge widens the first
 * failure's (the same clients: the same rate) */
static int fail_outside(const struct clocks_input *in, const struct clocks_model_failure *mf, int k,
			int c, const struct clocks_result *r)
{
	const struct clocks_model_iv *iv = &mf->clock[k][c];
	double v, tol = clocks_model_tolerance(in->model, k, fail_as[c]);
	int lb;

	if (!iv->known || clocks_model_measured(in, r, fail_as[c], &v, &lb) == -1)
		return 0;
	return v > iv->max + tol || (!lb && v < iv->min - tol);
}

static const struct clocks_model_failure *fail_get(const struct clocks_input *in, int i, int k)
{
	const struct clocks_model *m = in->model;

	if (m == NULL || i < 1 || i >= m->nfailures || k < 0 || k >= CLOCKS_NSCHEMES)
		return NULL;
	return &m->failure[i];
}

void clocks_model_failure_row(FILE *out, const struct clocks_input *in, int i, int k,
			      const struct clocks_result *r)
{
	const struct clocks_model_failure *mf = fail_get(in, i, k);
	char buf[32];
	int any = 0;

	if (mf == NULL)
		return;
	fprintf(out, "%-10s %-8s %-9s %-8s %-8s", "", "", "", "", "model");
	if (!mf->known || !mf->present[k]) {
		fprintf(out, " %s\n", mf->known ? "(not in the model)" : mf->why);
		return;
	}
	for (int c = 0; c < CLOCKS_MF_CLOCKS; c++) {
		const struct clocks_model_iv *iv = &mf->clock[k][c];

		if (!iv->known)
			snprintf(buf, sizeof(buf), "-");
		else if (c >= CLOCKS_MF_LOST_CLIENT)
			snprintf(buf, sizeof(buf), "%.0f", iv->p50);
		else
			snprintf(buf, sizeof(buf), "%.3f", iv->p50);
		fprintf(out, " %9s", buf);
	}
	for (int c = 0; c < CLOCKS_MF_CLOCKS; c++)
		if (fail_outside(in, mf, k, c, r))
			fprintf(out, "%s%s", any++ ? ", " : "           outside: ", fail_names[c]);
	fputc('\n', out);
	for (int c = 0; c < CLOCKS_MF_CLOCKS && !mf->clock[k][c].known; c++)
		if (c == CLOCKS_MF_WINDOW || c == CLOCKS_MF_DETECT) {
			fprintf(out, "%-46s not modelled: %s\n", "", mf->clock[k][c].why);
			break;
		}
}

json_t *clocks_model_failure_json(const struct clocks_input *in, int i, int k,
				  const struct clocks_result *r)
{
	const struct clocks_model_failure *mf = fail_get(in, i, k);
	json_t *o, *why, *outside;

	if (mf == NULL)
		return NULL;
	if (!mf->known)
		return json_pack("{s:b, s:s}", "known", 0, "why", mf->why);
	if (!mf->present[k])
		return NULL;
	o = json_object();
	why = json_object();
	outside = json_array();
	for (int c = 0; c < CLOCKS_MF_CLOCKS; c++) {
		const struct clocks_model_iv *iv = &mf->clock[k][c];

		json_object_set_new(o, fail_keys[c], clocks_model_iv_json(iv));
		if (!iv->known)
			json_object_set_new(why, fail_keys[c], json_string(iv->why));
		if (fail_outside(in, mf, k, c, r))
			json_array_append_new(outside, json_string(fail_keys[c]));
	}
	json_object_set_new(o, "t0_s", json_real(mf->t0_s));
	json_object_set_new(o, "not_modelled", why);
	json_object_set_new(o, "outside", outside);
	return o;
}
