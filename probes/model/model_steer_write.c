/*
 * The steady state of the steering written (model_steer.h): a block shaped
 * as a run's steering table (docs/clocks.md, "Steering": a row per scheme and
 * per name, each site's share, the deviation, the requests, the mean RTT,
 * a name's upstream queries) with the p50 in the columns and each interval
 * on a line of its own, and the same as JSON with the keys of clocks.json's
 * steering names.
 */
#include "model_steer.h"

#include <math.h>
#include <string.h>

static const char *const steer_scheme_name[MODEL_SCHEMES] = {"anycast", "dns"};

/* steer_varies: v differs between the draws */
static int steer_varies(const struct model_iv *v)
{
	return v->known && v->min != v->max;
}

static const char *steer_iv(char *buf, size_t len, const struct model_iv *v, double scale,
			    int decimals)
{
	if (!v->known)
		snprintf(buf, len, "-");
	else if (v->p5 == v->p95)
		snprintf(buf, len, "%.*f", decimals, v->p50 * scale);
	else
		snprintf(buf, len, "%.*f (%.*f-%.*f)", decimals, v->p50 * scale, decimals,
			 v->p5 * scale, decimals, v->p95 * scale);
	return buf;
}

/* steer_line: row w of the table (its shown rows: schemes and names),
 * each value its p50 */
static void steer_line(const struct model_steer_input *in, const struct model_steer_row *w,
		       FILE *out)
{
	char dev[32] = "-", rtt[32] = "-", up[32] = "-";

	fprintf(out, "%-8s %-16.16s %-11s |", steer_scheme_name[w->scheme],
		w->name[0] ? w->name : "(all)", w->policy ? w->policy : "");
	for (int s = 0; s < in->nsites; s++)
		if (w->known)
			fprintf(out, " %6.1f%%", w->share[s].p50 * 100);
		else
			fprintf(out, " %7s", "-");
	if (w->deviation.known)
		snprintf(dev, sizeof(dev), "%.3f", w->deviation.p50);
	if (w->rtt_ms.known)
		snprintf(rtt, sizeof(rtt), "%.3f", w->rtt_ms.p50);
	if (w->upstream_known)
		snprintf(up, sizeof(up), "%.0f", w->upstream.p50);
	if (w->known)
		fprintf(out, " | %9s | %8.0f | %8s", dev, w->requests, rtt);
	else
		fprintf(out, " | %9s | %8s | %8s", dev, "-", rtt);
	if (w->name[0])
		fprintf(out, "   upstream queries %s", up);
	fputc('\n', out);
}

/* steer_sep: "  WHO: " before the first item of a line, sep before the
 * others */
static const char *steer_sep(int *n, const char *who, const char *sep)
{
	static char buf[MODEL_STEER_DNAME + 8];

	if ((*n)++)
		return sep;
	snprintf(buf, sizeof(buf), "  %s: ", who);
	return buf;
}

/* steer_shown: a row of the table: a scheme's or a name's, not a group's */
static int steer_shown(const struct model_steer_row *w)
{
	return w->group[0] == '\0';
}

void model_steer_print(const struct model_steer_input *in, const struct model_steer_result *r,
		       FILE *out)
{
	char b[64];
	int any = 0;

	fprintf(out,
		"\nsteering: the steady state (%s, %.1f s from the start of the traffic; %u draws; "
		"docs/model.md, \"Steady state\")\n",
		in->period_s > in->duration_s ? "the whole traffic" : "before the failure",
		in->period_s, r->samples);
	fprintf(out, "%-8s %-16s %-11s |", "scheme", "row", "policy");
	for (int s = 0; s < in->nsites; s++)
		fprintf(out, " %7.7s", in->sites[s]);
	fprintf(out, " | deviation | requests | rtt mean (ms)\n");
	fprintf(out, "(each value its p50 over the draws; below, p50 (p5-p95) of those that "
		     "vary with the order of the fills)\n");
	for (int i = 0; i < r->nrows; i++)
		if (steer_shown(&r->rows[i]))
			steer_line(in, &r->rows[i], out);
	/* what the order of the fills makes random: each interval */
	for (int i = 0; i < r->nrows; i++) {
		const struct model_steer_row *w = &r->rows[i];
		const char *who = w->name[0] ? w->name : steer_scheme_name[w->scheme];
		int n = 0;

		if (!steer_shown(w) || !w->known)
			continue;
		for (int s = 0; s < in->nsites; s++)
			if (steer_varies(&w->share[s]))
				fprintf(out, "%s%s %s %%", steer_sep(&n, who, ", "), in->sites[s],
					steer_iv(b, sizeof(b), &w->share[s], 100, 1));
		if (steer_varies(&w->deviation))
			fprintf(out, "%sdeviation %s", steer_sep(&n, who, "; "),
				steer_iv(b, sizeof(b), &w->deviation, 1, 3));
		if (steer_varies(&w->rtt_ms))
			fprintf(out, "%srtt %s ms", steer_sep(&n, who, "; "),
				steer_iv(b, sizeof(b), &w->rtt_ms, 1, 2));
		if (w->upstream_known && steer_varies(&w->upstream))
			fprintf(out, "%supstream queries %s", steer_sep(&n, who, "; "),
				steer_iv(b, sizeof(b), &w->upstream, 1, 0));
		if (n)
			fputc('\n', out);
	}
	for (int i = 0; i < r->nrows; i++) {
		const struct model_steer_row *w = &r->rows[i];
		int same = 0;

		if (!steer_shown(w))
			continue;
		/* each name's target, once for names of one target */
		for (int j = 0; j < i && w->name[0]; j++)
			same |= r->rows[j].name[0] && !r->rows[j].group[0] && r->rows[j].known &&
				r->rows[j].has_target &&
				memcmp(r->rows[j].target, w->target, sizeof(w->target)) == 0;
		if (w->known && w->has_target && w->name[0] && !same) {
			fprintf(out, "  target");
			for (int s = 0; s < in->nsites; s++)
				fprintf(out, " %s %.1f%%", in->sites[s], w->target[s] * 100);
			fprintf(out, ": %s", w->name);
			for (int j = i + 1; j < r->nrows; j++)
				if (steer_shown(&r->rows[j]) && r->rows[j].name[0] &&
				    r->rows[j].known && r->rows[j].has_target &&
				    memcmp(r->rows[j].target, w->target, sizeof(w->target)) == 0)
					fprintf(out, ", %s", r->rows[j].name);
			fputc('\n', out);
		}
		if (!w->known && (w->name[0] || !any++))
			fprintf(out, "  %s: not modelled: %s\n",
				w->name[0] ? w->name : steer_scheme_name[w->scheme], w->why);
	}
}

