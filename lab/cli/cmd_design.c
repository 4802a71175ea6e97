/* steerlab model --target ... --vary ...: the settings that meet a target
 * on the model's clocks, cheapest first (docs/model.md, "Inverse design");
 * see cli.h. Each point of the grid is the topology loaded with its --set
 * values and modelled (probes/model/model_design.h). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "model_design.h"

/* a grid of more points than this is searched with fewer draws, then the
 * points that met or nearly missed are modelled again with MODEL_SAMPLES
 * (4000 draws: about 4.5 ms a point on two cores, 2 ms with 1000) */
#define DESIGN_SEARCH_FULL 400
#define DESIGN_SEARCH_SAMPLES 1000

static double design_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* design_set_key: the key of --set s ("key=value", blanks allowed), into
 * buf */
static const char *design_set_key(const char *s, char *buf, size_t len)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strcspn(s, "= \t");
	snprintf(buf, len, "%.*s", (int)n, s);
	return buf;
}

/* design_parse: the targets and varied keys of the command line into d;
 * 0, or -1 having said why */
static int design_parse(const struct cmd_args *a, struct design *d)
{
	char err[512], key[DESIGN_KEY_MAX];

	d->file = a->file;
	for (int i = 0; i < a->ntargets; i++)
		if (design_targets_parse(a->targets[i], d->targets, &d->ntargets,
					 DESIGN_MAX_TARGETS, err, sizeof(err)) == -1)
			goto bad;
	for (int i = 0; i < a->nvaries; i++)
		if (design_vary_parse(a->varies[i], d->vary, &d->nvary, DESIGN_MAX_KEYS, err,
				      sizeof(err)) == -1)
			goto bad;
	if (d->ntargets == 0) {
		fprintf(stderr,
			"steerlab: model: --vary needs a --target: what should the settings "
			"meet? (e.g. --target 'dns.window<=30s')\n");
		return -1;
	}
	for (int k = 0; k < d->nvary; k++)
		for (int i = 0; i < a->nsets; i++)
			if (strcmp(design_set_key(a->sets[i], key, sizeof(key)), d->vary[k].key) ==
			    0) {
				fprintf(
				    stderr,
				    "steerlab: model: --vary %s and --set %s: the same key (each "
				    "point of --vary sets it)\n",
				    d->vary[k].spec, a->sets[i]);
				return -1;
			}
	if (a->nsets + d->nvary > TOPO_MAX_SETS) {
		fprintf(stderr, "steerlab: model: at most %d --set and --vary keys in all\n",
			TOPO_MAX_SETS);
		return -1;
	}
	if ((d->npoints = design_grid_size(d->vary, d->nvary)) < 0) {
		fprintf(stderr,
			"steerlab: model: the grid of --vary has more than %d points: fewer values "
			"(KEY=LO..HI:N, or a list)\n",
			DESIGN_MAX_POINTS);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "steerlab: model: %s\n", err);
	return -1;
}

/* design_point_model: point p of d modelled with samples draws: the
 * topology loaded with the command line's --set and the point's values,
 * its model, its targets and costs. in, r and t are scratch. 0, or -1
 * having said why. */
static int design_point_model(const struct cmd_args *a, const struct design *d,
			      struct design_point *p, unsigned samples, struct topology *t,
			      struct model_input *in, struct model_result *r)
{
	static struct model_notes notes;
	char *sets[TOPO_MAX_SETS], buf[DESIGN_MAX_KEYS][DESIGN_KEY_MAX + DESIGN_VALUE_MAX + 2];
	char err[512], *msg = NULL;
	size_t msglen = 0;
	int n = 0, rc;
	FILE *e;

