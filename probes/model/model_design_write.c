/* A design written out: its header, the table of the points that meet
 * its targets, cheapest first, and the JSON of every point; see
 * model_design.h. */
#include "model_design.h"

#include <math.h>
#include <string.h>

static const char *const write_design_scheme[MODEL_SCHEMES] = {"anycast", "dns"};

/* the ranking's rule, as printed and in the JSON */
static const char write_rule[] =
    "upstream DNS queries a second at authd, then probes a second, then the first target's "
    "statistic (best first)";

static const char *write_how(const struct model_input *in)
{
	return in->how == MODEL_HOW_OTHER ? "failure" : model_how_name(in->how);
}

/* write_unit_label: a column's unit for clock i */
static const char *write_unit_label(int clock)
{
	switch (design_clock_unit(clock)) {
	case DESIGN_SECONDS:
		return " (s)";
	case DESIGN_FRACTION:
		return " (%)";
	case DESIGN_RATE:
		return " (/s)";
	default:
		return "";
	}
}

/* write_stat: statistic x of clock i, as the table shows it */
static void write_stat(int clock, double x, char *buf, size_t len)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else if (design_clock_unit(clock) == DESIGN_SECONDS)
		snprintf(buf, len, "%.3f", x);
	else if (design_clock_unit(clock) == DESIGN_FRACTION)
		snprintf(buf, len, "%.4f", x * 100);
	else if (design_clock_unit(clock) == DESIGN_RATE)
		snprintf(buf, len, "%.2f", x);
	else
		snprintf(buf, len, "%.0f", x);
}

/* write_header: the column title of target i, "dns.window p95 (s)" */
static void write_header(const struct design_target *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s %s%s", write_design_scheme[t->scheme],
		 design_clock_name(t->clock), design_stat_name(t->stat),
		 write_unit_label(t->clock));
}

/* write_counts: how many points meet, miss and are not modelled */
static void write_counts(const struct design_point *p, long n, long c[3])
{
	c[0] = c[1] = c[2] = 0;
	for (long i = 0; i < n; i++)
		c[p[i].status == 1 ? 0 : p[i].status == 0 ? 1 : 2]++;
}

/* write_nearest: the point that misses by the least, on the first
 * target's statistic; -1 if none */
static long write_nearest(const struct design *d, const struct design_point *p)
{
	const struct design_target *t = &d->targets[0];
	int lower = t->op == DESIGN_LE || t->op == DESIGN_LT;
	long best = -1;

	for (long i = 0; i < d->npoints; i++) {
		if (p[i].status != 0 || isnan(p[i].got[0]))
			continue;
		if (best < 0 ||
		    (lower ? p[i].got[0] < p[best].got[0] : p[i].got[0] > p[best].got[0]))
			best = i;
	}
	return best;
}

/* write_set: point p's values as "ttl=30 probe_interval=1s" */
static void write_set(const struct design *d, const struct design_point *p, char *buf, size_t len)
{
	size_t n = 0;

	snprintf(buf, len, "%s", d->nvary ? "" : "the topology as set");
	for (int k = 0; k < d->nvary && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", k ? " " : "", d->vary[k].key,
				      d->vary[k].value[p->vi[k]]);
}

