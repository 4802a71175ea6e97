/*
 * The steering table written (clocks_steering.h; docs/clocks.md,
 * "Steering"): on the terminal, in report.md and in clocks.json, one row
 * per scheme and client node, one per scheme, and one per name when the
 * groups ask several (seed 000's row per policy, side by side).
 */
#include "clocks_steering.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "clocks_int.h"
#include "clocks_model.h"

static const char *clocks_steer_ms(char *buf, size_t len, int64_t ns)
{
	if (ns == CLOCKS_NONE)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", (double)ns / 1e6);
	return buf;
}

/* clocks_steer_dev: a deviation as text, "-" for none (-1: no target) */
static const char *clocks_steer_dev(char *buf, size_t len, double dev)
{
	if (dev >= 0)
		snprintf(buf, len, "%.3f", dev);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* the texts of a row's cells that both tables print: its deviation ("-"
 * without a target) and its five times in ms (RTT mean, p50, p99; DNS
 * resolution p50, p99) */
struct clocks_steer_text {
	char dev[32], ms[5][32];
};

static void clocks_steer_text(const struct clocks_steer_row *r, struct clocks_steer_text *x)
{
	const int64_t ns[5] = {r->rtt.mean_ns, r->rtt.p50_ns, r->rtt.p99_ns, r->resolution.p50_ns,
			       r->resolution.p99_ns};

	clocks_steer_dev(x->dev, sizeof(x->dev), r->deviation);
	for (int k = 0; k < 5; k++)
		clocks_steer_ms(x->ms[k], sizeof(x->ms[k]), ns[k]);
}

/* clocks_steer_totals_each: fn for each total row: the schemes', then the
 * names' */
static void clocks_steer_totals_each(const struct clocks_input *in,
				     void (*fn)(FILE *out, const struct clocks_input *in,
						const struct clocks_steer_total *t),
				     FILE *out)
{
	const struct clocks_steering *s = in->steering;

	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++)
		if (s->total[sc].n > 0)
			fn(out, in, &s->total[sc]);
	for (int i = 0; i < s->nnames; i++)
		if (s->names[i].n > 0)
			fn(out, in, &s->names[i]);
}

static const char *clocks_steer_scheme(int sc)
{
	return sc == CLOCKS_SCHEME_DNS ? "dns" : "anycast";
}

static void clocks_steer_total_line(FILE *out, const struct clocks_input *in,
				    const struct clocks_steer_total *t)
{
	const struct clocks_steering *s = in->steering;
	char a[32], m[32];

	fprintf(out, "%-8s %-16.16s |", clocks_steer_scheme(t->scheme),
		t->name[0] ? t->name : "(all)");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, " %6.1f%%", t->share[k] * 100);
	clocks_steer_dev(a, sizeof(a), t->has_target ? t->deviation : -1);
	fprintf(out, " | %9s | %8lld | %8s", a, (long long)t->n,
		clocks_steer_ms(m, sizeof(m), t->rtt_mean_ns));
	if (t->name[0] && t->upstream != CLOCKS_NONE)
		fprintf(out, "   upstream queries %lld", (long long)t->upstream);
	fputc('\n', out);
	/* the model's row under it */
	clocks_model_steer_print_row(out, in, t, 0);
}

