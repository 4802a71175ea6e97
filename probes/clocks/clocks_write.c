/*
 * Writing the clocks: clocks.json (jansson); the table for a person is in
 * clocks_write_table.c. Clocks are seconds relative to t0; a missing one is
 * null in JSON, and the warnings say why; a measure one scheme does not
 * have (upstream queries for anycast) has no JSON key. A scheme the run has
 * no flows of is absent: no JSON object. A clock the end of the
 * observation cut short is a lower bound, flagged in JSON. The verdict
 * (verdict.c) is "valid" and the coded "warnings" of clocks.json.
 */
#include "clocks_write.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "clocks_conn.h"
#include "clocks_auths.h"
#include "clocks_family.h"
#include "clocks_int.h"

#define CLOCKS_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

static json_t *clocks_json_s(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / 1e9);
}

static json_t *clocks_json_n(int64_t v)
{
	return v == CLOCKS_NONE ? json_null() : json_integer(v);
}

static json_t *clocks_json_counts(const struct clocks_count *c, int n)
{
	json_t *o = json_object();

	for (int i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, json_integer(c[i].n));
	return o;
}

static json_t *clocks_json_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

double clocks_per_s(const struct clocks_result *r)
{
	if (r->upstream_queries < 0 || r->traffic_ns == CLOCKS_NONE || r->traffic_ns <= 0)
		return -1;
	return (double)r->upstream_queries / ((double)r->traffic_ns / 1e9);
}

static json_t *clocks_json_dist(const struct clocks_dist *d, const char *clients, int64_t sent)
{
	json_t *o = json_object();

	json_object_set_new(o, clients, json_integer(d->n));
	if (sent != CLOCKS_NA)
		json_object_set_new(o, "sent_after_t0", json_integer(sent));
	json_object_set_new(o, "p50", clocks_json_s(d->p50_ns));
	json_object_set_new(o, "p99", clocks_json_s(d->p99_ns));
	json_object_set_new(o, "max", clocks_json_s(d->max_ns));
	json_object_set_new(
	    o, "lower_bound",
	    json_pack("{s:b, s:b, s:b}", "p50", d->lb_p50, "p99", d->lb_p99, "max", d->lb_max));
	return o;
}

/* clocks_json_dns: the fields only the DNS scheme has */
static void clocks_json_dns(json_t *o, const struct clocks_input *in, const struct clocks_result *r)
{
	json_t *res = json_object();
	char addr[INET6_ADDRSTRLEN];
	double per_s = clocks_per_s(r);

	json_object_set_new(o, "remote_dead_s", clocks_json_s(r->remote_dead_ns));
	json_object_set_new(o, "remote_dead_at_ns", clocks_json_n(r->remote_dead_at_ns));
	json_object_set_new(o, "remote_dead_prober", clocks_json_str(r->remote_prober));
	json_object_set_new(o, "steer_name", clocks_json_str(r->steer_name));
	/* a front door another site kept serving: steer is routing's */
	json_object_set_new(o, "kept_by", clocks_json_str(r->kept_by));
	json_object_set_new(o, "upstream_queries_per_s",
			    per_s < 0 ? json_null() : json_real(per_s));
	for (size_t i = 0; i < r->nresolvers; i++) {
		clocks_addr_name(in, r->resolvers[i].addr, addr, sizeof(addr));
		json_object_set_new(res, addr, json_integer(r->resolvers[i].n));
	}
	json_object_set_new(o, "upstream_resolvers",
			    r->upstream_queries == CLOCKS_NONE ? (json_decref(res), json_null())
							       : res);
}