void design_print(const struct design *d, const struct model_input *in,
		  const struct design_point *p, const int order[], int nmeet, int max, FILE *out)
{
	char buf[256];
	int width[DESIGN_MAX_KEYS], twidth[DESIGN_MAX_TARGETS];
	long c[3];
	int rows = max > 0 && nmeet > max ? max : nmeet;

	write_counts(p, d->npoints, c);
	fprintf(out,
		"lab %s: the settings that meet the target%s, cheapest first (docs/model.md, "
		"\"Inverse design\")\n",
		in->lab, d->ntargets > 1 ? "s" : "");
	fprintf(out, "each point: the model of a %s of site %s at %g s", write_how(in), in->site,
		in->fail_at_s);
	if (in->fail_jitter_s > 0)
		fprintf(out, " (+ up to %g s: fail_jitter)", in->fail_jitter_s);
	fprintf(out, ", the traffic running %g s", in->duration_s);
	if (in->duration_s > d->duration_s)
		fprintf(out,
			" (not the lab's %g s: no clock cut short, the first fills' queries "
			"spread over a day)",
			d->duration_s);
	fprintf(out, "\n");
	for (int i = 0; i < d->ntargets; i++)
		fprintf(out, "%-8s%s\n", i ? "" : "target:", d->targets[i].text);
	for (int k = 0; k < d->nvary; k++) {
		fprintf(out, "%-8s%s =", k ? "" : "vary:", d->vary[k].key);
		for (int j = 0; j < d->vary[k].n; j++)
			fprintf(out, " %s", d->vary[k].value[j]);
		fprintf(out, " (%d: %s)\n", d->vary[k].n,
			design_series_text(&d->vary[k], buf, sizeof(buf)));
	}
	fprintf(out, "%ld point%s, %u draws each", d->npoints, d->npoints == 1 ? "" : "s",
		d->search_samples ? d->search_samples : MODEL_SAMPLES);
	if (d->search_samples && d->search_samples != MODEL_SAMPLES)
		fprintf(out, " (the %ld that met or missed by at most %g %% again with %u)",
			d->nfull, DESIGN_NEAR * 100, MODEL_SAMPLES);
	fprintf(out, ": %ld meet%s, %ld miss%s", c[0], c[0] == 1 ? "s" : "", c[1],
		c[1] == 1 ? "es" : "");
	if (c[2])
		fprintf(out, ", %ld not modelled", c[2]);
	if (d->seconds >= 0)
		fprintf(out, ", in %.2f s", d->seconds);
	fprintf(out, "\ncost: upstream q/s, authd's queries a second; probes/s, each [prober] "
		     "probing every site and each site's own prober its service\n");
	fprintf(out, "ranked by %s\n\n", write_rule);
	if (c[2]) {
		for (long i = 0; i < d->npoints; i++)
			if (p[i].status == -1) {
				fprintf(out, "not modelled at %ld point%s: %s: %s\n\n", c[2],
					c[2] == 1 ? "" : "s", d->targets[p[i].why_target].text,
					p[i].why);
				break;
			}
	}
	if (nmeet == 0) {
		long best = write_nearest(d, p);

		fprintf(out, "no point meets the target%s\n", d->ntargets > 1 ? "s" : "");
		if (best >= 0) {
			char set[256], x[32];

			write_set(d, &p[best], set, sizeof(set));
			write_stat(d->targets[0].clock, p[best].got[0], x, sizeof(x));
			fprintf(out, "the nearest: %s (%s.%s %s = %s)\n", set,
				write_design_scheme[d->targets[0].scheme],
				design_clock_name(d->targets[0].clock),
				design_stat_name(d->targets[0].stat), x);
		}
		return;
	}
	for (int k = 0; k < d->nvary; k++) {
		width[k] = (int)strlen(d->vary[k].key);
		for (int j = 0; j < d->vary[k].n; j++)
			if ((int)strlen(d->vary[k].value[j]) > width[k])
				width[k] = (int)strlen(d->vary[k].value[j]);
	}
	fprintf(out, "%4s", "#");
	for (int k = 0; k < d->nvary; k++)
		fprintf(out, "  %*s", width[k], d->vary[k].key);
	fprintf(out, "  %12s  %9s", "upstream q/s", "probes/s");
	for (int i = 0; i < d->ntargets; i++) {
		write_header(&d->targets[i], buf, sizeof(buf));
		twidth[i] = (int)strlen(buf) > 10 ? (int)strlen(buf) : 10;
		fprintf(out, "  %*s", twidth[i], buf);
	}
	fprintf(out, "\n");
	for (int r = 0; r < rows; r++) {
		const struct design_point *x = &p[order[r]];

		fprintf(out, "%4d", r + 1);
		for (int k = 0; k < d->nvary; k++)
			fprintf(out, "  %*s", width[k], d->vary[k].value[x->vi[k]]);
		if (!x->dns)
			fprintf(out, "  %12s", "n/a");
		else if (!x->upstream_known)
			fprintf(out, "  %12s", "-");
		else
			fprintf(out, "  %12.4f", x->upstream_per_s);
		fprintf(out, "  %9.2f", x->probes_per_s);
		for (int i = 0; i < d->ntargets; i++) {
			write_stat(d->targets[i].clock, x->got[i], buf, sizeof(buf));
			fprintf(out, "  %*s", twidth[i], buf);
		}
		fprintf(out, "\n");
	}
	if (rows < nmeet)
		fprintf(out, "... and %d more that meet (--json lists every point)\n",
			nmeet - rows);
}