void clocks_steering_print(FILE *out, const struct clocks_input *in)
{
	const struct clocks_steering *s = in->steering;
	struct clocks_steer_text x;
	char b[32], c[32], d[32], e[32];

	if (s == NULL || s->nrows == 0)
		return;
	fprintf(out,
		"\nsteering (%s; shares from the site captures; docs/clocks.md, "
		"\"Steering\")\n",
		in->steady ? "the whole traffic" : "before t0");
	fprintf(out, "%-8s %-16s |", "scheme", "group");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, " %7.7s", s->sites[k]);
	fprintf(out, " | deviation | requests | rtt mean  rtt p50  rtt p99 (ms) | dns p50  dns "
		     "p99 (ms)\n");
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "%-8s %-16.16s |", clocks_steer_scheme(r->scheme),
			r->group[0] ? r->group : "?");
		for (int k = 0; k < s->nsites; k++)
			fprintf(out, " %6.1f%%", r->share[k] * 100);
		clocks_steer_text(r, &x);
		fprintf(out, " | %9s | %8lld | %8s %8s %8s      | %7s %8s\n", x.dev,
			(long long)r->ncaptured, x.ms[0], x.ms[1], x.ms[2], x.ms[3], x.ms[4]);
	}
	clocks_steer_totals_each(in, clocks_steer_total_line, out);
	if (s->nnames > 0)
		fprintf(out, "  a row named by a DNS name: every dns group asking it\n");
	clocks_model_steer_print_notes(out, in, 0);
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "  %s %s: target: %s\n", clocks_steer_scheme(r->scheme),
			r->group[0] ? r->group : "?", r->target_from);
		if (r->cache_hit.n + r->cache_miss.n > 0)
			fprintf(
			    out,
			    "  %s %s: cache hits %lld (p50 %s ms, p99 %s ms), misses %lld (p50 %s "
			    "ms, p99 %s ms)\n",
			    "dns", r->group[0] ? r->group : "?", (long long)r->cache_hit.n,
			    clocks_steer_ms(b, sizeof(b), r->cache_hit.p50_ns),
			    clocks_steer_ms(c, sizeof(c), r->cache_hit.p99_ns),
			    (long long)r->cache_miss.n,
			    clocks_steer_ms(d, sizeof(d), r->cache_miss.p50_ns),
			    clocks_steer_ms(e, sizeof(e), r->cache_miss.p99_ns));
	}
	if (s->upstream_queries != CLOCKS_NONE)
		fprintf(out, "upstream DNS queries in the period: %lld\n",
			(long long)s->upstream_queries);
}

static json_t *clocks_steer_json_ms(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / 1e6);
}

static json_t *clocks_steer_json_dist(const struct clocks_steer_dist *d)
{
	return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)d->n, "mean_ms",
			 clocks_steer_json_ms(d->mean_ns), "p50_ms",
			 clocks_steer_json_ms(d->p50_ns), "p99_ms",
			 clocks_steer_json_ms(d->p99_ns));
}

/* clocks_steer_json_total: a total row: requests, share, target and
 * deviation where every group has a target, rtt_mean_ms */
static json_t *clocks_steer_json_total(const struct clocks_input *in,
				       const struct clocks_steer_total *t)
{
	const struct clocks_steering *s = in->steering;
	const struct clocks_model_steer_row *w;
	json_t *outside = json_array();
	char text[8];
	json_t *to = json_object(), *share = json_object(), *target = json_object();

	for (int k = 0; k < s->nsites; k++) {
		json_object_set_new(share, s->sites[k], json_real(t->share[k]));
		json_object_set_new(target, s->sites[k], json_real(t->target[k]));
	}
	json_object_set_new(to, "requests", json_integer(t->n));
	json_object_set_new(to, "share", share);
	if (t->has_target) {
		json_object_set_new(to, "target", target);
		json_object_set_new(to, "deviation", json_real(t->deviation));
	} else {
		json_decref(target);
	}
	json_object_set_new(to, "rtt_mean_ms", clocks_steer_json_ms(t->rtt_mean_ns));
	if (t->name[0])
		json_object_set_new(to, "upstream_queries",
				    t->upstream == CLOCKS_NONE ? json_null()
							       : json_integer(t->upstream));
	/* the model beside it, with the same keys, and what lies outside it */
	clocks_model_steer_outside(in, t, &w, text, sizeof(text), outside);
	if (w && w->json) {
		json_t *mo = json_deep_copy(w->json);

		if (mo && outside)
			json_object_set(mo, "outside", outside);
		json_object_set_new(to, "model", mo ? mo : json_null());
	}
	json_decref(outside);
	return to;
}

