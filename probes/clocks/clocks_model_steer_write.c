/*
 * The steering model's rows written (clocks_model.h; docs/clocks.md,
 * "Steering"): under each scheme's and name's row of the steering table, the
 * model's (its p50s, and whether the measured agrees), on the terminal and in
 * report.md; then how they were made, the intervals of what varies, what
 * disagrees, and in report.md what the model assumes and leaves out. Plain
 * numbers: clocks_model_steer.c made them.
 */
#include "clocks_model.h"

#include <string.h>

#include "clocks_int.h"
#include "clocks_steering.h"

static const char *clocks_steer_scheme(int sc)
{
	return sc == CLOCKS_SCHEME_DNS ? "dns" : "anycast";
}

/* clocks_steer_model_cells: the model's row w in the total's shape: its
 * shares (p50) in the table's site order, the deviation's p50 into dev */
static void clocks_steer_model_cells(const struct clocks_steering *s,
				     const struct clocks_model_steer_row *w, double *share,
				     char *dev, size_t len)
{
	for (int k = 0; k < s->nsites; k++) {
		const struct clocks_model_iv *iv = clocks_model_steer_share(w, s->sites[k]);

		share[k] = iv ? iv->p50 : -1;
	}
	if (w->has_target && w->deviation.known)
		snprintf(dev, len, "%.3f", w->deviation.p50);
	else
		snprintf(dev, len, "-");
}

/* clocks_steer_agrees: "yes", "NO" or "-" for total t against the model */
static const char *clocks_steer_agrees(const struct clocks_input *in,
				       const struct clocks_steer_total *t)
{
	const struct clocks_model_steer_row *w;
	char text[8];
	int n = clocks_model_steer_outside(in, t, &w, text, sizeof(text), NULL);

	return n < 0 ? "-" : n ? "NO" : "yes";
}

void clocks_model_steer_print_row(FILE *out, const struct clocks_input *in,
				  const struct clocks_steer_total *t, int md)
{
	const struct clocks_steering *s = in->steering;
	const struct clocks_model_steer_row *w = clocks_model_steer_row(in, t->scheme, t->name);
	double share[CLOCKS_STEER_SITES];
	char a[32];

	if (w == NULL || !w->known)
		return;
	clocks_steer_model_cells(s, w, share, a, sizeof(a));
	if (md) {
		fprintf(out, "| model (agrees: %s) | %s |", clocks_steer_agrees(in, t),
			t->name[0] ? t->name : "(all)");
		for (int k = 0; k < s->nsites; k++)
			if (share[k] >= 0)
				fprintf(out, " %.1f %% |", share[k] * 100);
			else
				fprintf(out, " - |");
		fprintf(out, " %s | %.0f | %.3f | | | | |\n", a, w->requests, w->rtt_ms.p50);
		return;
	}
	fprintf(out, "%-8s %-16.16s |", "  model", t->name[0] ? t->name : "(all)");
	for (int k = 0; k < s->nsites; k++)
		if (share[k] >= 0)
			fprintf(out, " %6.1f%%", share[k] * 100);
		else
			fprintf(out, " %7s", "-");
	fprintf(out, " | %9s | %8.0f | %8.3f", a, w->requests, w->rtt_ms.p50);
	if (t->name[0] && w->upstream.known)
		fprintf(out, "   upstream queries %.0f", w->upstream.p50);
	fprintf(out, "   agrees: %s\n", clocks_steer_agrees(in, t));
}

/* clocks_steer_model_assumes: what the model of the steering assumes and
 * leaves out, a Markdown item each */
static void clocks_steer_model_assumes(FILE *out, const struct clocks_input *in)
{
	const struct clocks_model_steer *ms = in->model ? &in->model->steer : NULL;
	static const char *const keys[2] = {"assumptions", "not_modelled"};

	if (ms == NULL || !ms->known || ms->notes == NULL)
		return;
	for (int k = 0; k < 2; k++) {
		json_t *a = json_object_get(ms->notes, keys[k]);

		for (size_t i = 0; i < json_array_size(a); i++)
			fprintf(out, "- the model %s: %s\n", k ? "leaves out" : "assumes",
				json_string_value(json_array_get(a, i)));
	}
}