/* clocks_json_ratio: a ratio, null when unknown (negative) */
static json_t *clocks_json_ratio(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

/* clocks_json_budget: the error budget, when the report computed it */
static json_t *clocks_json_budget(const struct clocks_budget *b)
{
	json_t *o = json_object();

	json_object_set_new(o, "slo_pct", json_real(b->slo_pct));
	json_object_set_new(o, "budget_s", json_real(b->budget_s));
	json_object_set_new(o, "failed", clocks_json_n(b->failed));
	json_object_set_new(o, "rate_per_s", clocks_json_ratio(b->rate_per_s));
	json_object_set_new(o, "equivalent_downtime_s", clocks_json_ratio(b->downtime_s));
	json_object_set_new(o, "window_sent", clocks_json_n(b->window_sent));
	json_object_set_new(o, "window_failed", clocks_json_n(b->window_failed));
	json_object_set_new(o, "window_lost_share", clocks_json_ratio(b->window_lost));
	json_object_set_new(o, "budget_share_downtime", clocks_json_ratio(b->share_downtime));
	json_object_set_new(o, "budget_share_window", clocks_json_ratio(b->share_window));
	return o;
}

/* clocks_json_pops: the populations' summaries, by base id */
static json_t *clocks_json_pops(const struct clocks_pop *pops, int n)
{
	json_t *o = json_object();

	for (int i = 0; i < n; i++) {
		const struct clocks_pop *p = &pops[i];
		json_t *slow = json_array();
		char id[16];

		for (int k = 0; k < p->nslowest; k++)
			json_array_append_new(
			    slow,
			    json_pack("{s:I, s:I, s:o, s:b}", "client",
				      (json_int_t)p->slowest[k].client, "index",
				      (json_int_t)(p->slowest[k].client & WIRE_POP_INDEX_MASK),
				      "last_s", clocks_json_s(p->slowest[k].last_ns), "cut",
				      p->slowest[k].cut));
		snprintf(id, sizeof(id), "%u", p->base);
		json_object_set_new(
		    o, id,
		    json_pack(
			"{s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:{s:b, s:b, s:b, s:b, "
			"s:b}, s:o}",
			"node", clocks_json_str(p->node), "clients", (json_int_t)p->clients,
			"sent_after_t0", (json_int_t)p->sent_after_t0, "cut", (json_int_t)p->cut,
			"p50", clocks_json_s(p->p50_ns), "p90", clocks_json_s(p->p90_ns), "p99",
			clocks_json_s(p->p99_ns), "p999", clocks_json_s(p->p999_ns), "max",
			clocks_json_s(p->max_ns), "lower_bound", "p50", p->lb_p50, "p90", p->lb_p90,
			"p99", p->lb_p99, "p999", p->lb_p999, "max", p->lb_max, "slowest", slow));
	}
	return o;
}

/* clocks_json_failback: the fail-back clocks, seconds after the recovery */
static json_t *clocks_json_failback(const struct clocks_failback *b)
{
	json_t *o = json_object();

	json_object_set_new(o, "recovered_s", clocks_json_s(b->recovered_ns));
	json_object_set_new(o, "healthy_s", clocks_json_s(b->healthy_ns));
	json_object_set_new(o, "steer_s", clocks_json_s(b->steer_ns));
	json_object_set_new(o, "first_client_s", clocks_json_s(b->first_ns));
	json_object_set_new(o, "last_client_s", clocks_json_s(b->last_ns));
	json_object_set_new(o, "clients_back", clocks_json_n(b->back));
	json_object_set_new(o, "clients", clocks_json_n(b->clients));
	return o;
}

/* clocks_json_decay: scheme i's decay at the report's marks, up to the
 * recovery (back = 0: the share still sent to the dead site, by cause), or
 * the fail-back's from it (back = 1: the share sent to it again) */
static json_t *clocks_json_decay(const struct clocks_input *in, const struct clocks_explain *ex,
				 int i, int back)
{
	const struct clocks_decay *d = ex->decay;
	const struct clocks_decay_series *s = &d->s[i];
	int64_t marks[CLOCKS_MAX_MARKS], from = back ? ex->recovered_ns : 0;
	int64_t limit = back ? d->end_ns - from
			: ex->recovered_ns != CLOCKS_NONE && ex->recovered_ns < d->end_ns
			    ? ex->recovered_ns
			    : d->end_ns;
	json_t *o = json_object(), *a = json_array();
	int end, n = clocks_decay_marks(d, limit, marks, &end);
	/* the model's share of the same buckets (clocks_model.h) */
	double *model = back || d->n == 0 ? NULL : malloc(d->n * sizeof(double));

	if (model && clocks_model_decay(in, i, d->bucket_ns, d->n, model) == -1) {
		free(model);
		model = NULL;
	}

	json_object_set_new(o, "bucket_s", json_real((double)d->bucket_ns / 1e9));
	for (int m = 0; s->known && m < n; m++) {
		int64_t k = back ? clocks_bucket_of(from + marks[m], d->bucket_ns)
				 : clocks_bucket_of(marks[m], d->bucket_ns);
		int64_t part = back ? (s->back ? s->back[k] : 0) : s->dead[k];
		json_t *row = json_object();

		if (k < 0 || k >= (int64_t)d->n || (back && s->back == NULL)) {
			json_decref(row);
			continue;
		}
		json_object_set_new(row, back ? "after_recovery_s" : "after_s",
				    json_real((double)marks[m] / 1e9));
		json_object_set_new(row, "end", json_boolean(end && m == n - 1));
		json_object_set_new(row, "share",
				    s->all[k] ? json_real((double)part / (double)s->all[k])
					      : json_null());
		json_object_set_new(row, back ? "back" : "dead", json_integer(part));
		json_object_set_new(row, "all", json_integer(s->all[k]));
		if (model)
			json_object_set_new(row, "model_share",
					    model[k] >= 0 ? json_real(model[k]) : json_null());
		if (!back && s->cause[0]) {
			json_t *c = json_object();

			for (int x = 0; x < CLOCKS_CAUSES; x++)
				if (s->cause[x][k])
					json_object_set_new(c, clocks_cause_names[x],
							    json_integer(s->cause[x][k]));
			json_object_set_new(row, "by_cause", c);
		}
		json_array_append_new(a, row);
	}
	json_object_set_new(o, "marks", a);
	free(model);
	return o;
}

static json_t *clocks_json_scheme_all(const struct clocks_input *in, const struct clocks_result *r,
				      const struct clocks_explain *ex, int i);

/* what a steady-state run has none of: the failover clocks, and what is
 * counted from t0 on (docs/clocks.md, "Steady state"); absent, not null,
 * so that nothing looks like a clock that failed to be measured */
static const char *const clocks_failover_keys[] = {
    "detect_s",
    "steer_s",
    "window_s",
    "window_lower_bound",
    "last_per_client_s",
    "detect_at_ns",
    "steer_at_ns",
    "remote_dead_s",
    "remote_dead_at_ns",
    "remote_dead_prober",
    "steer_name",
    "kept_by",
    "last_packet_s",
    "last_by_client_s",
    "lower_bound_clients",
    "captured_after_t0",
    "failback",
    "decay",
    "budget",
    "lost_capture",
};

static json_t *clocks_json_scheme(const struct clocks_input *in, const struct clocks_result *r,
				  const struct clocks_explain *ex, int i)
{
	json_t *o = clocks_json_scheme_all(in, r, ex, i);

	if (o && in->steady)
		for (size_t k = 0;
		     k < sizeof(clocks_failover_keys) / sizeof(clocks_failover_keys[0]); k++)
			json_object_del(o, clocks_failover_keys[k]);
	return o;
}

static json_t *clocks_json_scheme_all(const struct clocks_input *in, const struct clocks_result *r,
				      const struct clocks_explain *ex, int i)
{
	json_t *o = json_object();
	int dns = r->upstream_queries != CLOCKS_NA;

	/* the shape docs/clocks.md promises first, then the details */
	json_object_set_new(o, "detect_s", clocks_json_s(r->detect_ns));
	/* a gray failure no prober detected: said, not a number */
	if (r->undetected)
		json_object_set_new(o, "detect_note", json_string("not detected within the run"));
	json_object_set_new(o, "steer_s", clocks_json_s(r->steer_ns));
	json_object_set_new(o, "window_s", clocks_json_s(r->window_ns));
	json_object_set_new(o, "window_lower_bound", json_boolean(r->window_lb));
	json_object_set_new(o, "last_per_client_s",
			    clocks_json_dist(&r->last_per_client, "clients", r->last_packet.n));
	json_object_set_new(o, "sent", clocks_json_n(r->sent));
	json_object_set_new(o, "lost_client", clocks_json_n(r->lost_client));
	json_object_set_new(o, "lost_capture", clocks_json_n(r->lost_capture));
	if (r->rescued != CLOCKS_NONE)
		json_object_set_new(o, "rescued", clocks_json_n(r->rescued));
	json_object_set_new(o, "capture_drops", clocks_json_n(r->capture_drops));
	if (dns)
		json_object_set_new(o, "upstream_queries", clocks_json_n(r->upstream_queries));
	json_object_set_new(o, "ok", clocks_json_n(r->ok));
	json_object_set_new(o, "errors", clocks_json_n(r->errors));
	json_object_set_new(o, "detect_at_ns", clocks_json_n(r->detect_at_ns));
	json_object_set_new(o, "steer_at_ns", clocks_json_n(r->steer_at_ns));
	if (dns)
		clocks_json_dns(o, in, r);
	json_object_set_new(o, "last_packet_s",
			    clocks_json_dist(&r->last_packet, "clients", CLOCKS_NA));
	/* a lab over several hosts: each main clock's uncertainty */
	json_t *u = clocks_hosts_json_u(r);
	if (u)
		json_object_set_new(o, "uncertainty_s", u);
	/* a process client by its id; a population's logical clients in its
	 * summary (docs/clocks.md, "Populations") */
	json_t *by = json_object();
	json_t *cut = json_array();
	for (size_t i = 0; i < r->nby_client; i++) {
		const struct clocks_client_last *c = &r->by_client[i];
		char id[16];

		if (clocks_pop_of(c->client))
			continue;
		snprintf(id, sizeof(id), "%u", c->client);
		json_object_set_new(by, id, clocks_json_s(c->last_ns));
		if (c->cut)
			json_array_append_new(cut, json_integer(c->client));
	}
	json_object_set_new(o, "last_by_client_s", by);
	json_object_set_new(o, "lower_bound_clients", cut);
	if (r->npops > 0)
		json_object_set_new(o, "populations", clocks_json_pops(r->pops, r->npops));
	json_object_set_new(o, "replies", clocks_json_counts(r->replies, r->nreplies));
	json_object_set_new(o, "captured_after_t0", clocks_json_counts(r->after_t0, r->nafter_t0));
	if (r->has_failback) {
		json_t *fb = clocks_json_failback(&r->failback);

		/* the fail-back's own table, as the report prints it */
		if (ex && ex->decay && i < CLOCKS_NSCHEMES && ex->recovered_ns != CLOCKS_NONE)
			json_object_set_new(fb, "decay", clocks_json_decay(in, ex, i, 1));
		json_object_set_new(o, "failback", fb);
	}
	if (ex && ex->decay && i < CLOCKS_NSCHEMES)
		json_object_set_new(o, "decay", clocks_json_decay(in, ex, i, 0));
	if (r->has_budget)
		json_object_set_new(o, "budget", clocks_json_budget(&r->budget));
	/* the model beside each clock, with the same keys (clocks_model.h) */
	if (in->model && in->model->known)
		json_object_set_new(o, "model", clocks_model_json(in, r, i));
	if (r->fib)
		json_object_set_new(o, "fib", clocks_json_fib(in, r->fib));
	if (r->fib6)
		json_object_set_new(o, "fib6", clocks_json_fib(in, r->fib6));
	if (r->catchments)
		json_object_set_new(o, "catchments", clocks_json_catchments(r->catchments));
	if (r->catchments && r->catchments->npops > 0)
		json_object_set_new(o, "population_catchments",
				    clocks_json_catch_pops(r->catchments));
	return o;
}

int clocks_warnings(const struct clocks_input *in, const struct clocks_result *res, int nres,
		    const struct clocks_notes *v, const struct clocks_warning **out, int max,
		    int *lost)
{
	const struct clocks_notes *all[2 + CLOCKS_MAX_SCHEMES];
	int nall = 0, n = 0;

	*lost = 0;
	if (v)
		all[nall++] = v;
	all[nall++] = &in->notes;
	for (int i = 0; i < nres && i < CLOCKS_MAX_SCHEMES; i++)
		if (!res[i].noflows) /* an absent scheme has nothing to say */
			all[nall++] = &res[i].notes;
	/* the invalidating ones first, then the others, each once: the
	 * schemes share some (a missing capture) */
	for (int pass = 1; pass >= 0; pass--) {
		for (int j = 0; j < nall; j++) {
			for (int k = 0; k < all[j]->n; k++) {
				const struct clocks_warning *w = &all[j]->w[k];
				int seen = 0;

				if (w->invalidates != pass)
					continue;
				for (int m = 0; m < n && !seen; m++)
					seen = strcmp(out[m]->code, w->code) == 0 &&
					       strcmp(out[m]->msg, w->msg) == 0;
				if (seen)
					continue;
				if (n == max)
					(*lost)++;
				else
					out[n++] = w;
			}
			if (pass == 0)
				*lost += all[j]->lost;
		}
	}
	return n;
}

static json_t *clocks_json_rel(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / 1e9);
}