json_t *clocks_steering_json(const struct clocks_input *in)
{
	const struct clocks_steering *s = in->steering;
	json_t *o, *rows, *sites;

	if (s == NULL)
		return NULL;
	o = json_object();
	rows = json_array();
	sites = json_array();
	for (int k = 0; k < s->nsites; k++)
		json_array_append_new(sites, json_string(s->sites[k]));
	json_object_set_new(o, "period", json_string(in->steady ? "traffic" : "before_t0"));
	json_object_set_new(o, "from_ns", json_integer(s->from_ns));
	json_object_set_new(o, "until_ns", json_integer(s->until_ns));
	json_object_set_new(o, "shares_from", json_string("captures"));
	json_object_set_new(o, "sites", sites);
	json_object_set_new(o, "upstream_queries",
			    s->upstream_queries == CLOCKS_NONE ? json_null()
							       : json_integer(s->upstream_queries));
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];
		json_t *row = json_object(), *share = json_object(), *target = json_object();
		json_t *cap = json_object(), *ans = json_object();

		for (int k = 0; k < s->nsites; k++) {
			json_object_set_new(share, s->sites[k], json_real(r->share[k]));
			json_object_set_new(cap, s->sites[k], json_integer(r->captured[k]));
			json_object_set_new(ans, s->sites[k], json_integer(r->answered[k]));
			if (r->has_target)
				json_object_set_new(target, s->sites[k], json_real(r->target[k]));
		}
		json_object_set_new(row, "scheme", json_string(clocks_steer_scheme(r->scheme)));
		json_object_set_new(row, "group", json_string(r->group));
		if (r->scheme == CLOCKS_SCHEME_DNS)
			json_object_set_new(row, "name",
					    r->name[0] ? json_string(r->name) : json_null());
		json_object_set_new(row, "requests", json_integer(r->ncaptured));
		json_object_set_new(row, "share", share);
		json_object_set_new(row, "captured", cap);
		json_object_set_new(row, "answered", ans);
		json_object_set_new(row, "answered_total", json_integer(r->nanswered));
		json_object_set_new(row, "records_disagreement",
				    r->disagreement < 0 ? json_null() : json_real(r->disagreement));
		if (r->has_target) {
			json_object_set_new(row, "target", target);
			if (r->deviation >= 0)
				json_object_set_new(row, "deviation", json_real(r->deviation));
		} else {
			json_decref(target);
		}
		json_object_set_new(row, "target_from", json_string(r->target_from));
		json_object_set_new(row, "rtt", clocks_steer_json_dist(&r->rtt));
		if (r->scheme == CLOCKS_SCHEME_DNS) {
			json_object_set_new(row, "resolution",
					    clocks_steer_json_dist(&r->resolution));
			json_object_set_new(row, "cache_hit",
					    clocks_steer_json_dist(&r->cache_hit));
			json_object_set_new(row, "cache_miss",
					    clocks_steer_json_dist(&r->cache_miss));
		}
		json_array_append_new(rows, row);
	}
	json_object_set_new(o, "groups", rows);
	json_t *schemes = json_object(), *names = json_object();
	for (int sc = CLOCKS_SCHEME_ANYCAST; sc <= CLOCKS_SCHEME_DNS; sc++)
		if (s->total[sc].n > 0)
			json_object_set_new(schemes, clocks_steer_scheme(sc),
					    clocks_steer_json_total(in, &s->total[sc]));
	for (int i = 0; i < s->nnames; i++)
		if (s->names[i].n > 0)
			json_object_set_new(names, s->names[i].name,
					    clocks_steer_json_total(in, &s->names[i]));
	if (s->nnames > 0 && json_object_get(schemes, "dns"))
		json_object_set_new(json_object_get(schemes, "dns"), "names", names);
	else
		json_decref(names);
	json_object_set_new(o, "schemes", schemes);
	/* how the model rows were made (clocks_model.h) */
	json_t *model = clocks_model_steer_json(in);
	if (model)
		json_object_set_new(o, "model", model);
	return o;
}

