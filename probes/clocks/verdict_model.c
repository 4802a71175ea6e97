/* The verdict's model_disagrees: a measured clock outside the model's
 * bounds widened by the tolerance, or a share, deviation or upstream count
 * of the steering table outside its steady state's (docs/clocks.md, "The
 * verdict"); see clocks_model.h. */
#include "clocks_model.h"

#include <string.h>

#include "clocks_auths.h"
#include "clocks_int.h"
#include "clocks_steering.h"

/* clocks_model_verdict_steer: each total row of the steering table (a
 * scheme's, a name's) against the model's */
static void clocks_model_verdict_steer(const struct clocks_input *in, struct clocks_notes *v)
{
	const struct clocks_steering *s = in->steering;
	const struct clocks_steer_total *list[2 + CLOCKS_STEER_NAMES];
	int n = 0;

	if (s == NULL)
		return;
	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++)
		if (s->total[sc].n > 0)
			list[n++] = &s->total[sc];
	for (int i = 0; i < s->nnames; i++)
		if (s->names[i].n > 0)
			list[n++] = &s->names[i];
	for (int i = 0; i < n; i++) {
		const struct clocks_model_steer_row *w;
		char text[CLOCKS_WARNING_LEN - 128];

		if (clocks_model_steer_outside(in, list[i], &w, text, sizeof(text), NULL) > 0)
			clocks_warn(v, "model_disagrees",
				    "steering %s %s: %s: a bug of the model or of the lab "
				    "(docs/model.md)",
				    list[i]->scheme == CLOCKS_SCHEME_DNS ? "dns" : "anycast",
				    list[i]->name[0] ? list[i]->name : "(all)", text);
	}
}

/* clocks_model_verdict_auths: each authority's detect and steer (the side
 * by side, clocks_auths.h) against its model, widened by the tolerance */
static void clocks_model_verdict_auths(const struct clocks_input *in, struct clocks_notes *v)
{
	const struct clocks_model *m = in->model;
	const struct clocks_auths *x = in->auths;

	for (int i = 0; x != NULL && i < x->n; i++)
		for (int k = 0; k < m->nauth; k++) {
			const struct clocks_model_auth *ma = &m->auth[k];
			const struct clocks_model_iv *iv[2] = {&ma->detect, &ma->steer};
			int64_t measured[2] = {x->a[i].detect_ns, x->a[i].steer_ns};
			const char *what[2] = {"detect", "steer"};
			double tol = (double)CLOCKS_MODEL_TOL_NS / 1e9;

			if (strcmp(ma->node, x->a[i].node) != 0)
				continue;
			for (int c = 0; c < 2; c++) {
				double s = (double)measured[c] / 1e9;

				if (measured[c] == CLOCKS_NONE ||
				    clocks_model_steer_judge(iv[c], s, tol) != CLOCKS_MODEL_OUTSIDE)
					continue;
				clocks_warn(
				    v, "model_disagrees",
				    "dns %s of %s (%s): measured %.3f s, the model %.3f "
				    "(p5-p95 %.3f-%.3f, bounds %.3f-%.3f, tolerance %.3f): a "
				    "bug of the model or of the lab (docs/model.md)",
				    what[c], x->a[i].node, x->a[i].impl, s, iv[c]->p50, iv[c]->p5,
				    iv[c]->p95, iv[c]->min, iv[c]->max, tol);
			}
		}
}

void clocks_model_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
			  struct clocks_notes *v)
{
	const struct clocks_model *m = in->model;

	if (m == NULL)
		return;
	clocks_model_verdict_steer(in, v);
	if (!m->known || in->steady)
		return;
	clocks_model_verdict_auths(in, v);
	for (int i = 0; i < nres && i < CLOCKS_NSCHEMES; i++) {
		if (res[i].noflows || !m->s[i].present)
			continue;
		for (int k = 0; k < clocks_model_nrows; k++) {
			const struct clocks_model_row *row = &clocks_model_rows[k];
			const struct clocks_model_iv *iv = &m->s[i].clock[row->c];
			double x, tol = clocks_model_tolerance(m, i, row->c);
			int lb, d = row->seconds ? 3 : 0;

			if (!iv->known ||
			    clocks_model_measured(in, &res[i], row->c, &x, &lb) == -1 ||
			    clocks_model_judge(in, i, row->c, x, lb) != CLOCKS_MODEL_OUTSIDE)
				continue;
			clocks_warn(v, "model_disagrees",
				    "%s %s: measured %s%.*f, the model %.*f (p5-p95 %.*f-%.*f, "
				    "bounds %.*f-%.*f, tolerance %.*f): a bug of the model or of "
				    "the lab (docs/model.md)",
				    res[i].scheme, row->label, lb ? ">= " : "",
				    d + 3 * row->seconds, x, d, iv->p50, d, iv->p5, d, iv->p95, d,
				    iv->min, d, iv->max, row->seconds ? 3 : 0, tol);
		}
	}
}
