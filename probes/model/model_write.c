/*
 * The predictions written out (docs/model.md, "Output"): a table in the
 * shape of a run's (docs/clocks.md, "The table"), and JSON with the keys
 * of clocks.json's schemes, each clock an interval {p5, p50, p95, min,
 * max} or null. See model.h.
 */
#include "model.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const write_scheme_name[MODEL_SCHEMES] = {"anycast", "dns"};

/* write_iv: v scaled, "P50 (P5-P95)", or P50 alone when the draws agree */
static const char *write_iv(const struct model_iv *v, double scale, int decimals, char *buf,
			    size_t len)
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

const char *model_iv_text(const struct model_iv *v, const char *unit, int decimals, char *buf,
			  size_t len)
{
	char num[96];

	write_iv(v, 1, decimals, num, sizeof(num));
	if (!v->known || !unit || !unit[0])
		snprintf(buf, len, "%s", num);
	else if (v->p5 == v->p95)
		snprintf(buf, len, "%s %s", num, unit);
	else /* "0.250 s (0.205-0.295)" */
		snprintf(buf, len, "%.*f %s (%.*f-%.*f)", decimals, v->p50, unit, decimals, v->p5,
			 decimals, v->p95);
	return buf;
}

/* a row of the table: its label, and which clock of a scheme, scaled */
struct write_row {
	const char *label;
	size_t off; /* of the struct model_iv in struct model_scheme_result */
	double scale;
	int decimals;
	int dns_only; /* 1: a DNS row; 2: a row of TCP and HTTP clients alone */
};

#define ROW(l, f, sc, d, o)                                                                        \
	{                                                                                          \
		l, offsetof(struct model_scheme_result, f), sc, d, o                               \
	}

static const struct write_row write_rows[] = {
    ROW("detect (s)", detect, 1, 3, 0),
    ROW("steer (s)", steer, 1, 3, 0),
    ROW("window (s)", window, 1, 3, 0),
    ROW("last packet p50 (s)", last_p50, 1, 3, 0),
    ROW("last packet p99 (s)", last_p99, 1, 3, 0),
    ROW("last packet max (s)", last_max, 1, 3, 0),
    ROW("lost (requests)", lost, 1, 0, 0),
    ROW("errors (requests)", errors, 1, 0, 2),
    ROW("equivalent downtime (s)", equivalent_downtime, 1, 3, 0),
    ROW("budget used: downtime (%)", budget_share, 100, 4, 0),
    ROW("upstream DNS queries", upstream_queries, 1, 0, 1),
    ROW("upstream queries per s", upstream_per_s, 1, 2, 1),
};

/* after the recovery, when the timeline has one (s after it) */
static const struct write_row write_fb_rows[] = {
    ROW("fail-back healthy (s)", fb_healthy, 1, 3, 0),
    ROW("fail-back steer (s)", fb_steer, 1, 3, 0),
    ROW("fail-back first (s)", fb_first, 1, 3, 0),
    ROW("fail-back last (s)", fb_last, 1, 3, 0),
};

/* write_row_line: row w of every present scheme */
static void write_row_line(const struct model_result *r, const struct write_row *w, FILE *out)
{
	char buf[128];

	fprintf(out, "%-28s", w->label);
	for (int s = 0; s < MODEL_SCHEMES; s++) {
		const struct model_iv *v =
		    (const struct model_iv *)((const char *)&r->s[s] + w->off);

		if (!r->s[s].present)
			continue;
		if (w->dns_only == 1 && s != MODEL_DNS)
			fprintf(out, "%26s", "n/a");
		else
			fprintf(out, "%26s", write_iv(v, w->scale, w->decimals, buf, sizeof(buf)));
	}
	fprintf(out, "\n");
}