/* clocks_json_explain: the verdict in words, which scheme left first, and
 * per scheme what held it: each cause and who, its requests, first, last */
static json_t *clocks_json_explain(const struct clocks_input *in, const struct clocks_result *res,
				   int nres, const struct clocks_explain *ex)
{
	json_t *o = json_object(), *words = json_array(), *schemes = json_object();

	(void)in;
	for (int k = 0; k < ex->nwords; k++)
		json_array_append_new(words, json_string(ex->words[k]));
	json_object_set_new(o, "words", words);
	json_object_set_new(o, "first",
			    ex->first >= 0 && !ex->tie ? json_string(res[ex->first].scheme)
						       : json_null());
	json_object_set_new(o, "by_s", ex->first >= 0 ? clocks_json_rel(ex->by_ns) : json_null());
	json_object_set_new(o, "failback_first",
			    ex->back_first >= 0 ? json_string(res[ex->back_first].scheme)
						: json_null());
	json_object_set_new(o, "failback_by_s",
			    ex->back_first >= 0 ? clocks_json_rel(ex->back_by_ns) : json_null());
	for (int i = 0; i < nres && i < CLOCKS_NSCHEMES; i++) {
		const struct clocks_explain_scheme *xs = &ex->s[i];
		json_t *so, *causes;

		if (!xs->present)
			continue;
		so = json_object();
		causes = json_array();
		json_object_set_new(so, "window_s", clocks_json_rel(xs->window_ns));
		json_object_set_new(so, "held_by",
				    xs->held < 0
					? json_null()
					: json_pack("{s:s, s:s, s:o}", "cause",
						    clocks_cause_names[xs->e[xs->held].cause],
						    "who", xs->e[xs->held].who, "last_s",
						    clocks_json_rel(xs->e[xs->held].last_ns)));
		json_object_set_new(so, "without_s", clocks_json_rel(xs->without_ns));
		for (int k = 0; k < xs->n; k++) {
			const struct clocks_cause_entry *e = &xs->e[k];

			if (e->requests == 0)
				continue;
			json_array_append_new(causes,
					      json_pack("{s:s, s:s, s:I, s:o, s:o}", "cause",
							clocks_cause_names[e->cause], "who", e->who,
							"requests", (json_int_t)e->requests,
							"first_s", clocks_json_rel(e->first_ns),
							"last_s", clocks_json_rel(e->last_ns)));
		}
		json_object_set_new(so, "causes", causes);
		json_object_set_new(schemes, res[i].scheme, so);
	}
	json_object_set_new(o, "schemes", schemes);
	return o;
}