/* clocks_steer_model_notes: how the model rows were made, each interval
 * that the order of the fills makes, and what disagrees; prefix "  " for
 * the terminal, "- " for Markdown */
static void clocks_steer_model_notes(FILE *out, const struct clocks_input *in, const char *prefix)
{
	const struct clocks_steering *s = in->steering;
	const struct clocks_model_steer *ms = in->model ? &in->model->steer : NULL;
	const struct clocks_steer_total *list[2 + CLOCKS_STEER_NAMES];
	int n = 0;

	if (ms == NULL)
		return;
	if (!ms->known) {
		fprintf(out, "%smodel of the steering: none (%s)\n", prefix, ms->why);
		return;
	}
	fprintf(out,
		"%smodel rows: the steady state of the steering from this run's topology.ini "
		"(docs/model.md, \"Steady state\"), p50 over %u draws of the order of the fills; "
		"agrees: every share and the deviation within the draws' bounds widened by %.2f, "
		"a name's upstream queries by the fills within %g s of the period's end and one; "
		"the RTT is the paths' configured one, not judged\n",
		prefix, ms->samples, CLOCKS_MODEL_STEER_TOL, (double)CLOCKS_MODEL_TOL_NS / 1e9);
	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++)
		if (s->total[sc].n > 0)
			list[n++] = &s->total[sc];
	for (int i = 0; i < s->nnames; i++)
		if (s->names[i].n > 0)
			list[n++] = &s->names[i];
	for (int i = 0; i < n; i++) {
		const struct clocks_steer_total *t = list[i];
		const struct clocks_model_steer_row *w;
		char text[CLOCKS_WARNING_LEN], iv[96];
		int out_n = clocks_model_steer_outside(in, t, &w, text, sizeof(text), NULL),
		    any = 0;
		const char *who = t->name[0] ? t->name : clocks_steer_scheme(t->scheme);

		if (w && !w->known) {
			fprintf(out, "%smodel %s: not modelled: %s\n", prefix, who, w->why);
			continue;
		}
		if (out_n < 0)
			continue;
		/* the intervals the order of the fills makes, after a head */
		snprintf(iv, sizeof(iv), "%smodel %.60s: p50 (p5-p95): ", prefix, who);
		for (int k = 0; k < s->nsites; k++) {
			const struct clocks_model_iv *v = clocks_model_steer_share(w, s->sites[k]);

			if (v && v->min != v->max)
				fprintf(out, "%s%s %.1f (%.1f-%.1f) %%", any++ ? ", " : iv,
					s->sites[k], v->p50 * 100, v->p5 * 100, v->p95 * 100);
		}
		if (any && w->deviation.known)
			fprintf(out, ", deviation %.3f (%.3f-%.3f)", w->deviation.p50,
				w->deviation.p5, w->deviation.p95);
		if (any && w->rtt_ms.known)
			fprintf(out, ", rtt %.2f (%.2f-%.2f) ms", w->rtt_ms.p50, w->rtt_ms.p5,
				w->rtt_ms.p95);
		if (w->upstream.known && w->upstream.min != w->upstream.max)
			fprintf(out, "%supstream queries %.0f (%.0f-%.0f)", any++ ? ", " : iv,
				w->upstream.p50, w->upstream.p5, w->upstream.p95);
		if (any)
			fputc('\n', out);
		if (out_n > 0)
			fprintf(out, "%smodel %s: disagrees: %s\n", prefix, who, text);
	}
}

void clocks_model_steer_print_notes(FILE *out, const struct clocks_input *in, int md)
{
	clocks_steer_model_notes(out, in, md ? "- " : "  ");
	if (md)
		clocks_steer_model_assumes(out, in);
}