void model_print(const struct model_input *in, const struct model_result *r,
		 const struct model_notes *notes, FILE *out)
{
	char buf[128];
	int any = 0;

	fprintf(out, "lab %s: the model of a %s of site %s at %g s (%u draws; docs/model.md)\n",
		in->lab, in->how == MODEL_HOW_OTHER ? "failure" : model_how_name(in->how), in->site,
		in->fail_at_s, model_draws(in));
	fprintf(out, "(clocks in seconds after t0: p50 (p5-p95) over the random phases; a single "
		     "value: the same in every draw)\n\n");
	fprintf(out, "%-28s", "");
	for (int s = 0; s < MODEL_SCHEMES; s++)
		if (r->s[s].present)
			fprintf(out, "%26s", write_scheme_name[s]);
	fprintf(out, "\n");
	for (size_t i = 0; i < sizeof(write_rows) / sizeof(write_rows[0]); i++)
		if (write_rows[i].dns_only != 2 || r->s[MODEL_ANYCAST].tcp || r->s[MODEL_DNS].tcp)
			write_row_line(r, &write_rows[i], out);
	if (in->recover_at_s >= 0) {
		fprintf(out, "recovered (s)%15s", "");
		for (int s = 0; s < MODEL_SCHEMES; s++)
			if (r->s[s].present)
				fprintf(out, "%26.3f", in->recover_at_s - in->fail_at_s);
		fprintf(out, "\n");
		for (size_t i = 0; i < sizeof(write_fb_rows) / sizeof(write_fb_rows[0]); i++)
			write_row_line(r, &write_fb_rows[i], out);
	}
	fprintf(out, "%-28s", "clients");
	for (int s = 0; s < MODEL_SCHEMES; s++)
		if (r->s[s].present)
			fprintf(out, "%26d", r->s[s].clients);
	fprintf(out, "\n%-28s", "request rate (/s)");
	for (int s = 0; s < MODEL_SCHEMES; s++)
		if (r->s[s].present)
			fprintf(out, "%26.0f", r->s[s].rate_per_s);
	fprintf(out, "\n\nlast packet per client (s after t0; 0: it was not on %s):\n", in->site);
	for (int s = 0; s < MODEL_SCHEMES; s++)
		for (int j = 0; j < r->s[s].clients; j++) {
			const struct model_client *c = &in->clients[r->s[s].client_index[j]];

			fprintf(out, "  %-8s %-8s %s\n", write_scheme_name[s], c->name,
				write_iv(&r->s[s].client_last[j], 1, 3, buf, sizeof(buf)));
		}
	fprintf(out, "\n-: not modelled; n/a: not a measure of that scheme\n\nassumptions:\n");
	for (int i = 0; i < notes->n; i++)
		if (!notes->not_modelled[i])
			fprintf(out, "  - %s\n", notes->text[i]);
	for (int i = 0; i < notes->n; i++)
		if (notes->not_modelled[i]) {
			if (!any++)
				fprintf(out, "\nnot modelled:\n");
			fprintf(out, "  - %s\n", notes->text[i]);
		}
}

static json_t *write_iv_json(const struct model_iv *v)
{
	if (!v->known)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "p5", v->p5, "p50", v->p50, "p95", v->p95,
			 "min", v->min, "max", v->max);
}

/* write_why: key's reason into o when v is not known */
static void write_why(json_t *o, const char *key, const struct model_iv *v)
{
	if (!v->known && v->why[0])
		json_object_set_new(o, key, json_string(v->why));
}

static json_t *write_scheme(const struct model_input *in, const struct model_result *r, int s)
{
	const struct model_scheme_result *sr = &r->s[s];
	json_t *o, *by = json_object(), *why = json_object();

	for (int j = 0; by && j < sr->clients; j++)
		json_object_set_new(by, in->clients[sr->client_index[j]].name,
				    write_iv_json(&sr->client_last[j]));
	o = json_pack("{s:o, s:o, s:o, s:{s:i, s:o, s:o, s:o}, s:o, s:o, s:o, s:{s:f, s:f, s:f, "
		      "s:o, s:o}}",
		      "detect_s", write_iv_json(&sr->detect), "steer_s", write_iv_json(&sr->steer),
		      "window_s", write_iv_json(&sr->window), "last_per_client_s", "clients",
		      sr->clients, "p50", write_iv_json(&sr->last_p50), "p99",
		      write_iv_json(&sr->last_p99), "max", write_iv_json(&sr->last_max),
		      "last_by_client_s", by, "lost_client", write_iv_json(&sr->lost),
		      "lost_capture", write_iv_json(&sr->lost_site), "budget", "slo_pct",
		      in->slo_pct, "budget_s", r->budget_s, "rate_per_s", sr->rate_per_s,
		      "equivalent_downtime_s", write_iv_json(&sr->equivalent_downtime),
		      "budget_share_downtime", write_iv_json(&sr->budget_share));
	if (o == NULL || why == NULL) {
		json_decref(o);
		json_decref(why);
		return NULL;
	}
	if (sr->tcp) {
		json_object_set_new(o, "errors", write_iv_json(&sr->errors));
		write_why(why, "errors", &sr->errors);
	}
	if (s == MODEL_DNS) {
		json_object_set_new(o, "upstream_queries", write_iv_json(&sr->upstream_queries));
		json_object_set_new(o, "upstream_queries_per_s",
				    write_iv_json(&sr->upstream_per_s));
		write_why(why, "upstream_queries", &sr->upstream_queries);
	}
	write_why(why, "detect_s", &sr->detect);
	write_why(why, "steer_s", &sr->steer);
	write_why(why, "window_s", &sr->window);
	write_why(why, "last_per_client_s", &sr->last_max);
	write_why(why, "lost_client", &sr->lost);
	if (in->recover_at_s >= 0) {
		/* clocks.json's failback keys, seconds after the recovery */
		json_object_set_new(o, "failback",
				    json_pack("{s:f, s:o, s:o, s:o, s:o}", "recovered_s",
					      in->recover_at_s - in->fail_at_s, "healthy_s",
					      write_iv_json(&sr->fb_healthy), "steer_s",
					      write_iv_json(&sr->fb_steer), "first_client_s",
					      write_iv_json(&sr->fb_first), "last_client_s",
					      write_iv_json(&sr->fb_last)));
		write_why(why, "failback", &sr->fb_healthy);
	}
	json_object_set_new(o, "not_modelled", why);
	return o;
}

