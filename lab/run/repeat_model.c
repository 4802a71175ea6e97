/*
 * The model beside a repeat's spread: the repetitions' models, from their
 * clocks.json (read by sweep_table_load, lab/run/sweep_model.c), taken
 * together and judged against the measured spread; see repeat.h.
 */
#include "repeat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strfmt.h"
#include "sweep_model.h"

/* the model's clock of each of the repeat's (enum repeat_clock); -1: none */
static const int repeat_model_of[REPEAT_NCLOCKS] = {
    [REPEAT_DETECT] = SWEEP_MODEL_DETECT,
    [REPEAT_REMOTE_DEAD] = -1,
    [REPEAT_STEER] = SWEEP_MODEL_STEER,
    [REPEAT_WINDOW] = SWEEP_MODEL_WINDOW,
    [REPEAT_LAST_P50] = SWEEP_MODEL_LAST_P50,
    [REPEAT_LAST_P99] = SWEEP_MODEL_LAST_P99,
    [REPEAT_LAST_MAX] = SWEEP_MODEL_LAST_MAX,
    [REPEAT_LOST_CLIENT] = SWEEP_MODEL_LOST_CLIENT,
    [REPEAT_LOST_CAPTURE] = SWEEP_MODEL_LOST_CAPTURE,
    [REPEAT_UPSTREAM] = SWEEP_MODEL_UPSTREAM,
};

static int repeat_model_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* repeat_model_judge: the spread st against rm's bounds widened by its
 * tolerance, as clocks_model_judge judges one run (probes/clocks) */
static enum repeat_judged repeat_model_judge(const struct repeat_model *rm,
					     const struct repeat_stat *st, int later)
{
	if (rm->n == 0 || st->n == 0 || isnan(rm->tol))
		return REPEAT_MODEL_NONE;
	if (later)
		return REPEAT_MODEL_LATER_STEP;
	if (st->max > rm->max + rm->tol)
		return REPEAT_MODEL_OUTSIDE;
	if (st->lower_bound) /* the clocks may be longer: only too long is known */
		return REPEAT_MODEL_LOWER_BOUND;
	return st->min < rm->min - rm->tol ? REPEAT_MODEL_OUTSIDE : REPEAT_MODEL_WITHIN;
}

int repeat_model_stat(const struct sweep *sw, const struct sweep_table *tb, int s, int k,
		      const struct repeat_stat *st, struct repeat_model *rm)
{
	double p50[SWEEP_MAX_POINTS];
	int c = repeat_model_of[k], later = 0;

	memset(rm, 0, sizeof(*rm));
	rm->tol = NAN;
	rm->judged = REPEAT_MODEL_NONE;
	if (c < 0)
		return -1;
	rm->same = 1;
	for (int i = 0; i < sw->nvalues; i++) {
		const struct sweep_clocks *cl = &tb->clocks[i][s];
		const struct sweep_model_iv *v = &cl->model.clock[c];

		if (!tb->done[i] || tb->valid[i] == 0 || !cl->present || !cl->model.present ||
		    !v->known)
			continue;
		if (rm->n == 0) {
			rm->p5 = v->p5;
			rm->p50 = v->p50;
			rm->p95 = v->p95;
			rm->min = v->min;
			rm->max = v->max;
		}
		rm->p5 = fmin(rm->p5, v->p5);
		rm->p95 = fmax(rm->p95, v->p95);
		rm->min = fmin(rm->min, v->min);
		rm->max = fmax(rm->max, v->max);
		if (!isnan(cl->model.tol[c]))
			rm->tol =
			    isnan(rm->tol) ? cl->model.tol[c] : fmax(rm->tol, cl->model.tol[c]);
		later |= !!(cl->model.later_step & (1u << c));
		rm->runs_outside += !!(cl->model.outside & (1u << c));
		p50[rm->n++] = v->p50;
	}
	if (rm->n > 0) {
		qsort(p50, (size_t)rm->n, sizeof(p50[0]), repeat_model_cmp);
		/* the same when they differ by less than a tenth of what the
		 * judgement forgives: the first's, as it is */
		rm->same = p50[rm->n - 1] - p50[0] <= (isnan(rm->tol) ? 0 : rm->tol / 10);
		if (rm->same) {
			for (int i = 0; i < sw->nvalues; i++) {
				const struct sweep_clocks *cl = &tb->clocks[i][s];
				const struct sweep_model_iv *v = &cl->model.clock[c];

				if (!tb->done[i] || tb->valid[i] == 0 || !cl->present ||
				    !cl->model.present || !v->known)
					continue;
				rm->p5 = v->p5;
				rm->p50 = v->p50;
				rm->p95 = v->p95;
				break;
			}
		} else {
			rm->p50 = repeat_quantile(p50, rm->n, 0.5);
		}
	}
	rm->judged = repeat_model_judge(rm, st, later);
	return 0;
}