/* clocks_json_impairments: the mechanism and each client's path, as
 * configured and as measured (docs/clocks.md, "Impairments") */
static json_t *clocks_json_impairments(const struct clocks_input *in)
{
	struct clocks_impair_path *ip = calloc(in->nimpair, sizeof(*ip));
	json_t *o, *paths = json_array();

	if (ip == NULL || clocks_impair_measure(in, ip) == -1) {
		free(ip);
		json_decref(paths);
		return json_null();
	}
	for (size_t p = 0; p < in->nimpair; p++) {
		json_t *e = json_pack(
		    "{s:s, s:s, s:o, s:f, s:I, s:o, s:o}", "client", ip[p].client, "site",
		    ip[p].site, "configured_rtt_s", clocks_json_s(ip[p].rtt_ns),
		    "configured_loss_pct", ip[p].loss_pct, "requests", (json_int_t)ip[p].n,
		    "measured_rtt_p50_s", clocks_json_s(ip[p].p50_ns), "mismatch",
		    ip[p].rtt_ns > 0 && ip[p].n > 0 ? json_boolean(ip[p].mismatch) : json_null());

		/* in force from a link_impaired on (bring-up's have no from) */
		if (e && ip[p].from_ns > 0)
			json_object_set_new(e, "from_ns", json_integer(ip[p].from_ns));
		json_array_append_new(paths, e);
	}
	free(ip);
	o = json_pack("{s:s, s:o}", "mechanism", in->impair_mech, "paths", paths);
	return o;
}