static json_t *write_num(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

/* write_point: point p as JSON (rank 0: not ranked) */
static json_t *write_point(const struct design *d, const struct design_point *p, int rank)
{
	json_t *o = json_object(), *set = json_object(), *tg = json_array();

	if (!o || !set || !tg) {
		json_decref(o);
		json_decref(set);
		json_decref(tg);
		return NULL;
	}
	for (int k = 0; k < d->nvary; k++)
		json_object_set_new(set, d->vary[k].key, json_string(d->vary[k].value[p->vi[k]]));
	for (int i = 0; i < d->ntargets; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "target", json_string(d->targets[i].text));
		json_object_set_new(t, "value", write_num(p->got[i]));
		json_object_set_new(t, "met",
				    isnan(p->got[i]) ? json_null()
						     : json_boolean(design_target_meets(
							   &d->targets[i], p->got[i])));
		if (isnan(p->iv[i][0]))
			json_object_set_new(t, "interval", json_null());
		else
			json_object_set_new(t, "interval",
					    json_pack("{s:f, s:f, s:f, s:f, s:f}", "p5",
						      p->iv[i][0], "p50", p->iv[i][1], "p95",
						      p->iv[i][2], "min", p->iv[i][3], "max",
						      p->iv[i][4]));
		json_array_append_new(tg, t);
	}
	if (rank)
		json_object_set_new(o, "rank", json_integer(rank));
	json_object_set_new(o, "set", set);
	json_object_set_new(o, "upstream_queries_per_s",
			    p->dns && p->upstream_known ? json_real(p->upstream_per_s)
			    : p->dns			? json_null()
							: json_real(0));
	json_object_set_new(o, "probes_per_s", json_real(p->probes_per_s));
	json_object_set_new(o, "probes_remote_per_s", json_real(p->probes_remote_per_s));
	json_object_set_new(o, "samples", json_integer(p->samples));
	json_object_set_new(o, "targets", tg);
	if (p->status == -1)
		json_object_set_new(o, "not_modelled",
				    json_pack("{s:s, s:s}", "target",
					      d->targets[p->why_target].text, "why", p->why));
	return o;
}

json_t *design_json(const struct design *d, const struct model_input *in,
		    const struct design_point *p, const int order[], int nmeet)
{
	json_t *o, *targets = json_array(), *vary = json_array(), *meet = json_array(),
		   *miss = json_array(), *nm = json_array();
	char buf[256];

	if (!targets || !vary || !meet || !miss || !nm)
		goto fail;
	for (int i = 0; i < d->ntargets; i++) {
		const struct design_target *t = &d->targets[i];

		json_array_append_new(targets,
				      json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "target", t->text,
						"scheme", write_design_scheme[t->scheme], "clock",
						design_clock_name(t->clock), "stat",
						design_stat_name(t->stat), "op",
						design_op_name(t->op), "value", t->value));
	}
	for (int k = 0; k < d->nvary; k++) {
		json_t *values = json_array();

		for (int j = 0; values && j < d->vary[k].n; j++)
			json_array_append_new(values, json_string(d->vary[k].value[j]));
		json_array_append_new(
		    vary, json_pack("{s:s, s:o, s:s}", "key", d->vary[k].key, "values", values,
				    "series", design_series_text(&d->vary[k], buf, sizeof(buf))));
	}
	for (int r = 0; r < nmeet; r++)
		json_array_append_new(meet, write_point(d, &p[order[r]], r + 1));
	for (long i = 0; i < d->npoints; i++)
		if (p[i].status != 1)
			json_array_append_new(p[i].status == 0 ? miss : nm,
					      write_point(d, &p[i], 0));
	o = json_pack("{s:s, s:s, s:{s:s, s:s, s:f}, s:f, s:f, s:{s:i, s:i, s:I}, s:o, s:o, s:I, "
		      "s:s, s:o, s:o, s:o}",
		      "lab", in->lab, "file", d->file, "failed", "site", in->site, "how",
		      write_how(in), "at_s", in->fail_at_s, "traffic_s", in->duration_s,
		      "lab_duration_s", d->duration_s, "samples", "search",
		      (int)(d->search_samples ? d->search_samples : MODEL_SAMPLES), "full",
		      MODEL_SAMPLES, "again", (json_int_t)d->nfull, "targets", targets, "vary",
		      vary, "points", (json_int_t)d->npoints, "rank", write_rule, "meet", meet,
		      "miss", miss, "not_modelled", nm);
	return o;
fail:
	json_decref(targets);
	json_decref(vary);
	json_decref(meet);
	json_decref(miss);
	json_decref(nm);
	return NULL;
}