json_t *model_json(const struct model_input *in, const struct model_result *r,
		   const struct model_notes *notes)
{
	json_t *o, *schemes = json_object(), *absent = json_array(), *as = json_array(),
		   *nm = json_array();

	if (!schemes || !absent || !as || !nm)
		goto fail;
	for (int s = 0; s < MODEL_SCHEMES; s++) {
		json_t *sc;

		if (!r->s[s].present) {
			json_array_append_new(absent, json_string(write_scheme_name[s]));
			continue;
		}
		if ((sc = write_scheme(in, r, s)) == NULL)
			goto fail;
		json_object_set_new(schemes, write_scheme_name[s], sc);
	}
	for (int i = 0; i < notes->n; i++)
		json_array_append_new(notes->not_modelled[i] ? nm : as,
				      json_string(notes->text[i]));
	o = json_pack("{s:s, s:i, s:I, s:{s:s, s:s, s:f, s:f}, s:o, s:o, s:o, s:o}", "lab", in->lab,
		      "samples", (int)(model_draws(in)), "seed", (json_int_t)in->seed, "failed",
		      "site", in->site, "how", model_how_name(in->how), "at_s", in->fail_at_s,
		      "jitter_s", in->fail_jitter_s, "schemes", schemes, "schemes_absent", absent,
		      "assumptions", as, "not_modelled", nm);
	return o;
fail:
	json_decref(schemes);
	json_decref(absent);
	json_decref(as);
	json_decref(nm);
	return NULL;
}

const char *model_how_name(int how)
{
	static const char *const name[] = {
	    [MODEL_KILL] = "kill",	 [MODEL_CRASH] = "crash",
	    [MODEL_FREEZE] = "freeze",	 [MODEL_DRAIN] = "drain",
	    [MODEL_DEGRADE] = "degrade", [MODEL_LINK_DOWN] = "link-down",
	    [MODEL_HOW_OTHER] = "other",
	};

	return how >= 0 && how <= MODEL_HOW_OTHER ? name[how] : "other";
}

void model_print_failures(const struct model_input *in, const struct model_result *r, int n,
			  FILE *out)
{
	static const char *const hdr[] = {"detect", "steer", "window", "last max", "lost"};
	int any = 0;

	if (n < 2)
		return;
	fprintf(out, "\nevery failure of the timeline (the model of each, the ones before it "
		     "settled; seconds after its own t0):\n");
	fprintf(out, "%-10s %-8s %-7s %8s %-8s", "failure", "site", "how", "at (s)", "scheme");
	for (size_t c = 0; c < sizeof(hdr) / sizeof(hdr[0]); c++)
		fprintf(out, " %21s", hdr[c]);
	fputc('\n', out);
	for (int k = 0; k < n; k++)
		for (int s = 0; s < MODEL_SCHEMES; s++) {
			const struct model_scheme_result *sr = &r[k].s[s];
			const struct model_iv *v[] = {&sr->detect, &sr->steer, &sr->window,
						      &sr->last_max, &sr->lost};
			char buf[96];

			if (!sr->present)
				continue;
			fprintf(out, "%-10.10s %-8.8s %-7s %8.3f %-8s", in[k].event, in[k].site,
				model_how_name(in[k].how), in[k].fail_at_s, write_scheme_name[s]);
			for (size_t c = 0; c < sizeof(v) / sizeof(v[0]); c++)
				fprintf(out, " %21s",
					write_iv(v[c], 1, c == 4 ? 0 : 3, buf, sizeof(buf)));
			fputc('\n', out);
		}
	for (int k = 1; k < n; k++)
		for (int s = 0; s < MODEL_SCHEMES; s++) {
			const struct model_scheme_result *sr = &r[k].s[s];
			const struct model_iv *w = !sr->detect.known ? &sr->detect : &sr->window;

			if (!sr->present || w->known)
				continue;
			if (!any++)
				fprintf(out, "not modelled:\n");
			fprintf(out, "  - %s %s: %s\n", in[k].event, write_scheme_name[s], w->why);
		}
}

json_t *model_json_failures(const struct model_input *in, const struct model_result *r, int n)
{
	json_t *a = json_array();

	for (int k = 1; a && k < n; k++) {
		json_t *sc = json_object(), *o;

		for (int s = 0; sc && s < MODEL_SCHEMES; s++)
			if (r[k].s[s].present)
				json_object_set_new(sc, write_scheme_name[s],
						    write_scheme(&in[k], &r[k], s));
		o = json_pack("{s:s, s:s, s:s, s:f, s:o}", "name", in[k].event, "site", in[k].site,
			      "how", model_how_name(in[k].how), "at_s", in[k].fail_at_s, "schemes",
			      sc);
		if (o == NULL || json_array_append_new(a, o) == -1) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