	for (int i = 0; i < a->nsets; i++)
		sets[n++] = a->sets[i];
	for (int k = 0; k < d->nvary; k++) {
		snprintf(buf[k], sizeof(buf[k]), "%s=%s", d->vary[k].key,
			 d->vary[k].value[p->vi[k]]);
		sets[n++] = buf[k];
	}
	/* a point's refusals are told only if it is refused */
	if ((e = open_memstream(&msg, &msglen)) == NULL) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		return -1;
	}
	rc = overrides_load(t, a->file, sets, n, e);
	fclose(e);
	if (rc == -1) {
		char set[256];
		size_t off = 0;

		for (int k = 0; k < d->nvary && off < sizeof(set); k++)
			off += (size_t)snprintf(set + off, sizeof(set) - off, " %s", buf[k]);
		fprintf(stderr, "%ssteerlab: model: --vary: the point%s is refused (above)\n",
			msg ? msg : "", set);
		free(msg);
		return -1;
	}
	free(msg);
	if (model_from_topology(t, in, &notes, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: model: %s\n", err);
		return -1;
	}
	design_input(in, samples);
	if (model_lab(in, r) == -1) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		return -1;
	}
	design_evaluate(d->targets, d->ntargets, in, r, p);
	design_probes(t, p);
	return 0;
}

/* design_unmodelled: -1 (said) when no point has every target modelled */
static int design_unmodelled(const struct design *d, const struct design_point *p)
{
	for (long i = 0; i < d->npoints; i++)
		if (p[i].status != -1)
			return 0;
	fprintf(stderr, "steerlab: model: --target '%s': not modelled for %s%s: %s\n",
		d->targets[p[0].why_target].text, d->file,
		d->npoints > 1 ? " at any point of the grid" : "", p[0].why);
	return -1;
}

/* design_write: the table, or the JSON with --json */
static int design_write(const struct cmd_args *a, const struct design *d,
			const struct model_input *in, const struct design_point *p,
			const int order[], int nmeet)
{
	json_t *o;
	int rc = 0;

	if (!a->json) {
		design_print(d, in, p, order, nmeet, 20, stdout);
		return 0;
	}
	o = design_json(d, in, p, order, nmeet);
	if (o == NULL || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) == -1)
		rc = 1;
	else
		putchar('\n');
	json_decref(o);
	if (rc)
		fprintf(stderr, "steerlab: model: could not write the JSON\n");
	return rc;
}

int cmd_design(const struct cmd_args *a)
{
	static struct design d;
	static struct topology topo;
	static struct model_input in, base;
	static struct model_result r;
	static struct model_notes notes;
	struct design_point *p = NULL;
	char err[512];
	int *order = NULL, nmeet, rc = 1;
	double start = design_now();

	memset(&d, 0, sizeof(d));
	if (design_parse(a, &d) == -1)
		return 2;
	/* the topology as the command line sets it, refused as check refuses
	 * it (FRR's dry run too, once) */
	if (cli_load(a, "model") == -1)
		return 1;
	if (model_from_topology(&cli_topo, &base, &notes, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: model: %s\n", err);
		return 1;
	}
	d.duration_s = base.duration_s;
	design_input(&base, 0);
	d.search_samples = d.npoints > DESIGN_SEARCH_FULL ? DESIGN_SEARCH_SAMPLES : MODEL_SAMPLES;
	p = calloc((size_t)d.npoints, sizeof(*p));
	order = calloc((size_t)d.npoints, sizeof(*order));
	if (p == NULL || order == NULL) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		goto out;
	}
	for (long i = 0; i < d.npoints; i++) {
		p[i].index = i;
		design_grid_point(d.vary, d.nvary, i, p[i].vi);
		if (design_point_model(a, &d, &p[i], d.search_samples, &topo, &in, &r) == -1)
			goto out;
	}
	if (design_unmodelled(&d, p) == -1)
		goto out;
	if (d.search_samples != MODEL_SAMPLES) {
		/* again at full draws, the points on the edge: they may
		 * change sides */
		for (long i = 0; i < d.npoints; i++) {
			if (!design_near(&d, &p[i]))
				continue;
			d.nfull++;
			if (design_point_model(a, &d, &p[i], MODEL_SAMPLES, &topo, &in, &r) == -1)
				goto out;
		}
	}
	nmeet = design_rank(p, (int)d.npoints, &d.targets[0], order);
	d.seconds = design_now() - start;
	rc = design_write(a, &d, &base, p, order, nmeet);
out:
	free(p);
	free(order);
	return rc;
}