static json_t *steer_iv_json(const struct model_iv *v)
{
	if (!v->known)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "p5", v->p5, "p50", v->p50, "p95", v->p95,
			 "min", v->min, "max", v->max);
}

json_t *model_steer_row_json(const struct model_steer_input *in, const struct model_steer_row *w)
{
	json_t *o = json_object(), *share = json_object(), *target = json_object(),
	       *why = json_object();

	if (!o || !share || !target || !why) {
		json_decref(o);
		json_decref(share);
		json_decref(target);
		json_decref(why);
		return NULL;
	}
	for (int s = 0; s < in->nsites; s++) {
		json_object_set_new(share, in->sites[s], steer_iv_json(&w->share[s]));
		json_object_set_new(target, in->sites[s], json_real(w->target[s]));
	}
	if (w->policy)
		json_object_set_new(o, "policy", json_string(w->policy));
	json_object_set_new(o, "requests", json_integer((json_int_t)llround(w->requests)));
	json_object_set_new(o, "share", w->known ? share : (json_decref(share), json_null()));
	if (w->has_target) {
		json_object_set_new(o, "target", target);
		json_object_set_new(o, "deviation", steer_iv_json(&w->deviation));
	} else {
		json_decref(target);
	}
	json_object_set_new(o, "rtt_mean_ms", steer_iv_json(&w->rtt_ms));
	if (w->name[0] && !w->group[0])
		json_object_set_new(o, "upstream_queries", steer_iv_json(&w->upstream));
	if (!w->known)
		json_object_set_new(why, "share", json_string(w->why));
	if (w->name[0] && !w->group[0] && !w->upstream_known)
		json_object_set_new(why, "upstream_queries", json_string(w->upstream_why));
	json_object_set_new(o, "not_modelled", why);
	return o;
}

json_t *model_steer_json(const struct model_steer_input *in, const struct model_steer_result *r)
{
	json_t *o = json_object(), *sites = json_array(), *schemes = json_object(),
	       *names = json_object(), *groups = json_array();

	if (!o || !sites || !schemes || !names || !groups)
		goto fail;
	for (int s = 0; s < in->nsites; s++)
		json_array_append_new(sites, json_string(in->sites[s]));
	for (int i = 0; i < r->nrows; i++) {
		const struct model_steer_row *w = &r->rows[i];
		json_t *row = model_steer_row_json(in, w);

		if (row == NULL)
			goto fail;
		if (w->group[0]) {
			json_object_set_new(row, "scheme",
					    json_string(steer_scheme_name[w->scheme]));
			json_object_set_new(row, "group", json_string(w->group));
			if (w->scheme == MODEL_DNS)
				json_object_set_new(
				    row, "name", w->name[0] ? json_string(w->name) : json_null());
			json_array_append_new(groups, row);
		} else if (w->name[0]) {
			json_object_set_new(names, w->name, row);
		} else {
			json_object_set_new(schemes, steer_scheme_name[w->scheme], row);
		}
	}
	if (json_object_get(schemes, "dns") && json_object_size(names) > 0)
		json_object_set_new(json_object_get(schemes, "dns"), "names", names);
	else
		json_decref(names);
	json_object_set_new(o, "period_s", json_real(in->period_s));
	json_object_set_new(o, "duration_s", json_real(in->duration_s));
	json_object_set_new(o, "samples", json_integer(r->samples));
	json_object_set_new(o, "sites", sites);
	json_object_set_new(o, "schemes", schemes);
	json_object_set_new(o, "groups", groups);
	return o;
fail:
	json_decref(o);
	json_decref(sites);
	json_decref(schemes);
	json_decref(names);
	json_decref(groups);
	return NULL;
}
