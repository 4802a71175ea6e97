/* `steerlab run --repeat N`: its arguments, seeds and files; see repeat.h. */
#include "repeat.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "topology.h"
#include "log.h"
#include "strfmt.h"
#include "strtonum.h"

/* repeat_seed_set: if set is seed=VALUE (blanks allowed around both), 1
 * with the value in *v; else 0 */
static int repeat_seed_set(const char *set, const char **v)
{
	const char *p = set;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "seed", 4) != 0)
		return 0;
	p += 4;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '=')
		return 0;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	*v = p;
	return 1;
}

static const struct sweep_hooks repeat_hooks = {
    .seeds = repeat_seeds,
    .progress = repeat_progress,
    .results = repeat_results,
};

int repeat_parse(struct sweep *sw, const char *file, int n, char *const sets[], int nsets,
		 FILE *err)
{
	const char *v, *errstr;
	char value[32], *end;
	uint32_t seed = 0;

	memset(sw, 0, sizeof(*sw));
	sw->file = file;
	sw->repeat = n;
	sw->hooks = &repeat_hooks;
	strfmt(sw->key, sizeof(sw->key), "seed");
	if (n < 1 || n > REPEAT_MAX) {
		fprintf(err, "steerlab: run: --repeat %d: expected from 1 to %d runs\n", n,
			REPEAT_MAX);
		return -1;
	}
	if (nsets > TOPO_MAX_SETS - 1) {
		fprintf(err, "steerlab: run: at most %d --set options with --repeat\n",
			TOPO_MAX_SETS - 1);
		return -1;
	}
	for (int i = 0; i < nsets; i++) {
		if (strchr(sets[i], ',') != NULL) {
			fprintf(
			    err,
			    "steerlab: run: --repeat runs one scenario, but --set %s has several "
			    "values: to vary a parameter, use steerlab sweep\n",
			    sets[i]);
			return -1;
		}
		if (!repeat_seed_set(sets[i], &v)) {
			sw->fixed[sw->nfixed++] = sets[i];
			continue;
		}
		if (sw->seed_given) {
			fprintf(err, "steerlab: run: --set seed given twice\n");
			return -1;
		}
		strfmt(value, sizeof(value), "%s", v);
		for (end = value + strlen(value);
		     end > value && (end[-1] == ' ' || end[-1] == '\t');)
			*--end = '\0';
		if (strcmp(value, "random") == 0)
			continue;
		seed = (uint32_t)strtonum(value, 0, JITTER_SEED_MAX, &errstr);
		if (errstr != NULL) {
			fprintf(err,
				"steerlab: run: --set %s: expected random or a whole number from 0 "
				"to %lu (the repeat's seed)\n",
				sets[i], (unsigned long)JITTER_SEED_MAX);
			return -1;
		}
		sw->seed_given = 1;
	}
	if (!sw->seed_given && jitter_random_seed(&seed) == -1) {
		fprintf(err, "steerlab: run: getrandom: %s\n", strerror(errno));
		return -1;
	}
	repeat_seeds(sw, seed);
	return 0;
}

void repeat_seeds(struct sweep *sw, uint32_t seed)
{
	size_t off = 0;

	sw->seed = seed;
	sw->nvalues = sw->repeat;
	for (int i = 0; i < sw->repeat; i++) {
		char *v = sw->store + off;
		int len = snprintf(v, sizeof(sw->store) - off, "%lu",
				   (unsigned long)jitter_rep_seed(seed, (unsigned)i + 1));

		off += (size_t)len + 1;
		sw->values[i] = v;
		strfmt(sw->names[i], sizeof(sw->names[0]), "rep-%d", i + 1);
	}
}

void repeat_progress(const struct sweep *sw, const char *dir, int i)
{
	char path[PATH_MAX], line[512];
	json_t *root, *schemes, *o, *v;
	const char *name;
	size_t off;

	strfmt(path, sizeof(path), "%s/%s/clocks.json", dir, sw->names[i]);
	if ((root = json_load_file(path, 0, NULL)) == NULL)
		return;
	strfmt(line, sizeof(line), "steerlab: rep %d/%d done (seed %s", i + 1, sw->nvalues,
	       sw->values[i]);
	v = json_object_get(json_object_get(root, "failed"), "jitter_offset_s");
	off = strlen(line);
	if (json_is_number(v))
		strfmt(line + off, sizeof(line) - off, ", failure %.3f s after fail_at)",
		       json_number_value(v));
	else
		strfmt(line + off, sizeof(line) - off, ")");
	schemes = json_object_get(root, "schemes");
	json_object_foreach(schemes, name, o)
	{
		json_t *d = json_object_get(o, "detect_s"), *w = json_object_get(o, "window_s");
		off = strlen(line);
		strfmt(line + off, sizeof(line) - off, "%s %s: detect ", off ? "," : "", name);
		off = strlen(line);
		if (json_is_number(d))
			strfmt(line + off, sizeof(line) - off, "%.3f s", json_number_value(d));
		else
			strfmt(line + off, sizeof(line) - off, "-");
		off = strlen(line);
		if (json_is_number(w))
			strfmt(line + off, sizeof(line) - off, " window %s%.3f s",
			       json_is_true(json_object_get(o, "window_lower_bound")) ? "\u2265 "
										      : "",
			       json_number_value(w));
	}
	off = strlen(line);
	if (json_is_false(json_object_get(root, "valid")))
		strfmt(line + off, sizeof(line) - off, "; INVALID (its report.md says why)");
	printf("%s\n", line);
	fflush(stdout);
	json_decref(root);
}

/* repeat_plot_fill: spread.png's script for gnuplot's standard input */
static void repeat_plot_fill(FILE *fp, const void *arg)
{
	const struct sweep_plot_arg *a = arg;

	repeat_gp_text(a->sw, a->tb, fp, 1);
}

static void repeat_write_gp(const struct sweep *sw, const struct sweep_table *tb, FILE *out)
{
	repeat_gp_text(sw, tb, out, 0);
}

static void repeat_say_invalid(const struct sweep *sw, int invalid)
{
	printf("steerlab: repeat: %d of %d runs INVALID, left out of the statistics (see "
	       "stats.md and each run's report.md)\n",
	       invalid, sw->nvalues);
}

int repeat_results(const struct sweep *sw, const char *dir)
{
	static const struct sweep_output out = {
	    .what = "repeat",
	    .nfiles = 4,
	    .files = {"repeat.csv", "stats.csv", "stats.md", "spread.gp"},
	    .writers = {repeat_write_csv, repeat_write_stats_csv, repeat_write_md, repeat_write_gp},
	    .units = {"jitter_offset_s=s, *_s=s, *_lost_client=requests, "
		      "*_lost_capture=requests, *_upstream_queries=queries",
		      "min, median, p95, max, model_*: the clock's unit (its name's "
		      "suffix: _s=s, else a count)"},
	    .shown = repeat_write_md,
	    .png = "spread.png",
	    .fill = repeat_plot_fill,
	    .invalid = repeat_say_invalid,
	};

	return sweep_output_write(sw, dir, &out);
}