static json_t *clocks_json_warning(const char *code, const char *msg, int invalidates)
{
	return json_pack("{s:s, s:s, s:b}", "code", code, "message", msg, "invalidates",
			 invalidates);
}

static json_t *clocks_json(const struct clocks_input *in, const struct clocks_result *res, int nres,
			   const struct clocks_notes *v, const struct clocks_explain *ex)
{
	const struct clocks_failure *f = &in->failure;
	json_t *root = json_object(), *failed = json_object(), *schemes = json_object();
	json_t *warnings = json_array(), *absent = json_array();
	char via[INET6_ADDRSTRLEN], prefix[INET6_ADDRSTRLEN + 5], addr[INET6_ADDRSTRLEN];
	const struct clocks_warning *list[CLOCKS_MAX_LIST];
	int n, lost;

	/* a lab of ip = 6: each as its IPv6 address (clocks_addr_name) */
	clocks_addr_name(in, f->via, via, sizeof(via));
	clocks_addr_name(in, f->prefix, prefix, INET6_ADDRSTRLEN);
	snprintf(prefix + strlen(prefix), 5, "/%d", in->ip6 ? 128 : f->prefixlen);
	clocks_addr_name(in, f->address, addr, sizeof(addr));
	json_object_set_new(root, "lab", json_string(in->lab));
	json_object_set_new(root, "valid", json_boolean(clocks_valid(in, res, nres, v)));
	if (in->steady) {
		json_object_set_new(root, "steady_state", json_true());
		json_object_set_new(root, "failure", json_string("steady state: no failure"));
	} else {
		json_object_set_new(root, "steady_state", json_false());
		json_object_set_new(root, "t0_ns", json_integer(f->t0_ns));
	}
	json_object_set_new(root, "schemes", schemes);
	for (int i = 0; i < nres; i++) {
		if (res[i].noflows)
			json_array_append_new(absent, json_string(res[i].scheme));
		else
			json_object_set_new(schemes, res[i].scheme,
					    clocks_json_scheme(in, &res[i], ex, i));
	}
	json_object_set_new(root, "schemes_absent", absent);
	json_object_set_new(failed, "site", json_string(f->site));
	json_object_set_new(failed, "via", json_string(via));
	json_object_set_new(failed, "prefix", json_string(prefix));
	json_object_set_new(failed, "address", f->has_address ? json_string(addr) : json_null());
	json_object_set_new(failed, "killed_ns", clocks_json_n(f->killed_ns));
	/* where fail_jitter put t0: fail_at (nominal_at_s) + jitter_offset_s */
	json_object_set_new(failed, "nominal_at_s", clocks_json_s(f->nominal_at_ns));
	json_object_set_new(failed, "jitter_offset_s", clocks_json_s(f->jitter_offset_ns));
	json_object_set_new(root, "seed", clocks_json_n(in->seed));
	json_object_set_new(root, "fail_jitter_s", clocks_json_s(in->fail_jitter_ns));
	if (in->steady)
		json_decref(failed);
	else
		json_object_set_new(root, "failed", failed);
	json_object_set_new(root, "port", json_integer(in->port));
	json_object_set_new(root, "timeline", clocks_json_timeline(in));
	json_object_set_new(root, "failures", clocks_json_failures(in));
	if (in->model && !in->steady)
		json_object_set_new(root, "model", clocks_model_json_run(in));
	{
		struct clocks_flaps *fl = malloc(sizeof(*fl));

		if (fl) {
			clocks_flaps(in, fl);
			json_object_set_new(root, "flaps", clocks_json_flaps(in, fl));
			free(fl);
		}
	}
	{
		struct clocks_outages *o = malloc(sizeof(*o));

		if (o) {
			clocks_outages(in, o);
			json_object_set_new(root, "dns_outages", clocks_json_outages(in, o));
			free(o);
		}
	}
	{
		json_t *rsv = clocks_json_resolvers(in);

		if (rsv)
			json_object_set_new(root, "resolvers", rsv);
	}
	{
		json_t *auths = clocks_auths_json(in);

		if (auths)
			json_object_set_new(root, "authorities", auths);
	}
	{
		json_t *st = clocks_steering_json(in);

		if (st)
			json_object_set_new(root, "steering", st);
	}
	{
		json_t *fam = clocks_family_json(in);

		if (fam)
			json_object_set_new(root, "families", fam);
	}
	{
		json_t *w = clocks_shares_json(in);

		if (w)
			json_object_set_new(root, "weights", w);
	}
	{
		json_t *conn = clocks_conn_json(in);

		if (conn)
			json_object_set_new(root, "connections", conn);
	}
	if (in->nimpair)
		json_object_set_new(root, "impairments", clocks_json_impairments(in));
	if (clocks_multi_host(in))
		json_object_set_new(root, "hosts", clocks_hosts_json(in));
	if (ex && !in->steady) /* no failure to explain */
		json_object_set_new(root, "explain", clocks_json_explain(in, res, nres, ex));
	n = clocks_warnings(in, res, nres, v, list, CLOCKS_MAX_LIST, &lost);
	for (int k = 0; k < n; k++)
		json_array_append_new(warnings, clocks_json_warning(list[k]->code, list[k]->msg,
								    list[k]->invalidates));
	if (lost)
		json_array_append_new(
		    warnings, clocks_json_warning("limit", "more warnings were not kept", 0));
	json_object_set_new(root, "warnings", warnings);
	return root;
}