const char *repeat_model_word(enum repeat_judged j)
{
	switch (j) {
	case REPEAT_MODEL_WITHIN:
		return "yes";
	case REPEAT_MODEL_OUTSIDE:
		return "NO";
	case REPEAT_MODEL_LOWER_BOUND:
		return "lower bound";
	case REPEAT_MODEL_LATER_STEP:
		return "later step";
	default:
		return "-";
	}
}

const char *repeat_model_within(char *buf, size_t len, const struct repeat_model *rm)
{
	if (rm->runs_outside > 0)
		strfmt(buf, len, "%s (%d run%s NO)", repeat_model_word(rm->judged),
		       rm->runs_outside, rm->runs_outside == 1 ? "" : "s");
	else
		strfmt(buf, len, "%s", repeat_model_word(rm->judged));
	return buf;
}

const char *repeat_model_cell(char *buf, size_t len, const struct repeat_model *rm, int count)
{
	struct sweep_model_iv v = {
	    .known = rm->n > 0, .p5 = rm->p5, .p50 = rm->p50, .p95 = rm->p95};
	size_t off;

	sweep_model_cell(buf, len, &v, !count);
	off = strlen(buf);
	if (rm->n > 0 && !rm->same)
		strfmt(buf + off, len - off, " *");
	return buf;
}

void repeat_model_stats_head(FILE *out)
{
	fputs(",model_p50,model_p5,model_p95,model_min,model_max,model_tolerance,model_same,"
	      "model_within,model_runs_outside",
	      out);
}

void repeat_model_stats_cells(FILE *out, const struct repeat_model *rm, int count)
{
	static const char *const within[] = {
	    [REPEAT_MODEL_NONE] = "",
	    [REPEAT_MODEL_WITHIN] = "yes",
	    [REPEAT_MODEL_OUTSIDE] = "no",
	    [REPEAT_MODEL_LOWER_BOUND] = "lower_bound",
	    [REPEAT_MODEL_LATER_STEP] = "later_step",
	};
	const double v[] = {rm->p50, rm->p5, rm->p95, rm->min, rm->max, rm->tol};

	for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
		fputc(',', out);
		if (rm->n > 0 && !isnan(v[j]))
			fprintf(out, count ? "%.3f" : "%.6f", v[j]);
	}
	fputc(',', out);
	if (rm->n > 0)
		fputc(rm->same ? '1' : '0', out);
	fprintf(out, ",%s,", within[rm->judged]);
	if (rm->n > 0)
		fprintf(out, "%d", rm->runs_outside);
}

void repeat_model_md_notes(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	int n = 0;

	fputs("\nmodel: the runs' model, what `steerlab model` predicts from their topology.ini "
	      "with the failure\nat each run's own instant (their clocks.json; docs/model.md, "
	      "\"In sweeps and repeats\"): p50\n(p5-p95) over its draws, rep-1's where every "
	      "run's is the same; *: the runs' models differ\n(fail_jitter moves each failure): "
	      "the median of their p50s, the least p5 to the greatest p95.\nwithin: the min and "
	      "max measured within the least and greatest of the models' draws, widened by\nthe "
	      "tolerance each run's model_disagrees uses (docs/clocks.md, \"The model beside "
	      "the\nmeasurement\"); (1 run NO): that run's own value outside its own model (its "
	      "model_disagrees).\n",
	      out);
	for (int i = 0; i < sw->nvalues; i++) {
		int m = 0;

		if (!tb->done[i] || tb->valid[i] == 0)
			continue;
		for (int s = 0; s < tb->nschemes; s++)
			for (int c = 0; c < SWEEP_MODEL_CLOCKS; c++) {
				if (!tb->clocks[i][s].present ||
				    !(tb->clocks[i][s].model.outside & (1u << c)))
					continue;
				if (m++ == 0)
					fprintf(out, "%s- %s/:",
						n++ ? ""
						    : "\nRuns whose own model_disagrees named "
						      "a clock:\n\n",
						sw->names[i]);
				fprintf(out, "%s %s %s", m > 1 ? "," : "", tb->schemes[s],
					sweep_model_key(c));
			}
		if (m)
			fputc('\n', out);
	}
}