static void clocks_steer_total_md(FILE *out, const struct clocks_input *in,
				  const struct clocks_steer_total *t)
{
	const struct clocks_steering *s = in->steering;
	char a[32], m[32];

	fprintf(out, "| %s | %s |", clocks_steer_scheme(t->scheme), t->name[0] ? t->name : "(all)");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, " %.1f %% |", t->share[k] * 100);
	clocks_steer_dev(a, sizeof(a), t->has_target ? t->deviation : -1);
	fprintf(out, " %s | %lld | %s | | | | |\n", a, (long long)t->n,
		clocks_steer_ms(m, sizeof(m), t->rtt_mean_ns));
	clocks_model_steer_print_row(out, in, t, 1);
}

void clocks_steering_md(FILE *out, const struct clocks_input *in)
{
	const struct clocks_steering *s = in->steering;
	struct clocks_steer_text x;
	char b[32], c[32], d[32], e[32];

	if (s == NULL || s->nrows == 0)
		return;
	fprintf(out, "| scheme | group |");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, " %s |", s->sites[k]);
	fprintf(out, " deviation | requests | RTT mean (ms) | RTT p50 (ms) | RTT p99 (ms) | "
		     "DNS p50 (ms) | DNS p99 (ms) |\n|---|---|");
	for (int k = 0; k < s->nsites; k++)
		fprintf(out, "---:|");
	fprintf(out, "---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "| %s | %s |", clocks_steer_scheme(r->scheme),
			r->group[0] ? r->group : "?");
		for (int k = 0; k < s->nsites; k++)
			fprintf(out, " %.1f %% |", r->share[k] * 100);
		clocks_steer_text(r, &x);
		fprintf(out, " %s | %lld | %s | %s | %s | %s | %s |\n", x.dev,
			(long long)r->ncaptured, x.ms[0], x.ms[1], x.ms[2], x.ms[3], x.ms[4]);
	}
	clocks_steer_totals_each(in, clocks_steer_total_md, out);
	fputc('\n', out);
	if (s->nnames > 0)
		fprintf(out, "- a row named by a DNS name: every dns group asking it\n");
	for (int i = 0; i < s->nnames; i++)
		if (s->names[i].upstream != CLOCKS_NONE) {
			const struct clocks_model_steer_row *w =
			    clocks_model_steer_row(in, CLOCKS_SCHEME_DNS, s->names[i].name);

			fprintf(out,
				"- %s: %lld upstream queries for it (authd links) in the period",
				s->names[i].name, (long long)s->names[i].upstream);
			if (w && w->known && w->upstream.known)
				fprintf(out, "; the model %.0f", w->upstream.p50);
			fprintf(out, "\n");
		}
	clocks_model_steer_print_notes(out, in, 1);
	for (int i = 0; i < s->nrows; i++) {
		const struct clocks_steer_row *r = &s->rows[i];

		fprintf(out, "- %s %s: target: %s", clocks_steer_scheme(r->scheme),
			r->group[0] ? r->group : "?", r->target_from);
		if (r->disagreement >= 0)
			fprintf(out, "; the clients' records (%lld ok) give shares %.3f away",
				(long long)r->nanswered, r->disagreement);
		if (r->cache_hit.n + r->cache_miss.n > 0)
			fprintf(
			    out,
			    "; its queries to the caches (resolver captures): %lld hits, p50 %s "
			    "ms, p99 %s ms; %lld misses, p50 %s ms, p99 %s ms",
			    (long long)r->cache_hit.n,
			    clocks_steer_ms(b, sizeof(b), r->cache_hit.p50_ns),
			    clocks_steer_ms(c, sizeof(c), r->cache_hit.p99_ns),
			    (long long)r->cache_miss.n,
			    clocks_steer_ms(d, sizeof(d), r->cache_miss.p50_ns),
			    clocks_steer_ms(e, sizeof(e), r->cache_miss.p99_ns));
		fprintf(out, "\n");
	}
	if (s->upstream_queries != CLOCKS_NONE)
		fprintf(out, "- upstream DNS queries (authd links) in the period: %lld\n",
			(long long)s->upstream_queries);
}