int clocks_print_json(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		      int nres, const struct clocks_notes *v, const struct clocks_explain *ex)
{
	json_t *root = clocks_json(in, res, nres, v, ex);
	int rc;

	if (root == NULL)
		return -1;
	rc = json_dumpf(root, out, CLOCKS_JSON_FLAGS);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	json_decref(root);
	return rc;
}

int clocks_write_json(int dirfd, const char *dir, const char *name, const struct clocks_input *in,
		      const struct clocks_result *res, int nres, const struct clocks_notes *v,
		      const struct clocks_explain *ex, char *err, size_t errlen)
{
	struct atomicfile af;
	json_t *root;
	int rc = -1;

	root = clocks_json(in, res, nres, v, ex);
	if (root == NULL) {
		snprintf(err, errlen, "%s/%s: out of memory", dir, name);
		return -1;
	}
	if (atomicfile_open(&af, dirfd, dir, name, err, errlen) == -1)
		goto out;
	/* a failed write is reported by atomicfile_commit, with its errno */
	if (json_dumpf(root, af.fp, CLOCKS_JSON_FLAGS) == -1 && !ferror(af.fp)) {
		atomicfile_abort(&af);
		snprintf(err, errlen, "%s/%s: cannot encode the clocks", dir, name);
		goto out;
	}
	rc = atomicfile_commit(&af, err, errlen);
out:
	json_decref(root);
	return rc;
}
